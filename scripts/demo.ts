// `npm run demo:nodes`: 5 local redis-server nodes with realistic lock states
// (src/dev/demoStates.ts), kept alive until Ctrl-C or SIGTERM.
// For a parent process (CI, extension tests): human text goes to stdout, then one line
// `REDLOCK_NODES=redis://...,...` once everything is seeded (parse /^REDLOCK_NODES=(.*)$/m);
// errors go to stderr. SIGINT, SIGTERM and SIGHUP stop the workers and every node, exit 0.
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { DEMO_STORIES, DemoState, DemoStates, seedDemoStates } from '../src/dev/demoStates';
import { RedisServer, redisServerBinary, stopAll } from '../src/dev/redisServer';
import { DEFAULT_PATTERNS } from '../src/core/vocabulary';

const FIRST_PORT = 7101;
const NODES = 5;
const INSTALL_HINT = 'redis-server not found: install it with `sudo apt-get install -y redis-server`';

function haveRedisServer(): boolean {
  try {
    redisServerBinary();
    return true;
  } catch {
    return false;
  }
}

/** The newcomer command installs what it can: as root, apt-get installs redis-server. */
function ensureRedisServer(): boolean {
  if (haveRedisServer()) return true;
  const hasApt = (spawnSync('sh', ['-c', 'command -v apt-get'], { encoding: 'utf8' }).stdout ?? '').trim() !== '';
  if (process.getuid?.() === 0 && hasApt) {
    console.error('redis-server not found: installing it with apt-get (running as root)');
    // apt's output goes to stderr: stdout stays parseable for a parent process.
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    spawnSync('apt-get', ['update'], { stdio: ['ignore', 2, 2], env });
    spawnSync('apt-get', ['install', '-y', 'redis-server'], { stdio: ['ignore', 2, 2], env });
    if (haveRedisServer()) return true;
  }
  console.error(INSTALL_HINT);
  return false;
}

/**
 * Checked before spawning: on a busy port the readiness probe could reach someone else's
 * redis-server and the demo would seed into it.
 */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * The demo's nodes persist every grant (AOF, appendfsync always, in the node's temp dir),
 * as a safe deployment does: a fresh node then has no restart risk, and the doctor raises
 * only the alarms the seeded states are meant to raise.
 */
const SAFE_PERSISTENCE = ['--appendonly', 'yes', '--appendfsync', 'always'];

/** Fixed ports read well in a demo; a busy one falls back to a free port. */
async function startNode(port: number): Promise<RedisServer> {
  if (await portFree(port)) {
    try {
      return await RedisServer.start({ port, args: SAFE_PERSISTENCE });
    } catch {
      /* lost a race for the port: take any free one */
    }
  }
  return RedisServer.start({ args: SAFE_PERSISTENCE });
}

function print(servers: RedisServer[], keys: Record<DemoState, string>): void {
  const urls = servers.map((s) => s.url).join(',');
  const width = Math.max(...Object.values(keys).map((k) => k.length));
  const lines = [
    `Redlock Inspector demo: ${servers.length} redis-server nodes on loopback`,
    ...servers.map((s, i) => `  node ${i + 1}  ${s.url}`),
    '',
    `Seeded states (the default patterns ${DEFAULT_PATTERNS.join(' ')} match every key):`,
    ...(Object.keys(keys) as DemoState[]).map((name) => `  ${keys[name].padEnd(width)}  ${DEMO_STORIES[name].expect}`),
    '',
    'Try it in another terminal:',
    `  export REDLOCK_NODES=${urls}`,
    '  node dist/cli.js status',
    '  node dist/cli.js watch',
    '',
    'Ctrl-C stops the workers and the nodes.',
    `REDLOCK_NODES=${urls}`,
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

async function main(): Promise<void> {
  // This script owns the process: replace the harness's exit-at-once signal handlers
  // with an orderly stop (workers release their locks, then the nodes go). Its 'exit'
  // handler stays as the last resort that kills any node still running.
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.removeAllListeners(sig);
  let demo: DemoStates | undefined;
  let stopping = false;
  const shutdown = async (sig: string): Promise<void> => {
    if (stopping) process.exit(130); // a second Ctrl-C: do not wait
    stopping = true;
    // The launcher stops us with SIGTERM after the user's Ctrl-C: no signal name, which
    // read as if something had killed the demo.
    console.error(sig === 'SIGHUP' ? 'terminal closed: stopping the demo workers and nodes' : 'stopping the demo workers and nodes');
    const grace = new Promise<void>((r) => setTimeout(r, 3000).unref());
    await Promise.race([demo?.stop().catch(() => undefined), grace]);
    await stopAll();
    process.exit(0);
  };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, () => void shutdown(sig));

  if (!ensureRedisServer()) process.exit(1);
  let servers: RedisServer[];
  try {
    servers = await Promise.all(Array.from({ length: NODES }, (_, i) => startNode(FIRST_PORT + i)));
    // REDLOCK_DEMO_KEY_PREFIX: long, real-looking key names (the UI test's narrow sidebar).
    demo = await seedDemoStates(servers, { log: (m) => console.error(m), prefix: process.env.REDLOCK_DEMO_KEY_PREFIX ?? '' });
  } catch (e) {
    console.error(`demo failed to start: ${(e as Error).message}`);
    await demo?.stop();
    await stopAll();
    process.exit(1);
  }
  if (stopping) return; // a signal came during startup: shutdown() is on it
  print(servers, demo.keys);
  // The nodes' child processes and the workers' timers keep the process running.
}

void main();
