// One read engine: for the same keys at the same instant, the watcher's snapshot (what the
// tree, `watch`, the exporter and observed history see) is inspect()'s document (what
// `status` and the MCP tools see). Every state the fixtures seed, on real nodes; times
// (PTTLs, validities, latencies) are compared by kind, not by value.
import assert from 'node:assert/strict';
import Redis from 'ioredis';
import { Redlock, type Snapshot } from '../../../src/core';
import { useNodes } from '../../support/nodesFixture';
import { useCluster } from '../../support/clusterFixture';
import { waitFor } from '../../support/wait';
import { startWorker, stopWorker, type Worker } from '../../support/holderProcess';
import { readContextOf, type Classified } from '../../../src/core/read/context';
import { scanNode } from '../../../src/core/read/inspect';
import { classifyAndEnrich, readRelated } from '../../../src/core/read/pipeline';
import { snapshotWaiters } from '../../../src/core/read/snapshot';
import { judgeHolders } from '../../../src/core/read/livenessRead';

const UUID = '0f6c2a58-3c1e-4b57-9d7a-5a0d8e1c9b21';
const OTHER = '7d1e9f02-1111-4a2b-8c3d-222222222222';

/**
 * A document with its instants replaced by what they say: none, no expiry, or some time.
 * Liveness keeps its verdict and which signals it weighed: only a watcher sees a renewal
 * pulse, so the renewal's words differ by design (docs/liveness.md).
 */
function normalized(s: Snapshot): unknown {
  return JSON.parse(JSON.stringify(s), (k, v: unknown) => {
    if (k === 'latencyMs') return 'latency';
    if (k === 'liveness' && v !== null && typeof v === 'object') {
      const l = v as { verdict: string; evidence: Array<{ kind: string }> };
      return { verdict: l.verdict, evidence: l.evidence.map((e) => e.kind) };
    }
    if ((k === 'pttlMs' || k === 'validityMs') && typeof v === 'number') return v === -1 ? -1 : v > 0 ? 'time' : v;
    return v;
  });
}

/** `v` and everything it holds frozen: a write into any of it throws (strict mode). */
function deepFreeze<T>(v: T): T {
  if (v === null || typeof v !== 'object' || Object.isFrozen(v)) return v;
  Object.freeze(v);
  for (const x of Object.values(v as object)) deepFreeze(x);
  return v;
}

/** The watcher's snapshot once a tick started after this call is done. */
async function watched(rl: Redlock, patterns?: string[]): Promise<{ first: Snapshot; now: () => Promise<Snapshot>; stop: () => Promise<void> }> {
  let first: Snapshot | undefined;
  const errors: unknown[] = [];
  const w = rl.watch({ intervalMs: 60_000, patterns }, { snapshot: (s) => (first ??= s), error: (e) => errors.push(e) });
  const s = await waitFor(() => first ?? (errors.length ? Promise.reject(errors[0]) : undefined), 10_000, 'the first snapshot');
  return {
    first: s,
    now: async () => {
      await w.refresh();
      if (errors.length) throw errors[0];
      return w.snapshot()!;
    },
    stop: () => w.stop(),
  };
}

