// @ts-check
// The plumbing shared by the scripts that serve VS Code's workbench with code-server and
// (for the tests) look at it through headless Chromium: test-extension.mjs, test-ui.mjs
// and demo-main.mjs. One copy, so that a flag, an environment variable or a cleanup rule
// fixed for one of them holds for all. Installing the tools stays in vscode-tools.mjs.
// How it works offline: docs/extension-host.md
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { envWithNode24 } from './vscode-tools.mjs';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** How the scripts read their on/off environment variables (1, true or yes). */
export const envFlag = (name) => /^(1|true|yes)$/i.test(process.env[name] ?? '');

// ---- ports and folders ----

/** A loopback port that is free now: the OS picks it, we release it for code-server to bind. */
export function freePort() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (srv.address());
      srv.close(() => res(port));
    });
  });
}

/**
 * Creates the run's folders under root and returns them by name. Everything code-server
 * and the browser write lands there (XDG dirs included), never in the user's home.
 */
export function makeWorkbenchDirs(root) {
  return Object.fromEntries(
    ['xdg-config', 'xdg-data', 'xdg-cache', 'user-data', 'extensions', 'workspace', 'browser'].map((d) => {
      const p = join(root, d);
      mkdirSync(p, { recursive: true });
      return [d, p];
    }),
  );
}

/** User settings that keep an unattended workbench quiet and offline (no AI, updates, tips, git). */
export const QUIET_USER_SETTINGS = {
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

/** Writes the user (not workspace) settings.json in code-server's user-data dir. */
export function writeUserSettings(userDataDir, settings) {
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  writeFileSync(join(userDataDir, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
}

// ---- code-server ----

// Variables that would make the server's Node misbehave (NODE_OPTIONS) or make it believe it
// runs inside, or talk to, the VS Code this script may have been started from.
const HOST_VARS = ['NODE_OPTIONS', 'ELECTRON_RUN_AS_NODE', 'VSCODE_IPC_HOOK_CLI', 'VSCODE_PID', 'VSCODE_CWD', 'VSCODE_NLS_CONFIG'];

/**
 * code-server's environment: this process's, plus extra, Node 24 first on PATH, the run's
 * XDG dirs (dirs['xdg-config'], ['xdg-data'], ['xdg-cache']) and no marketplace. code-server forks the extension
 * host with it, so whatever is set here reaches the extension (and the tests).
 * scrubHostVars: false keeps HOST_VARS (the demo has always passed them through).
 */
export function codeServerEnv(dirs, extra = {}, { scrubHostVars = true } = {}) {
  const env = envWithNode24({
    ...process.env,
    ...extra,
    XDG_CONFIG_HOME: dirs['xdg-config'],
    XDG_DATA_HOME: dirs['xdg-data'],
    XDG_CACHE_HOME: dirs['xdg-cache'],
    // No marketplace (code-server defaults to open-vsx.org): no offline ENOTFOUND noise.
    EXTENSIONS_GALLERY: '{}',
  });
  if (scrubHostVars) for (const k of HOST_VARS) delete env[k];
  return env;
}

/** Where code-server keeps extensions and user data: the same for --install-extension and serving. */
export const dataDirArgs = (dirs) => ['--extensions-dir', dirs.extensions, '--user-data-dir', dirs['user-data']];

/**
 * node arguments that serve the workbench on authority (host:port, always loopback) without
 * auth, telemetry, update checks or the trust prompt. unattended adds what a run nobody watches
 * wants: no welcome page, no reopening of a previous folder, and an extension host that goes
 * 10 s after its browser (not 3 h). extra comes last so that it can override.
 */
export function serveArgs(tools, dirs, authority, { unattended = true, extra = [] } = {}) {
  return [
    tools.codeServerEntry,
    ...dataDirArgs(dirs),
    '--bind-addr', authority,
    '--auth', 'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    ...(unattended ? ['--disable-getting-started-override', '--reconnection-grace-time', '10', '--ignore-last-opened'] : []),
    ...extra,
  ];
}

/**
 * Starts code-server (Node 24) as the leader of its own process group, so that stopGroup()
 * reaches the extension host and every helper it forks. With logPath its output is kept
 * there (and echoed to stderr when verbose), else discarded. onExit(codeOrSignal) is called
 * when it exits, for whatever reason.
 * @param {{ node: string }} tools
 * @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, logPath?: string, verbose?: boolean, onExit?: (how: number | string) => void }} [options]
 */
export function spawnCodeServer(tools, args, { cwd, env, logPath, verbose = false, onExit } = {}) {
  const child = spawn(tools.node, args, { cwd, env, detached: true, stdio: logPath ? ['ignore', 'pipe', 'pipe'] : 'ignore' });
  if (logPath) {
    const log = createWriteStream(logPath);
    for (const s of [child.stdout, child.stderr]) {
      s.on('data', (b) => {
        log.write(b);
        if (verbose) process.stderr.write(b);
      });
    }
  }
  if (onExit) child.on('exit', (code, sig) => onExit(code ?? sig));
  return child;
}

/**
 * Polls url until it answers 2xx; throws (an Err) if child exits first or limitMs pass.
 * @param {string} url @param {import('node:child_process').ChildProcess} child @param {number} limitMs
 * @param {new (message: string) => Error} [Err]
 */
export async function waitForHealth(url, child, limitMs, Err = Error) {
  const until = Date.now() + limitMs;
  let last;
  while (Date.now() < until) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Err(`code-server exited early (${child.exitCode ?? child.signalCode})`);
    }
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (r.ok) return;
      last = `HTTP ${r.status}`;
    } catch (e) {
      last = e.cause?.code ?? e.message;
    }
    await sleep(150);
  }
  throw new Err(`code-server not healthy at ${url} within ${limitMs} ms (${last})`);
}

