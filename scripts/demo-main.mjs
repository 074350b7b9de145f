// @ts-check
// `npm run demo`, the newcomer's one command: sets up, starts 5 local redis-server nodes
// seeded with every lock state (dist/demo.js), opens VS Code with the extension on them
// (the desktop `code` when on PATH, else code-server in the browser) and prints the
// locks in this terminal. Ctrl-C stops everything it started.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ensureSetup, has, repoRoot } from './setup.mjs';
import { codeServerEnv, dataDirArgs, freePort, QUIET_USER_SETTINGS, serveArgs, spawnCodeServer, writeUserSettings } from './workbench.mjs';

const say = (msg) => process.stderr.write(`[demo] ${msg}\n`);
const children = [];
const tmp = mkdtempSync(join(tmpdir(), 'redlock-demo-'));
let stopping = false;

function stopAll(code) {
  if (stopping) return;
  stopping = true;
  for (const c of children.reverse()) {
    try {
      // Process groups: code-server and the demo leave no helpers behind.
      process.kill(-c.pid, 'SIGTERM');
    } catch {
      c.kill('SIGTERM');
    }
  }
  setTimeout(() => {
    rmSync(tmp, { recursive: true, force: true });
    process.exit(code);
  }, 1500);
}
process.on('SIGINT', () => {
  say('Ctrl-C: stopping VS Code, the watch and the demo nodes');
  stopAll(0);
});
process.on('SIGTERM', () => stopAll(0));

async function startNodes() {
  const demo = spawn(process.execPath, [join(repoRoot, 'dist', 'demo.js')], { cwd: repoRoot, detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(demo);
  const lines = createInterface({ input: demo.stdout });
  return new Promise((resolve, reject) => {
    demo.once('exit', (code) => reject(new Error(`the demo nodes exited (${code})`)));
    lines.on('line', (line) => {
      const m = /^REDLOCK_NODES=(.+)$/.exec(line);
      if (m) resolve(m[1].split(','));
      else process.stdout.write(`${line}\n`);
    });
  });
}

function workspaceFor(urls) {
  const ws = join(tmp, 'workspace');
  mkdirSync(join(ws, '.vscode'), { recursive: true });
  writeFileSync(join(ws, '.vscode', 'settings.json'), JSON.stringify({ 'redlock.nodes': urls, 'redlock.refreshIntervalMs': 1000 }, null, 2));
  return ws;
}

async function openCodeServer(ws) {
  const { ensureTools } = await import('./vscode-tools.mjs');
  say('preparing code-server (the first time installs it: ~2 min)');
  const tools = ensureTools();
  const vsix = join(tmp, 'redlock-inspector.vsix');
  const vsce = spawnSync('npx', ['vsce', 'package', '--no-dependencies', '--out', vsix], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
  if (vsce.status !== 0) throw new Error('packaging the extension failed');
  const xdg = join(tmp, 'xdg'); // one folder for all three XDG dirs: nothing in the user's home
  const dirs = { 'xdg-config': xdg, 'xdg-data': xdg, 'xdg-cache': xdg, extensions: join(tmp, 'extensions'), 'user-data': join(tmp, 'user-data') };
  // The demo has always passed NODE_OPTIONS and VSCODE_* through to code-server.
  const env = codeServerEnv(dirs, {}, { scrubHostVars: false });
  spawnSync(tools.node, [tools.codeServerEntry, ...dataDirArgs(dirs), '--install-extension', vsix], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  // The demo opens on the Redlock view in Dark Modern: no welcome page, no chat, no
  // port-forward toasts for the demo's own ports.
  writeUserSettings(dirs['user-data'], {
    ...QUIET_USER_SETTINGS,
    'workbench.colorTheme': 'Default Dark Modern',
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'remote.autoForwardPorts': false,
    'remote.portsAttributes': { '1-65535': { onAutoForward: 'ignore' } },
  });
  const port = await freePort();
  // The unattended flags matter for a person too: without a short reconnection grace,
  // every browser reload leaves the previous extension host polling the nodes for hours.
  children.push(spawnCodeServer(tools, serveArgs(tools, dirs, `127.0.0.1:${port}`, { unattended: true }), { env: { ...env, REDLOCK_REVEAL_VIEW: '1' } }));
  return `http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`;
}

async function main() {
  ensureSetup();
  const urls = await startNodes();
  const ws = workspaceFor(urls);
  let url;
  if (has('code') && !process.env.REDLOCK_DEMO_CODE_SERVER) {
    const code = spawn('code', ['--new-window', `--extensionDevelopmentPath=${repoRoot}`, ws], { detached: true, stdio: 'ignore' });
    code.unref();
    say('opened VS Code with the extension; the Redlock view is in the activity bar');
  } else {
    url = await openCodeServer(ws);
  }
  // The URL comes last, after the setup noise, so it does not scroll away before the
  // watch starts.
  if (url) say(`VS Code (code-server) with the extension: ${url}`);
  say('the same locks in this terminal (Ctrl-C stops everything):');
  const watch = spawn(process.execPath, [join(repoRoot, 'dist', 'cli.js'), 'watch', '--interval', '2000'], {
    env: { ...process.env, REDLOCK_NODES: urls.join(',') },
    detached: true,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  children.push(watch);
}

main().catch((e) => {
  say(e instanceof Error ? e.message : String(e));
  stopAll(1);
});
