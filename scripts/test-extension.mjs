// Offline launcher for the extension-host test suite (test/extension/suite): runs it
// inside a real VS Code extension host served by code-server and driven by headless
// Chromium, for machines that cannot download VS Code (what @vscode/test-electron needs).
//
//   npm run build && npx tsc -p tsconfig.test.json && node scripts/test-extension.mjs
//
// It builds nothing. The exit code is the suite's (0 = all passed). The environment of
// this process reaches the extension host (code-server is spawned with it and forks the
// extension host with it), so e.g. REDLOCK_TEST_NODES=redis://... is visible to tests.
//
// Env: REDLOCK_EXT_TEST_TIMEOUT_MS (whole run once the tools exist, default 300000), REDLOCK_TEST_GREP (mocha
// grep), REDLOCK_EXT_TEST_VERBOSE=1 (code-server and browser console output),
// REDLOCK_TOOLS_DIR (where code-server and Node 24 are cached, see vscode-tools.mjs),
// REDLOCK_EXT_TEST_KEEP_TMP=1 (keep the temp dir: workspace, user data, code-server.log),
// REDLOCK_EXT_TEST_ARGS (extra code-server arguments, space-separated).
// Recipe: /work/shared/notes/vscode-extension-host-offline.md
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format } from 'node:util';
import { CHROMIUM, ensureTools, envWithNode24 } from './vscode-tools.mjs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const extensionTestsPath = join(repoRoot, 'out', 'test', 'extension', 'suite', 'index.js');
const timeoutMs = Number(process.env.REDLOCK_EXT_TEST_TIMEOUT_MS) || 300_000;
const verbose = /^(1|true|yes)$/i.test(process.env.REDLOCK_EXT_TEST_VERBOSE ?? '');
const t0 = Date.now();

const USER_SETTINGS = {
  'chat.disableAIFeatures': true,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'workbench.enableExperiments': false,
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'git.enabled': false,
  'github.gitAuthentication': false,
  'security.workspace.trust.enabled': false,
};

const say = (msg) => process.stderr.write(`[test-extension] ${msg}\n`);
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;

// codeAutomationLog carries the workbench's own log (level >= info) as well as the extension
// host's console: drop the workbench's routine start-up lines (REDLOCK_EXT_TEST_VERBOSE=1 keeps them).
const WORKBENCH_NOISE =
  /^(Resolving connection token \(|Resolved connection token \(|Creating a socket \(renderer-|\[reconnection-grace-time\] |Updating additional builtin extensions cache|Ignoring fetching additional builtin extensions from gallery|\[Service Worker\] |\[AgentHost(:remote)?\] |\[AccountPolicyGate\] |\[ChatModelSelection\] |No search provider registered for scheme: vscode-remote)/;

// ---- cleanup: whatever happens, code-server's process group and the browser go away ----
let codeServer; // ChildProcess, leader of its own process group
let context; // Playwright BrowserContext (persistent: owns the browser process)
let tmp;
let codeServerLogPath;
let finishing = false;

function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

async function stopCodeServer() {
  const pgid = codeServer?.pid;
  if (!pgid || !groupAlive(pgid)) return;
  try {
    process.kill(-pgid, 'SIGTERM');
  } catch {
    /* gone */
  }
  const until = Date.now() + 5000;
  while (groupAlive(pgid) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  if (groupAlive(pgid)) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}

async function cleanup() {
  const ctx = context;
  context = undefined;
  if (ctx) {
    // Playwright SIGKILLs the browser's process group itself if a graceful close hangs,
    // and on process exit (its 'exit' handler).
    await Promise.race([ctx.close().catch(() => {}), new Promise((r) => setTimeout(r, 5000))]);
  }
  await stopCodeServer();
  if (tmp && !process.env.REDLOCK_EXT_TEST_KEEP_TMP) rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
}

// Last resort if something exits the process synchronously: no code-server survives us.
process.on('exit', () => {
  if (codeServer?.pid && groupAlive(codeServer.pid)) {
    try {
      process.kill(-codeServer.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
});

function printCodeServerLog() {
  if (!codeServerLogPath || !existsSync(codeServerLogPath)) return;
  const text = readFileSync(codeServerLogPath, 'utf8').trimEnd();
  if (text) process.stderr.write(`---- code-server output ----\n${text.split('\n').slice(-60).join('\n')}\n----\n`);
}

async function finish(code, why) {
  if (finishing) return;
  finishing = true;
  clearTimeout(overallTimer);
  if (why) say(why);
  if (code !== 0 && !verbose) printCodeServerLog();
  await cleanup().catch((e) => say(`cleanup: ${e.message}`));
  say(`exit ${code} after ${elapsed()}`);
  process.exit(code);
}

for (const [sig, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]]) {
  process.on(sig, () => void finish(code, `${sig}: stopping`));
}
process.on('uncaughtException', (e) => void finish(1, `uncaught: ${e.stack ?? e}`));
process.on('unhandledRejection', (e) => void finish(1, `unhandled rejection: ${e?.stack ?? e}`));
// Started once the tools are there (their one-time install takes a few minutes of its own).
let overallTimer;

// ---- helpers ----
function freePort() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => res(port));
    });
  });
}

