// @ts-check
// Offline tools for the extension-host tests: Node 24 and code-server (VS Code's
// server + web workbench) from the npm registry, Debian's Chromium from apt.
// They live in a cache folder OUTSIDE the repo (~800 MB):
//   ${REDLOCK_TOOLS_DIR:-$HOME/.cache/redlock-inspector-tools}
// `node scripts/vscode-tools.mjs` installs what is missing; a marker file with the
// versions makes a second call instant. See docs/extension-host.md.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const NODE_MAJOR = '24';
export const CODE_SERVER_VERSION = '4.139.1';
export const CHROMIUM = '/usr/bin/chromium';
const MARKER_FORMAT = 1;

export function toolsDir() {
  return resolve(process.env.REDLOCK_TOOLS_DIR || join(homedir(), '.cache', 'redlock-inspector-tools'));
}

const nodeDir = () => join(toolsDir(), 'node24');
const codeServerDir = () => join(toolsDir(), 'code-server');
const markerPath = () => join(toolsDir(), 'installed.json');

function log(msg) {
  process.stderr.write(`[vscode-tools] ${msg}\n`);
}

/** The Node 24 binary installed by `npm install node@24` (the `node` package pulls in node-<os>-<arch>). */
export function node24Bin() {
  const pkg = `node-${process.platform}-${process.arch}`;
  const candidates = [
    join(nodeDir(), 'node_modules', 'node', 'node_modules', pkg, 'bin', 'node'),
    join(nodeDir(), 'node_modules', pkg, 'bin', 'node'),
  ];
  return candidates.find((p) => existsSync(p)) ?? candidates[0];
}

/** code-server's entry script; run it with node24Bin() (its engines field says node 24). */
export function codeServerEntry() {
  return join(codeServerDir(), 'node_modules', 'code-server', 'out', 'node', 'entry.js');
}

/** The `code-server` launcher (a `#!/usr/bin/env node` script: put node24's dir first on PATH). */
export function codeServerBin() {
  return join(codeServerDir(), 'node_modules', '.bin', 'code-server');
}

/** An env with Node 24 first on PATH (what code-server and its extension host run with). */
export function envWithNode24(base = process.env) {
  return { ...base, PATH: `${dirname(node24Bin())}${delimiter}${base.PATH ?? ''}` };
}

function readMarker() {
  try {
    return JSON.parse(readFileSync(markerPath(), 'utf8'));
  } catch {
    return undefined;
  }
}

/** True when the marker matches the wanted versions and the binaries are still there. */
export function toolsReady() {
  const m = readMarker();
  return (
    !!m &&
    m.format === MARKER_FORMAT &&
    m.codeServer === CODE_SERVER_VERSION &&
    typeof m.node === 'string' &&
    m.node.startsWith(`v${NODE_MAJOR}.`) &&
    existsSync(node24Bin()) &&
    existsSync(codeServerEntry())
  );
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

function run(cmd, args, opts = {}) {
  log(`$ ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], ...opts });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}`);
}

let aptUpdated = false;
function aptInstall(pkgs) {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    run('apt-get', ['install', '-y', '--no-install-recommends', ...pkgs], { env });
  } catch (e) {
    if (aptUpdated) throw e;
    aptUpdated = true;
    run('apt-get', ['update'], { env });
    run('apt-get', ['install', '-y', '--no-install-recommends', ...pkgs], { env });
  }
}

/** Debian's Chromium for Playwright (never `npx playwright install`: it downloads). */
export function ensureChromium() {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  if (!isRoot()) {
    log(`${CHROMIUM} is missing: run \`sudo apt-get install -y chromium\``);
    return undefined;
  }
  aptInstall(['chromium']);
  return existsSync(CHROMIUM) ? CHROMIUM : undefined;
}

function krb5HeadersPresent() {
  return existsSync('/usr/include/gssapi/gssapi.h') || existsSync('/usr/include/gssapi.h');
}

// npm must not walk up into some parent project: give each tools folder its own package.json.
function initPrefix(dir) {
  mkdirSync(dir, { recursive: true });
  const pj = join(dir, 'package.json');
  if (!existsSync(pj)) writeFileSync(pj, JSON.stringify({ name: 'redlock-inspector-tools', private: true }, null, 2) + '\n');
}

function npmCli() {
  // The npm that runs this script (Node 20's); we run its CLI with Node 24 so that native
  // builds (node-gyp) and install scripts see Node 24 as process.execPath.
  const r = spawnSync('npm', ['root', '-g'], { encoding: 'utf8' });
  const cli = join((r.stdout || '').trim(), 'npm', 'bin', 'npm-cli.js');
  return existsSync(cli) ? cli : undefined;
}

