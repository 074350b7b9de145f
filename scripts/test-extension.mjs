// @ts-check
// The extension-host test suite (test/extension/suite) in a real VS Code, by one of two
// strategies:
//   --launcher=electron     desktop VS Code through @vscode/test-electron (downloads VS
//                           Code; on a headless Linux it re-runs itself under xvfb-run)
//   --launcher=code-server  offline: code-server + headless Chromium (docs/extension-host.md)
//   --launcher=auto         (default; or REDLOCK_VSCODE=...) electron when VS Code's update
//                           server answers quickly, code-server otherwise, and code-server
//                           on a Linux without DISPLAY and without xvfb-run.
//
//   npm run build && npx tsc -p tsconfig.test.json && node scripts/test-extension.mjs
//
// It builds nothing. The exit code is the suite's (0 = all passed). This process's
// environment reaches the extension host, so e.g. REDLOCK_TEST_NODES=redis://... is
// visible to tests.
//
// Env: REDLOCK_TEST_GREP (mocha grep); electron: REDLOCK_VSCODE_VERSION (default
// 'stable'); code-server: REDLOCK_EXT_TEST_TIMEOUT_MS (whole run once the tools exist,
// default 300000), REDLOCK_EXT_TEST_VERBOSE=1 (code-server and browser console output),
// REDLOCK_TOOLS_DIR (see vscode-tools.mjs), REDLOCK_EXT_TEST_KEEP_TMP=1 (keep the temp
// dir), REDLOCK_EXT_TEST_ARGS (extra code-server arguments, space-separated).
import { spawn, spawnSync } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format } from 'node:util';
import { CHROMIUM, ensureTools, toolsDir } from './vscode-tools.mjs';
import { closeBrowser, codeServerEnv, envFlag, finishOnSignals, freePort, killGroupsOnExit, launchBrowser, makeWorkbenchDirs, printLogTail, QUIET_USER_SETTINGS, serveArgs, spawnCodeServer, stopGroup, waitForHealth, workbenchPage, writeUserSettings } from './workbench.mjs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const extensionTestsPath = join(repoRoot, 'out', 'test', 'extension', 'suite', 'index.js');
const timeoutMs = Number(process.env.REDLOCK_EXT_TEST_TIMEOUT_MS) || 300_000;
const verbose = envFlag('REDLOCK_EXT_TEST_VERBOSE');
const t0 = Date.now();

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

async function cleanup() {
  const ctx = context;
  context = undefined;
  await closeBrowser(ctx);
  await stopGroup(codeServer, 5000);
  if (tmp && !process.env.REDLOCK_EXT_TEST_KEEP_TMP) rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
}


// code-server going away before finish() began is a failed run, whatever its exit code.
function codeServerExited(how) {
  if (!finishing) void finish(1, `code-server exited unexpectedly (${how})`);
}

async function finish(code, why) {
  if (finishing) return;
  finishing = true;
  clearTimeout(overallTimer);
  if (why) say(why);
  if (code !== 0 && !verbose) printLogTail(codeServerLogPath, 'code-server output', 60);
  await cleanup().catch((e) => say(`cleanup: ${e.message}`));
  say(`exit ${code} after ${elapsed()}`);
  process.exit(code);
}

// Started once the tools are there (their one-time install takes a few minutes of its own).
let overallTimer;

