// The demo states (src/dev/demoStates.ts) on 5 real nodes: each state is what its key
// name says, in a layout formats.ts recognises, the workers keep the living ones alive,
// and stop() lets the process exit.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type Redis from 'ioredis';
import { recognise, RawValue } from '../../src/core/vocabulary/formats';
import { holderOf } from '../../src/core/vocabulary/holderToken';
import { DemoStates, seedDemoStates } from '../../src/dev/demoStates';
import { RedisServer, startNodes } from '../../src/dev/redisServer';
import { waitFor } from '../support/wait';
import { Redlock } from '../../src/core';

interface Copy {
  type: string;
  pttl: number;
  raw: RawValue;
}

/** What the inspector would read: type, PTTL and the raw value, per node. */
async function copies(clients: Redis[], key: string): Promise<Copy[]> {
  return Promise.all(clients.map(async (c): Promise<Copy> => {
    const [type, pttl] = await Promise.all([c.type(key), c.pttl(key)]);
    let raw: RawValue = { type };
    if (type === 'string') raw = { type, value: (await c.getBuffer(key))! };
    if (type === 'hash') {
      const flat = await c.hgetallBuffer(key);
      raw = { type, entries: Object.entries(flat).map(([f, v]) => [Buffer.from(f), v]) };
    }
    if (type === 'zset') raw = { type, members: await c.zrangeBuffer(key, 0, -1) };
    return { type, pttl, raw };
  }));
}

const tokens = (cs: Copy[]): Array<string | null> => cs.map((c) => recognise(c.raw).token);