describe('read pipeline: the watcher and inspect() give one document', function () {
  this.timeout(40_000);
  const fx = useNodes(3, { commandTimeoutMs: 500, readTimeoutMs: 1000 });
  let c: Redis[];
  const workers: Worker[] = [];
  beforeEach(() => {
    c = fx.servers.map((s) => new Redis(s.url));
  });
  afterEach(async () => {
    c.forEach((x) => x.disconnect());
    await Promise.all(workers.splice(0).map(stopWorker));
  });

  /** Seeds every state; the two workers waiting for each other's lock are stopped by the returned call. */
  async function seedEveryState(): Promise<() => Promise<void>> {
    // split, partial, no TTL, TTL skew
    await c[0].set('lock:split', 'token-a', 'PX', 60_000);
    await c[1].set('lock:split', 'token-a', 'PX', 60_000);
    await c[2].set('lock:split', 'token-b', 'PX', 60_000);
    await c[0].set('lock:partial', 'token-p', 'PX', 60_000);
    for (const x of c) await x.set('lock:forever', 'token-f');
    await c[0].set('lock:skew', 'token-s', 'PX', 60_000);
    await c[1].set('lock:skew', 'token-s', 'PX', 90_000);
    await c[2].set('lock:skew', 'token-s', 'PX', 90_000);
    // A fenced lock of ours.
    await fx.rl.acquire('lock:fenced', 60_000, { fencing: true });
    // A Redisson fair lock with a waiter and a fence counter, on every node.
    for (const x of c) {
      await x.hset('myLock', `${UUID}:53`, '1');
      await x.pexpire('myLock', 60_000);
      await x.rpush('redisson_lock_queue:{myLock}', `${OTHER}:7`);
      await x.zadd('redisson_lock_timeout:{myLock}', Date.now() + 60_000, `${OTHER}:7`);
      await x.set('redisson_lock_token:{myLock}', '12');
      // The counter of a lock that is gone.
      await x.set('redisson_lock_token:{jobs}', '3');
    }
    // Our waiters, in a cycle: two processes each holding one lock and waiting for the other's.
    const urls = fx.servers.map((s) => s.url);
    const a = startWorker({ urls, name: 'proc-a', hold: 'lock:cycle-a', waitFor: 'lock:cycle-b', waitForGo: true, retryCount: 100_000, ttlMs: 60_000 });
    const b = startWorker({ urls, name: 'proc-b', hold: 'lock:cycle-b', waitFor: 'lock:cycle-a', waitForGo: true, retryCount: 100_000, ttlMs: 60_000 });
    workers.push(a, b);
    await Promise.all([a.said('held'), b.said('held')]);
    a.send('go');
    b.send('go');
    await waitFor(async () => (await fx.rl.inspect()).locks.filter((l) => l.flags.includes('deadlock')).length === 2, 10_000, 'the deadlock');
    return async () => {
      await Promise.all(workers.splice(0).map(stopWorker));
    };
  }

  it('every seeded state: after the first tick and after changes', async () => {
    const stop = await seedEveryState();
    const w = await watched(fx.rl);
    try {
      const inspected = await fx.rl.inspect();
      // The seeds are what the test means: not an empty document equal to another.
      const myLock = inspected.locks.find((l) => l.key === 'myLock');
      assert.equal(myLock?.fence, 12);
      assert.equal(myLock?.waiters?.length, 1);
      assert.deepEqual(inspected.skipped, [{ key: 'redisson_lock_token:{jobs}', reason: 'orphaned', of: 'jobs' }]);
      assert.ok(inspected.locks.find((l) => l.key === 'lock:fenced')!.fence! > 0);
      assert.deepEqual(inspected.locks.map((l) => l.verdict).sort(), ['held', 'held', 'held', 'held', 'held', 'held', 'partial', 'split']);
      // Liveness on held locks only: ours connected and running, Redisson's without a named connection.
      const liveness = Object.fromEntries(inspected.locks.map((l) => [l.key, l.liveness?.verdict ?? null]));
      assert.equal(liveness['lock:fenced'], 'alive');
      assert.equal(liveness['lock:cycle-a'], 'alive');
      assert.equal(liveness.myLock, 'unknown');
      assert.equal(liveness['lock:split'], null);
      assert.deepEqual(normalized(w.first), normalized(inspected));

      // Changes: a second fair waiter, a counter raised, a lock released, an orphan adopted.
      for (const x of c) {
        await x.zadd('redisson_lock_timeout:{myLock}', Date.now() + 90_000, `${OTHER}:8`);
        await x.set('redisson_lock_token:{myLock}', '13');
        await x.hset('jobs', `${UUID}:1`, '1');
        await x.pexpire('jobs', 60_000);
      }
      await c[0].del('lock:partial');
      // The cycle ends: its waiters leave, its holders' keys stay until their TTL.
      await stop();
      const after = await fx.rl.inspect();
      assert.equal(after.locks.find((l) => l.key === 'myLock')?.waiters?.length, 2);
      assert.deepEqual(normalized(await w.now()), normalized(await fx.rl.inspect()));
    } finally {
      await w.stop();
    }
  });

  it('entries are values: each stage gives new entries and never writes into those it was handed', async () => {
    const stop = await seedEveryState();
    try {
      const ctx = readContextOf(fx.rl.reader.nodes, fx.rl.reader.nodeSet.driftFactor, 1000);
      const scans = await Promise.all(ctx.nodes.map((n) => scanNode(ctx, n, ['*'], ['0'], 10_000, performance.now() + 5000)));
      const ids = new Set<string>();
      for (const s of scans) s.reads.forEach((_, id) => void ids.add(id));
      await readRelated(ctx, scans, ids);
      const nowMs = Date.now();
      const waiters = snapshotWaiters(ctx, scans);
      const handed: Classified[] = [];
      // Every stage after classify is handed a frozen classification: the waiters (and
      // wait cycles), the bookkeeping after them, and liveness last.
      const out = await classifyAndEnrich(ctx, scans, ids, nowMs, 2000, async (c) => {
        handed.push(deepFreeze(c));
        return deepFreeze(await waiters(c));
      }, {
        judge: async (c) => {
          handed.push(deepFreeze(c));
          return { ...c, locks: await judgeHolders(ctx, scans, c.locks, nowMs) };
        },
      });
      assert.equal(handed.length, 2);
      const byKey = new Map(out.locks.map((l) => [l.key, l]));
      // What each stage learned is in the new entries.
      assert.equal(byKey.get('myLock')?.fence, 12);
      assert.equal(byKey.get('myLock')?.waiters?.length, 1);
      assert.ok(byKey.get('lock:cycle-a')?.flags.includes('deadlock'));
      assert.deepEqual(byKey.get('lock:cycle-b')?.cycle?.slice().sort(), ['lock:cycle-a', 'lock:cycle-b']);
      assert.equal(byKey.get('lock:fenced')?.liveness?.verdict, 'alive');
      // ...and not in the entries those stages were handed.
      const before = new Map(handed[0].locks.map((l) => [l.key, l]));
      assert.equal(before.get('lock:cycle-a')?.waiters?.length, 0);
      assert.equal(before.get('lock:fenced')?.liveness, undefined);
    } finally {
      await stop();
    }
  });

  it("a Redisson lock's bookkeeping is read by its name when the patterns do not cover it", async () => {
    for (const x of c) {
      await x.hset('orders:7', `${UUID}:53`, '1');
      await x.pexpire('orders:7', 60_000);
      await x.zadd('redisson_lock_timeout:{orders:7}', Date.now() + 60_000, `${OTHER}:7`);
      await x.rpush('redisson_lock_queue:{orders:7}', `${OTHER}:7`);
      await x.set('redisson_lock_token:{orders:7}', '5');
    }
    const inspected = await fx.rl.inspect({ patterns: ['orders:*'] });
    assert.deepEqual(inspected.locks.map((l) => [l.key, l.fence, l.waiters?.length]), [['orders:7', 5, 1]]);
    const w = await watched(fx.rl, ['orders:*']);
    try {
      assert.deepEqual(normalized(w.first), normalized(inspected));
      // A waiter arriving outside the patterns is seen by the watch too.
      for (const x of c) await x.zadd('redisson_lock_timeout:{orders:7}', Date.now() + 90_000, `${OTHER}:9`);
      const now = await w.now();
      assert.equal(now.locks[0].waiters?.length, 2);
      assert.deepEqual(normalized(now), normalized(await fx.rl.inspect({ patterns: ['orders:*'] })));
    } finally {
      await w.stop();
    }
  });
  it('under the default patterns, our own locks are listed through their event logs, by the watcher too', async () => {
    const recorder = new Redlock(fx.servers.map((s) => s.url), { events: true });
    try {
      const held = await recorder.acquire('orders:42', 60_000);
      await held.settled;
      const inspected = await fx.rl.inspect();
      assert.deepEqual(inspected.locks.map((l) => l.key), ['orders:42']);
      // A user's own pattern is theirs: nothing is added to it.
      assert.deepEqual((await fx.rl.inspect({ patterns: ['lock:*'] })).locks, []);
      const w = await watched(fx.rl);
      try {
        assert.deepEqual(normalized(w.first), normalized(inspected));
        // Taken after the watch began, released after: the watch follows both.
        const more = await recorder.acquire('jobs:7', 60_000);
        await more.settled;
        await recorder.release(held);
        const now = await w.now();
        assert.deepEqual(now.locks.map((l) => l.key), ['jobs:7']);
        assert.deepEqual(normalized(now), normalized(await fx.rl.inspect()));
      } finally {
        await w.stop();
      }
    } finally {
      await recorder.quit();
    }
  });
});

