// @ts-check
// First-run setup shared by `npm run demo`: dependencies, redis-server, the build.
// Only Node built-ins here: it runs before node_modules exists.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const say = (msg) => process.stderr.write(`[setup] ${msg}\n`);

function run(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], cwd: repoRoot, ...options });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
}

export const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).stdout.trim() !== '';

/** redis-server from Debian's packages when we may install it; otherwise one line saying how. */
export function ensureRedis() {
  if (has('redis-server')) return;
  if (process.getuid?.() === 0 && has('apt-get')) {
    say('installing redis-server with apt-get');
    run('apt-get', ['update', '-qq']);
    run('apt-get', ['install', '-y', '-qq', 'redis-server'], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    return;
  }
  throw new Error('redis-server is missing: install it with `sudo apt-get install -y redis-server` (or `brew install redis`)');
}

export function ensureSetup() {
  if (!existsSync(join(repoRoot, 'node_modules', '.bin', 'esbuild'))) {
    say('installing dependencies (npm ci)');
    run('npm', ['ci', '--no-audit', '--no-fund']);
  }
  ensureRedis();
  say('building');
  run('npm', ['run', '-s', 'build']);
}