/** Prints the last `lines` lines of code-server's log (what a failure report needs). */
export function printLogTail(logPath, title, lines) {
  if (!logPath || !existsSync(logPath)) return;
  const text = readFileSync(logPath, 'utf8').trimEnd();
  if (text) process.stderr.write(`---- ${title} ----\n${text.split('\n').slice(-lines).join('\n')}\n----\n`);
}

// ---- process groups: what we start with detached: true, we stop as a whole ----

export function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function killGroup(pgid, sig) {
  try {
    process.kill(-pgid, sig);
  } catch {
    /* gone */
  }
}

/**
 * SIGTERM to child's process group (child was spawned detached: it leads the group), then
 * SIGKILL if anything of it is still there after graceMs: a graceful stop that cannot hang.
 */
export async function stopGroup(child, graceMs) {
  const pgid = child?.pid;
  if (!pgid || !groupAlive(pgid)) return;
  killGroup(pgid, 'SIGTERM');
  const until = Date.now() + graceMs;
  while (groupAlive(pgid) && Date.now() < until) await sleep(100);
  if (groupAlive(pgid)) killGroup(pgid, 'SIGKILL');
}

/**
 * Last resort if something exits the process synchronously (no await possible): SIGKILL the
 * groups of whatever children() returns at that moment, so none survives us.
 */
export function killGroupsOnExit(children) {
  process.on('exit', () => {
    for (const c of children()) if (c?.pid && groupAlive(c.pid)) killGroup(c.pid, 'SIGKILL');
  });
}

/**
 * Routes Ctrl-C, SIGTERM, SIGHUP and anything uncaught to finish(code, why), which cleans up
 * and exits: the usual 128+signal codes, 1 for a crash.
 * @param {(code: number, why?: string) => unknown} finish
 */
export function finishOnSignals(finish) {
  for (const [sig, code] of /** @type {Array<[NodeJS.Signals, number]>} */ ([['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]])) {
    process.on(sig, () => void finish(code, `${sig}: stopping`));
  }
  process.on('uncaughtException', (e) => void finish(1, `uncaught: ${e.stack ?? e}`));
  process.on('unhandledRejection', (e) => void finish(1, `unhandled rejection: ${/** @type {Error} */ (e)?.stack ?? e}`));
}

// ---- the browser ----

// Headless Chromium that stays off the network (beyond the loopback workbench) and keeps
// no crash reporter, sync or component updater running; --no-sandbox for containers.
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-crash-reporter', '--disable-breakpad'];

/**
 * Headless Chromium with a persistent profile in dirs.browser and HOME/XDG dirs of the run.
 * The script's own signal handlers stay in charge (handleSIG*: false): they close the browser
 * in order. options (viewport, colorScheme...) are added to Playwright's launch options.
 */
export async function launchBrowser(tools, dirs, home, options = {}) {
  const { chromium } = await import('playwright-core');
  return chromium.launchPersistentContext(dirs.browser, {
    executablePath: tools.chromium,
    headless: true,
    ...options,
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    env: { ...process.env, XDG_CONFIG_HOME: dirs['xdg-config'], XDG_CACHE_HOME: dirs['xdg-cache'], HOME: home },
    args: CHROMIUM_ARGS,
  });
}

/**
 * Closes the browser, waiting 5 s at most: Playwright SIGKILLs the browser's process group
 * itself if a graceful close hangs, and on process exit (its 'exit' handler).
 */
export async function closeBrowser(context) {
  if (context) await Promise.race([context.close().catch(() => {}), sleep(5000)]);
}

/** The workbench page: a crash ends the run; in verbose mode the page's console is echoed. */
export async function workbenchPage(context, { verbose, onCrash }) {
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('crash', onCrash);
  if (verbose) {
    page.on('console', (m) => process.stderr.write(`[browser ${m.type()}] ${m.text()}\n`));
    page.on('pageerror', (e) => process.stderr.write(`[browser pageerror] ${e.message}\n`));
  }
  return page;
}