// ---- strategy: code-server (offline) ----
async function runCodeServer() {
  // Last resort if something exits the process synchronously: no code-server survives us.
  killGroupsOnExit(() => [codeServer]);
  finishOnSignals(finish);
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
  const dirs = makeWorkbenchDirs(tmp);
  codeServerLogPath = join(tmp, 'code-server.log');
  // Quiet, offline-friendly user settings (tests own the workspace's .vscode/settings.json).
  writeUserSettings(dirs['user-data'], QUIET_USER_SETTINGS);

  const port = await freePort();
  const authority = `127.0.0.1:${port}`;
  // The extension host is forked by code-server with code-server's environment (plus
  // VSCODE_* variables of its own): everything set here reaches the tests.
  const env = codeServerEnv(dirs, { REDLOCK_EXT_TEST: '1' });
  const args = serveArgs(tools, dirs, authority, {
    extra: [
      '--vscode-option', 'enable-smoke-test-driver',
      // Only the extension under development (VS Code's built-in extensions stay off, as with
      // test-electron's --disable-extensions): faster and quieter.
      '--vscode-option', 'disable-extensions',
      ...(process.env.REDLOCK_EXT_TEST_ARGS ? process.env.REDLOCK_EXT_TEST_ARGS.split(' ') : []),
    ],
  });
  codeServer = spawnCodeServer(tools, args, { cwd: dirs.workspace, env, logPath: codeServerLogPath, verbose, onExit: codeServerExited });
  await waitForHealth(`http://${authority}/healthz`, codeServer, 60_000);
  say(`code-server up on ${authority} (${elapsed()})`);

  context = await launchBrowser(tools, dirs, tmp);
  const page = await workbenchPage(context, { verbose, onCrash: () => void finish(1, 'the workbench page crashed') });

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

// ---- choosing a strategy ----
const UPDATE_HOST = 'update.code.visualstudio.com';

function withTimeout(promise, ms) {
  return Promise.race([promise, new Promise((_, rej) => setTimeout(() => rej(new Error(`no answer in ${ms} ms`)), ms).unref())]);
}

/** Can VS Code be downloaded? A DNS failure (fast on an offline machine) or no HTTPS answer means no. */
export async function vscodeDownloadable() {
  try {
    await withTimeout(lookup(UPDATE_HOST), 3000);
    const r = await fetch(`https://${UPDATE_HOST}/api/releases/stable`, { method: 'GET', signal: AbortSignal.timeout(5000) });
    return r.ok ? { ok: true } : { ok: false, why: `HTTP ${r.status} from ${UPDATE_HOST}` };
  } catch (e) {
    return { ok: false, why: `${UPDATE_HOST}: ${e.cause?.code ?? e.code ?? e.message}` };
  }
}

function hasXvfbRun() {
  return spawnSync('sh', ['-c', 'command -v xvfb-run'], { encoding: 'utf8' }).stdout.trim() !== '';
}

/** Returns { launcher: 'electron' | 'code-server', why }. */
export async function chooseLauncher(mode = process.env.REDLOCK_VSCODE || 'auto') {
  if (mode === 'electron' || mode === 'code-server') return { launcher: mode, why: `REDLOCK_VSCODE=${mode}` };
  if (mode !== 'auto') throw new Error(`REDLOCK_VSCODE must be electron, code-server or auto (got ${mode})`);
  const headlessLinux = process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY;
  if (headlessLinux && !hasXvfbRun()) return { launcher: 'code-server', why: 'no DISPLAY and no xvfb-run' };
  const d = await vscodeDownloadable();
  return d.ok ? { launcher: 'electron', why: `${UPDATE_HOST} reachable` } : { launcher: 'code-server', why: `VS Code cannot be downloaded (${d.why})` };
}

// ---- strategy: electron (online) ----
async function runElectron() {
  for (const [p, how] of [
    [join(repoRoot, 'dist', 'extension.js'), 'npm run build'],
    [extensionTestsPath, 'npx tsc -p tsconfig.test.json'],
  ]) {
    if (!existsSync(p)) {
      say(`${p} is missing: run \`${how}\` first`);
      return 1;
    }
  }
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    say('no DISPLAY: run under `xvfb-run -a`, or use --launcher=code-server (headless)');
  }
  // Loaded only here: the offline strategy never needs it.
  const { runTests } = await import('@vscode/test-electron');
  const tmp = mkdtempSync(join(tmpdir(), 'redlock-ext-test-'));
  const workspace = join(tmp, 'workspace');
  mkdirSync(workspace);
  try {
    return await runTests({
      version: process.env.REDLOCK_VSCODE_VERSION || 'stable',
      // Keep the ~150 MB download out of the repo, next to the offline tools.
      cachePath: join(toolsDir(), 'vscode-test'),
      extensionDevelopmentPath: repoRoot,
      extensionTestsPath,
      extensionTestsEnv: { REDLOCK_EXT_TEST: '1' },
      launchArgs: [workspace, '--disable-extensions', `--user-data-dir=${join(tmp, 'user-data')}`, `--extensions-dir=${join(tmp, 'extensions')}`],
    });
  } catch (e) {
    // TestRunFailedError: the suite failed (or VS Code crashed); anything else: download/launch trouble.
    say(e.message);
    return typeof e.code === 'number' && e.code !== 0 ? e.code : 1;
  } finally {
    rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
  }
}

// ---- entry ----
const launcherArg = process.argv.find((a) => a.startsWith('--launcher='))?.slice('--launcher='.length);
let choice;
try {
  choice = await chooseLauncher(launcherArg ?? process.env.REDLOCK_VSCODE ?? 'auto');
} catch (e) {
  say(e.message);
  process.exit(2);
}
say(`launcher: ${choice.launcher} (${choice.why})`);
const headlessLinux = process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY;
if (choice.launcher === 'electron' && headlessLinux && hasXvfbRun() && !process.env.REDLOCK_UNDER_XVFB) {
  // Desktop VS Code needs a display: the same script again, under a virtual one.
  const child = spawn('xvfb-run', ['-a', process.execPath, fileURLToPath(import.meta.url), '--launcher=electron'], { stdio: 'inherit', env: { ...process.env, REDLOCK_UNDER_XVFB: '1' } });
  child.on('error', (e) => {
    say(`xvfb-run: ${e.message}`);
    process.exit(1);
  });
  // The child handles Ctrl-C itself (it gets the terminal's SIGINT too); forward other signals.
  process.on('SIGINT', () => {});
  for (const sig of /** @type {NodeJS.Signals[]} */ (['SIGTERM', 'SIGHUP'])) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, sig) => process.exit(code ?? 128 + (constants.signals[sig] ?? 1)));
} else if (choice.launcher === 'electron') {
  process.exit(await runElectron());
} else {
  runCodeServer().catch((e) => finish(1, `failed: ${e.stack ?? e}`));
}