async function waitForHealth(url, child, limitMs) {
  const until = Date.now() + limitMs;
  let last;
  while (Date.now() < until) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`code-server exited early (${child.exitCode ?? child.signalCode})`);
    }
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (r.ok) return;
      last = `HTTP ${r.status}`;
    } catch (e) {
      last = e.cause?.code ?? e.message;
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`code-server not healthy at ${url} within ${limitMs} ms (${last})`);
}

// ---- main ----
async function main() {
  for (const [p, how] of [
    [join(repoRoot, 'dist', 'extension.js'), 'npm run build'],
    [extensionTestsPath, 'npx tsc -p tsconfig.test.json'],
  ]) {
    if (!existsSync(p)) return finish(1, `${p} is missing: run \`${how}\` first`);
  }

  const tools = ensureTools();
  if (!tools.chromium) return finish(1, `${CHROMIUM} is missing (sudo apt-get install -y chromium)`);
  say(`tools ready (${elapsed()})`);
  overallTimer = setTimeout(() => void finish(124, `timed out after ${timeoutMs} ms (REDLOCK_EXT_TEST_TIMEOUT_MS)`), timeoutMs);

  tmp = mkdtempSync(join(tmpdir(), 'redlock-ext-test-'));
  const dirs = Object.fromEntries(
    ['xdg-config', 'xdg-data', 'xdg-cache', 'user-data', 'extensions', 'workspace', 'browser'].map((d) => {
      const p = join(tmp, d);
      mkdirSync(p, { recursive: true });
      return [d, p];
    }),
  );
  codeServerLogPath = join(tmp, 'code-server.log');
  // Quiet, offline-friendly user settings (tests own the workspace's .vscode/settings.json).
  mkdirSync(join(dirs['user-data'], 'User'), { recursive: true });
  writeFileSync(join(dirs['user-data'], 'User', 'settings.json'), JSON.stringify(USER_SETTINGS, null, 2));

  const port = await freePort();
  const authority = `127.0.0.1:${port}`;
  // The extension host is forked by code-server with code-server's environment (plus
  // VSCODE_* variables of its own): everything set here reaches the tests.
  const env = envWithNode24({
    ...process.env,
    REDLOCK_EXT_TEST: '1',
    XDG_CONFIG_HOME: dirs['xdg-config'],
    XDG_DATA_HOME: dirs['xdg-data'],
    XDG_CACHE_HOME: dirs['xdg-cache'],
    // No marketplace (code-server defaults to open-vsx.org): no offline ENOTFOUND noise.
    EXTENSIONS_GALLERY: '{}',
  });
  // Variables that would make the server's Node misbehave or attach to something else.
  for (const k of ['NODE_OPTIONS', 'ELECTRON_RUN_AS_NODE', 'VSCODE_IPC_HOOK_CLI', 'VSCODE_PID', 'VSCODE_CWD', 'VSCODE_NLS_CONFIG']) delete env[k];

  const args = [
    tools.codeServerEntry,
    '--bind-addr', authority,
    '--auth', 'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--reconnection-grace-time', '10',
    '--extensions-dir', dirs.extensions,
    '--user-data-dir', dirs['user-data'],
    '--vscode-option', 'enable-smoke-test-driver',
    '--ignore-last-opened',
    // Only the extension under development (VS Code's built-in extensions stay off, as with
    // test-electron's --disable-extensions): faster and quieter.
    '--vscode-option', 'disable-extensions',
    ...(process.env.REDLOCK_EXT_TEST_ARGS ? process.env.REDLOCK_EXT_TEST_ARGS.split(' ') : []),
  ];
  const log = createWriteStream(codeServerLogPath);
  codeServer = spawn(tools.node, args, { cwd: dirs.workspace, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  for (const s of [codeServer.stdout, codeServer.stderr]) {
    s.on('data', (b) => {
      log.write(b);
      if (verbose) process.stderr.write(b);
    });
  }
  codeServer.on('exit', (code, sig) => {
    if (!finishing) void finish(1, `code-server exited unexpectedly (${code ?? sig})`);
  });
  await waitForHealth(`http://${authority}/healthz`, codeServer, 60_000);
  say(`code-server up on ${authority} (${elapsed()})`);

  const { chromium } = await import('playwright-core');
  context = await chromium.launchPersistentContext(dirs.browser, {
    executablePath: tools.chromium,
    headless: true,
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    env: { ...process.env, XDG_CONFIG_HOME: dirs['xdg-config'], XDG_CACHE_HOME: dirs['xdg-cache'], HOME: tmp },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-crash-reporter', '--disable-breakpad'],
  });
  const page = context.pages()[0] ?? (await context.newPage());

  // The workbench calls these when started with a smoke-test-driver payload: its log, which
  // includes the extension host's console (printf-style arguments), and, once the extension
  // host exits after run() settles, the result.
  let exitCode;
  let resolveExited;
  const exited = new Promise((res) => (resolveExited = res));
  await page.exposeFunction('codeAutomationLog', (type, args) => {
    const line = format(...(Array.isArray(args) ? args : [args]));
    if (!verbose && WORKBENCH_NOISE.test(line)) return;
    if (line.trim() === '') return void process.stdout.write('\n');
    if (type === 'error' || type === 'warn') process.stderr.write(line + '\n');
    else process.stdout.write(line + '\n');
  });
  await page.exposeFunction('codeAutomationExit', (code) => {
    exitCode = Number(code);
    resolveExited();
  });
  page.on('crash', () => void finish(1, 'the workbench page crashed'));
  if (verbose) {
    page.on('console', (m) => process.stderr.write(`[browser ${m.type()}] ${m.text()}\n`));
    page.on('pageerror', (e) => process.stderr.write(`[browser pageerror] ${e.message}\n`));
  }

  const remote = (p) => `vscode-remote://${authority}${p.split('/').map(encodeURIComponent).join('/')}`;
  const payload = [
    ['extensionDevelopmentPath', remote(repoRoot)],
    ['extensionTestsPath', remote(extensionTestsPath)],
  ];
  const url = `http://${authority}/?folder=${encodeURIComponent(dirs.workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
  say(`workbench loading, running ${extensionTestsPath} (${elapsed()})`);

  await exited;
  return finish(Number.isInteger(exitCode) ? exitCode : 1, `suite finished with code ${exitCode}`);
}

main().catch((e) => finish(1, `failed: ${e.stack ?? e}`));
