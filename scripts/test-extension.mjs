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
// How it works offline: docs/extension-host.md
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format } from 'node:util';
import { CHROMIUM, ensureTools } from './vscode-tools.mjs';
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

// Last resort if something exits the process synchronously: no code-server survives us.
killGroupsOnExit(() => [codeServer]);

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

finishOnSignals(finish);
// Started once the tools are there (their one-time install takes a few minutes of its own).
let overallTimer;

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

main().catch((e) => finish(1, `failed: ${e.stack ?? e}`));
