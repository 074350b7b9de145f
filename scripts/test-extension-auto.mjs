// Runs the extension-host test suite with the launcher that can work here:
//   REDLOCK_VSCODE=electron     desktop VS Code via @vscode/test-electron (downloads VS Code)
//   REDLOCK_VSCODE=code-server  offline: code-server + headless Chromium (scripts/test-extension.mjs)
//   REDLOCK_VSCODE=auto         (default) electron when VS Code's update server answers
//                               quickly, code-server otherwise; also code-server on a
//                               Linux without DISPLAY and without xvfb-run.
// Builds nothing: `npm run build && npx tsc -p tsconfig.test.json` first.
import { spawn, spawnSync } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const UPDATE_HOST = 'update.code.visualstudio.com';
const say = (msg) => process.stderr.write(`[test-extension] ${msg}\n`);

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

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  let choice;
  try {
    choice = await chooseLauncher();
  } catch (e) {
    say(e.message);
    process.exit(2);
  }
  say(`launcher: ${choice.launcher} (${choice.why})`);
  let cmd = process.execPath;
  let args = [join(here, choice.launcher === 'electron' ? 'test-extension-electron.mjs' : 'test-extension.mjs'), ...process.argv.slice(2)];
  const headlessLinux = process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY;
  if (choice.launcher === 'electron' && headlessLinux && hasXvfbRun()) [cmd, args] = ['xvfb-run', ['-a', cmd, ...args]];
  const child = spawn(cmd, args, { stdio: 'inherit' });
  child.on('error', (e) => {
    say(`${cmd}: ${e.message}`);
    process.exit(1);
  });
  // The child handles Ctrl-C itself (it gets the terminal's SIGINT too); forward other signals.
  process.on('SIGINT', () => {});
  for (const sig of ['SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, sig) => process.exit(code ?? 128 + (constants.signals[sig] ?? 1)));
}