describe('demo states on 5 nodes', function () {
  let servers: RedisServer[];
  let clients: Redis[];
  let demo: DemoStates;

  before(async () => {
    servers = await startNodes(5);
    clients = servers.map((s) => s.client());
    demo = await seedDemoStates(servers);
  });
  after(async () => {
    await demo?.stop();
    clients?.forEach((c) => c.disconnect());
    await Promise.all((servers ?? []).map((s) => s.dispose()));
  });

  it('names every key so the default pattern *lock* matches it', () => {
    for (const key of Object.values(demo.keys)) assert.match(key, /lock/);
  });

  it('keeps a healthy lock held on all 5 nodes by redlock.using()', async () => {
    // using() may start work once a quorum granted: the last SETs land right after.
    const cs = await waitFor(async () => {
      const c = await copies(clients, demo.keys.healthy);
      return c.every((x) => x.type === 'string') && c;
    }, 2000, 'the healthy lock on all nodes');
    assert.equal(new Set(tokens(cs)).size, 1);
    assert.match(tokens(cs)[0]!, /^[0-9a-f]{32}\.[0-9a-z]+\.[A-Za-z0-9_-]+$/);
    // Named as a service names its workers, not after the node binary.
    assert.equal(holderOf(tokens(cs)[0], 'string')?.name, 'invoice-worker');
    for (const c of cs) assert.ok(c.pttl > 0 && c.pttl <= 10_000, `pttl ${c.pttl}`);
  });

  it('the healthy lock keeps one holder whose TTL is renewed, and records it (acquired, then extended)', async () => {
    const first = tokens(await copies(clients, demo.keys.healthy))[0];
    const reader = new Redlock(servers.map((s) => s.url));
    try {
      // using() extends at half the TTL: the history shows an extension of the same token.
      const events = await waitFor(async () => {
        const h = await reader.history(demo.keys.healthy);
        return h.events.some((e) => e.type === 'extended') && h.events;
      }, 10_000, 'an extension recorded');
      assert.deepEqual([...new Set(events.map((e) => e.token))], [first], 'one holder throughout');
      assert.deepEqual(events.map((e) => e.type).filter((t) => t !== 'extended'), ['acquired']);
      assert.equal(tokens(await copies(clients, demo.keys.healthy))[0], first);
    } finally {
      await reader.quit();
    }
  });

  it('seeds a split holder: token A on 2 nodes, token B on 2, one node without', async () => {
    const t = tokens(await copies(clients, demo.keys.split));
    assert.equal(t[0], t[1]);
    assert.equal(t[2], t[3]);
    assert.notEqual(t[0], t[2]);
    assert.ok(t[0] && t[2]);
    assert.equal(t[4], null);
  });

  it('seeds a partial leftover: one token on 2 of 5 nodes for a few minutes', async () => {
    const cs = await copies(clients, demo.keys.partial);
    const t = tokens(cs);
    assert.ok(t[0] && t[0] === t[1]);
    assert.deepEqual(t.slice(2), [null, null, null]);
    for (const c of cs.slice(0, 2)) assert.ok(c.pttl > 4 * 60_000 && c.pttl <= 5 * 60_000, `pttl ${c.pttl}`);
  });

  it('seeds a lock without TTL on 3 nodes', async () => {
    const cs = await copies(clients, demo.keys.noTtl);
    assert.equal(new Set(tokens(cs).slice(0, 3)).size, 1);
    assert.deepEqual(cs.map((c) => c.pttl), [-1, -1, -1, -2, -2]);
  });

  it('seeds TTL skew: the same token on 5 nodes, expiries seconds apart', async () => {
    const cs = await copies(clients, demo.keys.ttlSkew);
    assert.equal(new Set(tokens(cs)).size, 1);
    assert.ok(tokens(cs)[0]);
    const pttls = cs.map((c) => c.pttl);
    assert.ok(Math.max(...pttls) - Math.min(...pttls) > 1000, `pttls ${pttls.join(',')}`);
  });

  it('seeds a Redisson reentrant lock (hold count 2) on 3 nodes', async () => {
    const cs = await copies(clients, demo.keys.reentrant);
    assert.deepEqual(cs.map((c) => c.type), ['none', 'hash', 'hash', 'hash', 'none']);
    const held = cs.slice(1, 4).map((c) => recognise(c.raw));
    for (const r of held) {
      assert.equal(r.format, 'redisson-lock');
      assert.equal(r.holdCount, 2);
      assert.match(r.token!, /^[0-9a-f-]{36}:\d+$/);
      assert.equal(r.token, held[0].token);
    }
    for (const c of cs.slice(1, 4)) assert.ok(c.pttl > 0 && c.pttl <= 30_000);
  });

  it('seeds a Redisson read lock: mode=read and two readers on 3 nodes', async () => {
    const cs = await copies(clients, demo.keys.readWrite);
    assert.deepEqual(cs.map((c) => c.type), ['none', 'none', 'hash', 'hash', 'hash']);
    for (const c of cs.slice(2)) {
      const r = recognise(c.raw);
      assert.equal(r.format, 'redisson-rwlock');
      assert.equal(r.token!.split(',').length, 2);
      assert.equal(r.holdCount, 1);
      assert.ok(c.pttl > 0);
    }
    assert.equal(await clients[2].hget(demo.keys.readWrite, 'mode'), 'read');
  });

  it('seeds a redis-semaphore semaphore with 2 holders on every node', async () => {
    const cs = await copies(clients, demo.keys.semaphore);
    for (const c of cs) {
      const r = recognise(c.raw);
      assert.equal(r.format, 'semaphore');
      assert.equal(r.token!.split(',').length, 2);
      assert.ok(c.pttl > 0);
    }
    assert.equal(new Set(tokens(cs)).size, 1);
  });

  it('keeps a lock about to expire: short TTL, renewed before it goes', async () => {
    const before = await copies(clients, demo.keys.expiring);
    assert.equal(new Set(tokens(before)).size, 1);
    for (const c of before) assert.ok(c.pttl > 0 && c.pttl <= 2500, `pttl ${c.pttl}`);
    // Renewed, not left to vanish: the PTTL jumps back up while the key stays.
    let last = before[0].pttl;
    await waitFor(async () => {
      const now = await clients[0].pttl(demo.keys.expiring);
      const renewed = now > last;
      last = now;
      return renewed;
    }, 3000, 'a renewal');
    assert.equal(tokens(await copies(clients, demo.keys.expiring))[0], tokens(before)[0]);
  });

  it('seeds keys that match the pattern but are no locks', async () => {
    const reasons = async (key: string): Promise<Array<string | null>> => (await copies(clients, key)).map((c) => recognise(c.raw).reason);
    assert.deepEqual(await reasons(demo.keys.list), Array(5).fill('wrong-type'));
    assert.deepEqual(await reasons(demo.keys.settings), Array(5).fill('unrecognised-hash'));
    assert.deepEqual(await reasons(demo.keys.blob), Array(5).fill('too-large'));
    assert.equal(await clients[0].strlen(demo.keys.blob), 1024);
  });

  it('renews the watchdog states but never brings back a deleted copy', async function () {
    this.timeout(20_000);
    const k = demo.keys;
    // Shortened, but long enough to outlive one watchdog period (10 s).
    await clients[1].pexpire(k.reentrant, 15_000);
    await clients[2].pexpire(k.readWrite, 15_000);
    await clients[0].pexpire(k.semaphore, 15_000);
    await clients[4].pexpire(k.ttlSkew, 15_000);
    await clients[3].del(k.reentrant); // as a force-release would
    // One watchdog pass renews the keys one after another: wait for the whole pass.
    await waitFor(async () => (await clients[1].pttl(k.reentrant)) > 20_000
      && (await clients[2].pttl(k.readWrite)) > 20_000
      && (await clients[0].pttl(k.semaphore)) > 20_000
      && (await clients[4].pttl(k.ttlSkew)) > 4 * 60_000, 12_000, 'the watchdog');
    assert.equal(await clients[3].exists(k.reentrant), 0);
  });

  it('stop() releases the healthy lock and ends the renewals', async () => {
    await demo.stop();
    await demo.stop(); // idempotent
    for (const c of clients) assert.equal(await c.exists(demo.keys.healthy), 0);
    // Nothing renews the short-TTL lock any more: it expires.
    await waitFor(async () => {
      const n = await Promise.all(clients.map((c) => c.exists(demo.keys.expiring)));
      return n.every((x) => x === 0);
    }, 4000, 'the expiring lock to go');
  });

  it('lets a process that seeded and stopped exit on its own', async function () {
    this.timeout(20_000);
    // A child seeds by URL (another input form) under its own prefix, stops, and must
    // then exit with no timer or connection left open.
    const script = `
      const { seedDemoStates } = require(${JSON.stringify(join(__dirname, '..', '..', 'src', 'dev', 'demoStates.js'))});
      (async () => {
        const d = await seedDemoStates(JSON.parse(process.argv[1]), { prefix: 'child:' });
        await new Promise((r) => setTimeout(r, 2500));
        await d.stop();
        console.log('stopped');
      })().catch((e) => { console.error(e); process.exit(2); });`;
    const child = spawn(process.execPath, ['-e', script, JSON.stringify(servers.map((s) => s.url))], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += String(d)));
    child.stderr.on('data', (d) => (out += String(d)));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.once('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    assert.equal(code, 0, `child did not exit on its own: ${out}`);
    assert.match(out, /stopped/);
    for (const c of clients) {
      assert.equal(await c.exists('child:lock:healthy:invoices'), 0);
      assert.equal(await c.exists('child:lock:ttl-skew:cache-rebuild'), 1); // stop() keeps the data
    }
  });
});
