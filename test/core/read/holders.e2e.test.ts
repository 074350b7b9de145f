// Holders, waiters and deadlocks across real processes: each worker is a separate node
// process using the built core (dist/core), seen by the built CLI and by the core.
import assert from 'node:assert/strict';
import Redis from 'ioredis';
import { Redlock } from '../../../src/core';
import type { LockEntry, Snapshot } from '../../../src/core';
import { runCli } from '../../cli/runCli';
import { Exporter } from '../../../src/cli/exporterMetrics';
import { READ_WAITERS } from '../../../src/core/bookkeeping/waiters';
import { RedisServer, startNodes } from '../../../src/dev/redisServer';
import { waitFor } from '../../support/wait';
import { startWorker, stopWorker, Worker } from '../../support/holderProcess';

describe('holders, waiters and deadlocks (real processes)', function () {
  this.timeout(30_000);
  let servers: RedisServer[];
  let redlock: Redlock;
  let nodeArgs: string[];
  const workers: Worker[] = [];
  const worker = (plan: Record<string, unknown>): Worker => {
    const w = startWorker({ urls: servers.map((s) => s.url), ...plan });
    workers.push(w);
    return w;
  };

  before(async () => {
    servers = await startNodes(3);
    redlock = new Redlock(servers.map((s) => s.url));
    nodeArgs = servers.flatMap((s) => ['--node', s.url]);
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map(stopWorker));
  });
  after(async () => {
    await redlock.quit();
    await Promise.all(servers.map((s) => s.dispose()));
  });

  const lockOf = (snap: Snapshot, key: string): LockEntry | undefined => snap.locks.find((l) => l.key === key);

  it('status --json names the holder process and the waiting one', async () => {
    const holder = worker({ name: 'billing-worker', hold: 'lock:who' });
    await holder.said('held');
    const waiter = worker({ name: 'report-worker', waitFor: 'lock:who', retryCount: 10_000 });
    const entry = await waitFor(async () => {
      const r = await runCli(['status', '--json', '--pattern', 'lock:who', ...nodeArgs]);
      assert.equal(r.code, 0, r.stderr);
      const l = lockOf(JSON.parse(r.stdout) as Snapshot, 'lock:who');
      return l && l.waiters!.length > 0 ? l : undefined;
    }, 15_000, 'a waiter in status --json');
    assert.equal(entry.verdict, 'held');
    assert.equal(entry.holder!.name, 'billing-worker');
    assert.equal(entry.holder!.pid, holder.pid);
    assert.equal(typeof entry.holder!.host, 'string');
    assert.ok(entry.holder!.since! > Date.now() - 60_000 && entry.holder!.since! <= Date.now());
    for (const n of entry.nodes) assert.deepEqual(n.holder, entry.holder);
    assert.equal(entry.waiters!.length, 1);
    assert.equal(entry.waiters![0].name, 'report-worker');
    assert.equal(entry.waiters![0].pid, waiter.pid);
    assert.ok(!entry.flags.includes('deadlock'), 'waiters without a cycle are never a deadlock');
    assert.equal(entry.cycle, undefined);
    // Waiter sets are bookkeeping, never locks or skipped keys.
    const all = JSON.parse((await runCli(['status', '--json', '--pattern', '*', ...nodeArgs])).stdout) as Snapshot;
    assert.ok(![...all.locks, ...all.skipped].some((x) => x.key.startsWith('__rli:')));

    const human = await runCli(['status', '--pattern', 'lock:who', ...nodeArgs]);
    assert.match(human.stdout, new RegExp(`held 3/3 · [0-9.]+ s · billing-worker \\(pid ${holder.pid}\\) for [0-9]+ s · 1 waiting`));

    // Granted: the waiter is gone in the same round.
    holder.send('stop');
    await waiter.said('got');
    const after = lockOf(await redlock.inspect({ patterns: ['lock:who'] }), 'lock:who')!;
    assert.equal(after.holder!.name, 'report-worker');
    assert.deepEqual(after.waiters, []);
  });

  it('a waiter that gives up disappears', async () => {
    const holder = worker({ name: 'holder', hold: 'lock:giveup' });
    await holder.said('held');
    const waiter = worker({ name: 'impatient', waitFor: 'lock:giveup', retryCount: 15, retryDelayMs: 50 });
    await waitFor(async () => (lockOf(await redlock.inspect({ patterns: ['lock:giveup'] }), 'lock:giveup')?.waiters?.length ?? 0) > 0, 10_000, 'the waiter');
    await waiter.said('gaveup');
    const l = lockOf(await redlock.inspect({ patterns: ['lock:giveup'] }), 'lock:giveup')!;
    assert.deepEqual(l.waiters, []);
  });

  it('a killed waiter disappears by itself', async () => {
    const holder = worker({ name: 'holder', hold: 'lock:killed' });
    await holder.said('held');
    const waiter = worker({ name: 'doomed', waitFor: 'lock:killed', retryCount: 100_000, retryDelayMs: 100 });
    await waitFor(async () => (lockOf(await redlock.inspect({ patterns: ['lock:killed'] }), 'lock:killed')?.waiters?.length ?? 0) > 0, 10_000, 'the waiter');
    waiter.proc.kill('SIGKILL');
    await waiter.exited;
    await waitFor(async () => lockOf(await redlock.inspect({ patterns: ['lock:killed'] }), 'lock:killed')?.waiters?.length === 0, 10_000, 'the dead waiter to vanish');
  });

  it('two processes waiting for each other are a deadlock, flagged within one poll', async () => {
    const a = worker({ name: 'proc-a', hold: 'lock:dl:x', waitFor: 'lock:dl:y', waitForGo: true, retryCount: 100_000 });
    const b = worker({ name: 'proc-b', hold: 'lock:dl:y', waitFor: 'lock:dl:x', waitForGo: true, retryCount: 100_000 });
    await Promise.all([a.said('held'), b.said('held')]);
    a.send('go');
    b.send('go');
    // The first snapshot that sees both waits already names the cycle.
    const snap = await waitFor(async () => {
      const s = await redlock.inspect({ patterns: ['lock:dl:*'] });
      return s.locks.length === 2 && s.locks.every((l) => l.waiters!.length > 0) ? s : undefined;
    }, 10_000, 'both waits');
    for (const l of snap.locks) {
      assert.ok(l.flags.includes('deadlock'), `${l.key} flagged`);
      assert.deepEqual(l.cycle, ['lock:dl:x', 'lock:dl:y']);
    }
    const human = await runCli(['status', '--pattern', 'lock:dl:*', ...nodeArgs]);
    assert.match(human.stdout, /Deadlock: the holders of lock:dl:x and lock:dl:y each wait for a lock another of them holds\./);
    // The exporter counts the flag like every other one (a dashboard can alert on it).
    const exporter = new Exporter(redlock, { patterns: ['lock:dl:*'], intervalMs: 100 });
    try {
      exporter.start();
      const text = await waitFor(() => exporter.metrics(), 10_000, 'the exporter\'s first snapshot');
      assert.match(text, /^redlock_lock_flags\{flag="deadlock"\} 2$/m);
    } finally {
      await exporter.stop();
    }
  });

  it('a watch sees a waiter arrive and a killed one leave', async () => {
    const holder = worker({ name: 'holder', hold: 'lock:watched' });
    await holder.said('held');
    const seen: Array<LockEntry['waiters']> = [];
    const watcher = redlock.watch({ patterns: ['lock:watched'], intervalMs: 100 }, {
      snapshot: (s) => seen.push(lockOf(s, 'lock:watched')?.waiters),
      change: (c) => {
        for (const l of [...c.added, ...c.changed]) if (l.key === 'lock:watched') seen.push(l.waiters);
      },
    });
    try {
      await waitFor(() => seen.length > 0, 10_000, 'the first snapshot');
      const waiter = worker({ name: 'watched-waiter', waitFor: 'lock:watched', retryCount: 100_000 });
      await waitFor(() => seen.some((w) => w?.[0]?.pid === waiter.pid), 10_000, 'the waiter in a change');
      waiter.proc.kill('SIGKILL');
      await waiter.exited;
      await waitFor(() => seen[seen.length - 1]?.length === 0, 10_000, 'the dead waiter gone from a change');
    } finally {
      await watcher.stop();
    }
  });

  it('a watch on a *...* pattern sees waiters through that pattern alone', async () => {
    const holder = worker({ name: 'holder', hold: 'lock:starwatch' });
    await holder.said('held');
    let latest: LockEntry['waiters'];
    const watcher = redlock.watch({ patterns: ['*starwatch*'], intervalMs: 100 }, {
      snapshot: (s) => (latest = lockOf(s, 'lock:starwatch')?.waiters),
      change: (c) => {
        for (const l of [...c.added, ...c.changed]) if (l.key === 'lock:starwatch') latest = l.waiters;
      },
    });
    try {
      await waitFor(() => latest !== undefined, 10_000, 'the first snapshot');
      const waiter = worker({ name: 'star-waiter', waitFor: 'lock:starwatch', retryCount: 100_000 });
      await waitFor(() => latest?.[0]?.pid === waiter.pid, 10_000, 'the waiter in a change');
    } finally {
      await watcher.stop();
    }
  });

  it('a fenced acquire waits, is listed, and is unlisted once granted', async () => {
    const other = new Redlock(servers.map((s) => s.url), { holderName: 'fenced-waiter', retryDelayMs: 50 });
    try {
      const held = await redlock.acquire('lock:fencedwait', 30_000);
      const waiting = other.acquire('lock:fencedwait', 30_000, { retryCount: 1000, fencing: true });
      await waitFor(async () => lockOf(await redlock.inspect({ patterns: ['lock:fencedwait'] }), 'lock:fencedwait')?.waiters?.[0]?.name === 'fenced-waiter', 10_000, 'the fenced waiter');
      await redlock.release(held);
      const got = await waiting;
      assert.ok(typeof got.fence === 'number');
      await waitFor(async () => lockOf(await redlock.inspect({ patterns: ['lock:fencedwait'] }), 'lock:fencedwait')?.waiters?.length === 0, 10_000, 'the granted waiter unlisted');
      await other.release(got);
    } finally {
      await other.quit();
    }
  });

  it('anonymous identity hides host and pid', async () => {
    const w = worker({ name: 'quiet', hold: 'lock:anon', identity: 'anonymous' });
    await w.said('held');
    const l = lockOf(await redlock.inspect({ patterns: ['lock:anon'] }), 'lock:anon')!;
    assert.deepEqual({ ...l.holder, since: 0 }, { name: 'quiet', host: null, pid: null, since: 0, thread: null, library: 'redlock-inspector' });
  });

  it('garbage waiter entries and keys show as unreadable', async () => {
    const lock = await redlock.acquire('lock:junkwait', 30_000);
    const c = new Redis(servers[0].port, '127.0.0.1');
    try {
      await c.zadd('__rli:waiters:{lock:junkwait}', String(Date.now() + 3600_000), 'garbage,"\x1b[31m', String(Date.now() + 3600_000), 'x'.repeat(2000));
      await c.set('__rli:waiters:{lock:junkwait2}', 'not a zset');
      const lock2 = await redlock.acquire('lock:junkwait2', 30_000);
      const r = await runCli(['status', '--json', '--pattern', 'lock:junkwait*', ...nodeArgs]);
      assert.equal(r.code, 0, r.stderr);
      const snap = JSON.parse(r.stdout) as Snapshot;
      const w = lockOf(snap, 'lock:junkwait')!.waiters!;
      assert.equal(w.length, 2);
      assert.ok(w.every((x) => x.reason === 'unreadable' && x.name === null));
      assert.equal(lockOf(snap, 'lock:junkwait2')!.waiters![0].reason, 'unreadable');
      // An oversized set is read within its bound (64 live entries per node).
      const far = String(Date.now() + 3600_000);
      await c.zadd('__rli:waiters:{lock:junkwait}', ...Array.from({ length: 5000 }, (_, i) => [far, `junk-${i}`]).flat());
      const big = await redlock.inspect({ patterns: ['lock:junkwait'] });
      assert.equal(lockOf(big, 'lock:junkwait')!.waiters!.length, READ_WAITERS);
      await redlock.release(lock2);
    } finally {
      await c.del('__rli:waiters:{lock:junkwait}', '__rli:waiters:{lock:junkwait2}');
      c.disconnect();
      await redlock.release(lock);
    }
  });
});