// Serialize installs (two test runs starting at once) with an mkdir lock.
function withLock(fn) {
  mkdirSync(toolsDir(), { recursive: true });
  const lock = join(toolsDir(), '.install.lock');
  const deadline = Date.now() + 20 * 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      let holder;
      try {
        holder = Number(readFileSync(join(lock, 'pid'), 'utf8'));
      } catch {
        /* being created */
      }
      let alive = false;
      if (holder) {
        try {
          process.kill(holder, 0);
          alive = true;
        } catch {
          /* stale */
        }
      }
      const age = Date.now() - statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
      if ((holder && !alive) || (!holder && age > 60_000)) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`tools install lock held too long: ${lock}`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2000);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * Installs Node 24 and code-server into toolsDir() unless the marker says they are there.
 * Returns { node, codeServerEntry, codeServerBin, chromium }. Throws when something cannot be installed.
 */
export function ensureTools({ quiet = false } = {}) {
  const chromium = ensureChromium();
  if (toolsReady()) {
    return { node: node24Bin(), codeServerEntry: codeServerEntry(), codeServerBin: codeServerBin(), chromium };
  }
  return withLock(() => {
    if (toolsReady()) {
      return { node: node24Bin(), codeServerEntry: codeServerEntry(), codeServerBin: codeServerBin(), chromium };
    }
    const t0 = Date.now();
    if (!quiet) log(`installing Node ${NODE_MAJOR} and code-server@${CODE_SERVER_VERSION} into ${toolsDir()} (once, ~2 min, ~800 MB)`);
    // Run from `npm test`, we inherit the outer npm's npm_* variables: its user agent names
    // Node 20, and code-server's postinstall reads the Node version from it. Drop them all.
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
    const npmEnv = { ...clean, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };

    // 1. Node 24.
    if (!existsSync(node24Bin())) {
      initPrefix(nodeDir());
      run('npm', ['install', '--prefix', nodeDir(), '--no-save', `node@${NODE_MAJOR}`], { env: npmEnv });
    }
    const node = node24Bin();
    const nodeVersion = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout?.trim();
    if (!nodeVersion?.startsWith(`v${NODE_MAJOR}.`)) throw new Error(`${node} is not Node ${NODE_MAJOR} (${nodeVersion})`);

    // 2. code-server: its kerberos module needs gssapi headers.
    if (!existsSync(codeServerEntry())) {
      if (!krb5HeadersPresent()) {
        if (!isRoot()) throw new Error('code-server needs the gssapi headers: run `sudo apt-get install -y libkrb5-dev` first');
        aptInstall(['libkrb5-dev']);
      }
      initPrefix(codeServerDir());
      /** @type {NodeJS.ProcessEnv} */
      const env = envWithNode24(npmEnv);
      // Native modules build against Node 24's own headers when its package ships them
      // (a user ~/.npmrc `nodedir` would otherwise point node-gyp at another Node's headers).
      const nodeRoot = dirname(dirname(node));
      if (existsSync(join(nodeRoot, 'include', 'node', 'node.h'))) env.npm_config_nodedir = nodeRoot;
      const cli = npmCli();
      const [cmd, pre] = cli ? [node, [cli]] : ['npm', []];
      run(cmd, [...pre, 'install', '--prefix', codeServerDir(), '--no-save', `code-server@${CODE_SERVER_VERSION}`], { env });
    }
    if (!existsSync(codeServerEntry())) throw new Error(`code-server install did not produce ${codeServerEntry()}`);
    // (code-server writes a default config.yaml under XDG_CONFIG_HOME on any start: keep it out of ~.)
    const scratch = mkdtempSync(join(tmpdir(), 'redlock-tools-'));
    let v;
    try {
      const out = spawnSync(node, [codeServerEntry(), '--version'], { encoding: 'utf8', env: envWithNode24({ ...process.env, XDG_CONFIG_HOME: scratch, XDG_DATA_HOME: scratch }) }).stdout ?? '';
      v = out.split('\n').find((l) => l.startsWith(CODE_SERVER_VERSION));
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    if (!v) throw new Error(`code-server --version does not say ${CODE_SERVER_VERSION}`);

    writeFileSync(
      markerPath(),
      JSON.stringify({ format: MARKER_FORMAT, node: nodeVersion, codeServer: CODE_SERVER_VERSION, codeServerVersionLine: v, installedAt: new Date().toISOString(), seconds: Math.round((Date.now() - t0) / 1000) }, null, 2) + '\n',
    );
    if (!quiet) log(`tools ready in ${Math.round((Date.now() - t0) / 1000)} s`);
    return { node, codeServerEntry: codeServerEntry(), codeServerBin: codeServerBin(), chromium };
  });
}

// CLI: `node scripts/vscode-tools.mjs` installs what is missing and prints the paths.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const t = ensureTools();
    console.log(JSON.stringify({ toolsDir: toolsDir(), ...t, marker: readMarker() }, null, 2));
    if (!t.chromium) process.exitCode = 2;
  } catch (e) {
    log(`failed: ${e.message}`);
    process.exit(1);
  }
}
