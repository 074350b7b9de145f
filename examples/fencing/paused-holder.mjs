// Kleppmann's figure with real processes: a lock holder paused past its lease writes
// late, and the storage refuses the write because its fence is older.
//
//   npm run build && node examples/fencing/paused-holder.mjs
//
// It starts 3 throwaway redis-server nodes (redis-server must be on PATH), or uses
// yours from REDLOCK_NODES (comma-separated URLs; it writes the keys `orders:42`,
// its fence counter and `example:storage`). The storage is the first node, written
// only through fencedWrite: "write only if this fence is not older than the last".
//
//   client 1 takes the lock with fence 33, then is paused (SIGSTOP) past its 2 s lease;
//   client 2 takes the lock with fence 34 and writes;
//   client 1 resumes, still believing it holds the lock, and writes: refused (33 < 34).
//
// Exit 0 when the storage refused the late write, 1 otherwise.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import Redis from 'ioredis';
import { fencedWrite, fenceKeyOf, readFenced, Redlock } from 'redlock-inspector/core';

const RESOURCE = 'orders:42';
const STORAGE = 'example:storage';
const LEASE_MS = 2000;
const self = fileURLToPath(import.meta.url);

/** Each client is its own process: one JSON line per event on stdout. */
async function client(name, urls) {
  const say = (event) => process.stdout.write(JSON.stringify({ client: name, ...event }) + '\n');
  const redlock = new Redlock(urls, { retryCount: 100, retryDelayMs: 100, retryJitterMs: 50 });
  const storage = new Redis(urls[0]);
  const lock = await redlock.acquire(RESOURCE, LEASE_MS, { fencing: true });
  say({ event: 'acquired', fence: lock.fence });
  if (name === 'client 1') {
    // The work that takes too long: here, waiting to be told to go on. The pause happens
    // while it waits, as a GC pause would hit a process anywhere.
    const input = createInterface({ input: process.stdin });
    await new Promise((resolve) => input.once('line', resolve));
    input.close();
  }
  const r = await fencedWrite(storage, STORAGE, lock.fence, `written by ${name} with fence ${lock.fence}`);
  say({ event: 'write', fence: lock.fence, written: r.written, lastFence: r.lastFence });
  await redlock.release(lock);
  await redlock.quit();
  storage.disconnect();
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function waitReady(url, deadline) {
  for (;;) {
    const probe = new Redis(url, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    probe.on('error', () => {});
    try {
      await probe.connect();
      await probe.ping();
      return;
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`redis-server at ${url} did not start: ${e.message}`);
      await new Promise((r) => setTimeout(r, 20));
    } finally {
      probe.disconnect();
    }
  }
}

/** Three throwaway nodes, no persistence, removed at exit. */
async function startNodes(children) {
  if (!spawnSync('sh', ['-c', 'command -v redis-server']).stdout.length) {
    throw new Error('redis-server not found: install it, or set REDLOCK_NODES to your nodes');
  }
  const dir = mkdtempSync(join(tmpdir(), 'fencing-example-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const urls = [];
  for (let i = 0; i < 3; i++) {
    const port = await freePort();
    const p = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--loglevel', 'warning'], { stdio: 'ignore' });
    p.unref();
    children.push(p);
    urls.push(`redis://127.0.0.1:${port}`);
  }
  const deadline = Date.now() + 10_000;
  await Promise.all(urls.map((u) => waitReady(u, deadline)));
  return urls;
}

function spawnClient(name, urls) {
  const child = spawn(process.execPath, [self, name, ...urls], { stdio: ['pipe', 'pipe', 'inherit'] });
  // Every event is kept: a client may print two lines in one chunk ("acquired", then
  // "write"), and the second must still be found by a later next().
  const seen = [];
  const checks = new Set();
  let ended = false;
  let exitCode = null;
  createInterface({ input: child.stdout }).on('line', (line) => {
    seen.push(JSON.parse(line));
    for (const check of checks) check();
  });
  // 'close', not 'exit': by then every line the client printed has been read.
  child.once('close', (code) => {
    ended = true;
    exitCode = code;
    for (const check of checks) check();
  });
  const next = (want) => new Promise((resolve, reject) => {
    const check = () => {
      const e = seen.find((x) => x.event === want);
      if (e || ended) checks.delete(check);
      if (e) resolve(e);
      else if (ended) reject(new Error(`${name} exited (${exitCode}) before "${want}"`));
    };
    checks.add(check);
    check();
  });
  return { child, next };
}

async function main() {
  const children = [];
  // Whatever happens, nothing this example started outlives it.
  const cleanup = () => {
    for (const c of children) {
      try {
        c.kill('SIGCONT');
        c.kill('SIGKILL');
      } catch { /* gone */ }
    }
  };
  process.once('exit', cleanup);
  for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => process.exit(130));

  const urls = process.env.REDLOCK_NODES ? process.env.REDLOCK_NODES.split(',').map((s) => s.trim()).filter(Boolean) : await startNodes(children);
  const setup = urls.map((u) => new Redis(u));
  // A fresh counter starts at 32 so the numbers match the figure; never lowered.
  await Promise.all(setup.map((c) => c.set(fenceKeyOf(RESOURCE), '32', 'NX')));
  await setup[0].del(STORAGE);

  const one = spawnClient('client 1', urls);
  children.push(one.child);
  const a = await one.next('acquired');
  one.child.kill('SIGSTOP');
  console.log(`client 1: acquired ${RESOURCE} with fence ${a.fence}, then paused (SIGSTOP) past its ${LEASE_MS} ms lease`);

  // Client 2 asks once the lease has run out everywhere: its first attempt wins. (Refused
  // attempts would only skip fence numbers, and the figure has 34 after 33.)
  const deadline = Date.now() + LEASE_MS + 5000;
  while ((await Promise.all(setup.map((c) => c.exists(RESOURCE)))).some((n) => n === 1)) {
    if (Date.now() > deadline) throw new Error(`${RESOURCE} still held after ${LEASE_MS} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const two = spawnClient('client 2', urls);
  children.push(two.child);
  const b = await two.next('acquired');
  console.log(`client 2: acquired ${RESOURCE} with fence ${b.fence} once client 1's lease ran out`);
  const bw = await two.next('write');
  console.log(`client 2: write with fence ${bw.fence}: ${bw.written ? 'accepted' : 'refused'}`);

  one.child.kill('SIGCONT');
  one.child.stdin.write('go\n');
  const aw = await one.next('write');
  console.log(`client 1: resumed, still believes it holds the lock; write with fence ${aw.fence}: ${aw.written ? 'ACCEPTED (unsafe)' : `refused (the storage has seen fence ${aw.lastFence})`}`);

  const stored = await readFenced(setup[0], STORAGE);
  console.log(`storage: "${stored?.value}" (fence ${stored?.fence})`);
  for (const c of setup) c.disconnect();
  const ok = b.fence > a.fence && bw.written && !aw.written && stored?.fence === b.fence;
  process.exitCode = ok ? 0 : 1;
}

if (process.argv[2]?.startsWith('client')) {
  client(process.argv[2], process.argv.slice(3)).catch((e) => {
    console.error(`${process.argv[2]}: ${e.message}`);
    process.exit(1);
  });
} else {
  main().catch((e) => {
    console.error(`paused-holder: ${e.message}`);
    process.exit(1);
  });
}