describe('read pipeline on a cluster: the watcher and inspect() give one document', function () {
  const cl = useCluster();

  it('locks, a fenced lock and a Redisson lock with its bookkeeping across three masters', async () => {
    const rl = new Redlock([cl.url], { commandTimeoutMs: 500, readTimeoutMs: 1000 });
    const c = new Redis.Cluster(cl.masters.map((m) => ({ host: '127.0.0.1', port: m.port })));
    try {
      for (let i = 0; i < 12; i++) await c.set(`lock:c${i}`, `token-${i}`, 'PX', 60_000);
      await c.set('lock:forever', 'token-f');
      await rl.acquire('lock:fenced', 60_000, { fencing: true });
      await c.hset('myLock', `${UUID}:53`, '1');
      await c.pexpire('myLock', 60_000);
      await c.zadd('redisson_lock_timeout:{myLock}', Date.now() + 60_000, `${OTHER}:7`);
      await c.set('redisson_lock_token:{myLock}', '12');
      const inspected = await rl.inspect();
      assert.equal(inspected.locks.length, 15);
      const w = await watched(rl);
      try {
        assert.deepEqual(normalized(w.first), normalized(inspected));
        await c.del('lock:c3');
        await c.set('lock:c99', 'token-99', 'PX', 60_000);
        assert.deepEqual(normalized(await w.now()), normalized(await rl.inspect()));
      } finally {
        await w.stop();
      }
    } finally {
      await rl.quit();
      c.disconnect();
      await Promise.all(cl.masters.map(async (m) => { const x = m.client(); await x.flushall(); x.disconnect(); }));
    }
  });
});
