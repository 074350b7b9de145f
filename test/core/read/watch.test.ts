import assert from 'node:assert/strict';
import { Redlock, Snapshot, WatchChange, type NodeFacts, type WatchStatus } from '../../../src/core';
import { useNodes } from '../../support/nodesFixture';
import { RedisServer, withClient } from '../../../src/dev/redisServer';
import { waitFor } from '../../support/wait';
import { commandCalls } from '../../support/commandCounts';
import type { KeyTable } from '../../../src/core/read/keyTable';
import { internalKey } from '../../../src/core/bookkeeping/internalKeys';

async function getCalls(s: RedisServer): Promise<number> {
  const calls = await commandCalls(s);
  // Value reads: the inspector's GETRANGE and the extend script's GET.
  return (calls.get('get') ?? 0) + (calls.get('getrange') ?? 0);
}

describe('watch on real nodes', function () {
  const fx = useNodes(3, { commandTimeoutMs: 300, readTimeoutMs: 300 });
  /** Runs `f` with a client of each node, all at once. */
  const onEach = (f: Parameters<typeof withClient>[1]): Promise<unknown> => Promise.all(fx.servers.map((s) => withClient(s, f)));

  it('emits a full snapshot, then added, changed and removed', async () => {
    const held = await fx.rl.acquire('lock:w1', 30_000);
    await held.settled;
    const snapshots: Snapshot[] = [];
    const changes: WatchChange[] = [];
    const w = fx.rl.watch({ intervalMs: 50 }, { snapshot: (s) => snapshots.push(s), change: (c) => changes.push(c) });
    try {
      await waitFor(() => snapshots.length === 1, 5000, 'first snapshot');
      assert.deepEqual(snapshots[0].locks.map((l) => l.key), ['lock:w1']);

      const second = await fx.rl.acquire('lock:w2', 30_000);
      await second.settled;
      const add = await waitFor(() => changes.find((c) => c.added.some((l) => l.key === 'lock:w2')), 5000, 'added');
      assert.ok(!Number.isNaN(Date.parse(add.at)));
      assert.equal(add.added[0].verdict, 'held');

      await fx.rl.extend(held, 120_000);
      const ch = await waitFor(() => changes.find((c) => c.changed.some((l) => l.key === 'lock:w1')), 5000, 'changed');
      const entry = ch.changed.find((l) => l.key === 'lock:w1')!;
      assert.ok(entry.nodes.every((n) => n.pttlMs! > 100_000));

      await fx.rl.release(second);
      await waitFor(() => changes.find((c) => c.removed.includes('lock:w2')), 5000, 'removed');
      // Nothing else changed: no event ever reported lock:w1 as added or removed.
      assert.ok(changes.every((c) => !c.removed.includes('lock:w1') && !c.added.some((l) => l.key === 'lock:w1')));
    } finally {
      await w.stop();
    }
  });

  it('does not re-read values when nothing changed, and re-reads an extended key', async () => {
    const a = await fx.rl.acquire('lock:steady', 60_000);
    await a.settled;
    let ticks = 0;
    const w = fx.rl.watch({ intervalMs: 20 }, { snapshot: () => ticks++, change: () => undefined });
    try {
      await waitFor(() => ticks === 1, 5000, 'first snapshot');
      const tick = w.tick.bind(w);
      let after = 0;
      w.tick = async () => {
        await tick();
        after++;
      };
      const before = await getCalls(fx.servers[0]);
      await waitFor(() => after >= 10, 5000, '10 ticks');
      assert.equal(await getCalls(fx.servers[0]), before, 'a quiet tick read a value');
      await fx.rl.extend(a, 120_000);
      const seen = after;
      await waitFor(() => after >= seen + 3, 5000, '3 more ticks');
      // One read is the extend's own compare (GET), one the watch's single re-read.
      assert.equal(await getCalls(fx.servers[0]), before + 2, 'the extended key is read once');
    } finally {
      await w.stop();
    }
  });

  it('never overlaps ticks, even when a node is paused past the interval', async () => {
    await (await fx.rl.acquire('lock:slowtick', 60_000)).settled;
    let first = false;
    const w = fx.rl.watch({ intervalMs: 10 }, { snapshot: () => (first = true), change: () => undefined });
    try {
      await waitFor(() => first, 5000, 'first snapshot');
      let active = 0;
      let maxActive = 0;
      let done = 0;
      const tick = w.tick.bind(w);
      w.tick = async () => {
        active++;
        maxActive = Math.max(maxActive, active);
        try {
          await tick();
        } finally {
          active--;
          done++;
        }
      };
      fx.servers[2].pause();
      await waitFor(() => done >= 3, 10_000, '3 ticks with a paused node');
      assert.equal(maxActive, 1);
    } finally {
      fx.servers[2].resume();
      await w.stop();
    }
  });

  it('reports a node outage as degraded and its return', async () => {
    await (await fx.rl.acquire('lock:outage', 60_000)).settled;
    const changes: WatchChange[] = [];
    let first = false;
    const w = fx.rl.watch({ intervalMs: 50 }, { snapshot: () => (first = true), change: (c) => changes.push(c) });
    try {
      await waitFor(() => first, 5000, 'first snapshot');
      fx.servers[1].pause();
      const down = await waitFor(() => changes.find((c) => c.changed.some((l) => l.flags.includes('degraded'))), 5000, 'degraded');
      assert.equal(down.changed[0].nodes[1].state, 'unreachable');
      fx.servers[1].resume();
      await waitFor(() => changes.find((c) => c.changed.some((l) => l.key === 'lock:outage' && !l.flags.includes('degraded'))), 5000, 'back');
    } finally {
      await w.stop();
    }
  });

  it('works on a single node (N = 1)', async () => {
    const one = new Redlock([fx.servers[0].url], { readTimeoutMs: 300 });
    const changes: WatchChange[] = [];
    let first: Snapshot | undefined;
    const w = one.watch({ intervalMs: 50 }, { snapshot: (s) => (first = s), change: (c) => changes.push(c) });
    try {
      await waitFor(() => first, 5000, 'first snapshot');
      assert.equal(first!.quorum, 1);
      const lock = await one.acquire('lock:single', 10_000);
      const add = await waitFor(() => changes.find((c) => c.added.length > 0), 5000, 'added');
      assert.equal(add.added[0].key, 'lock:single');
      assert.equal(add.added[0].verdict, 'held');
      await one.release(lock);
      await waitFor(() => changes.find((c) => c.removed.includes('lock:single')), 5000, 'removed');
    } finally {
      await w.stop();
      await one.quit();
    }
  });

  it('flags a lock as expiring when its validity runs low, without any write', async () => {
    const changes: WatchChange[] = [];
    let first: Snapshot | undefined;
    const lock = await fx.rl.acquire('lock:fading', 2600);
    await lock.settled;
    const w = fx.rl.watch({ intervalMs: 50, expiringThresholdMs: 2000 }, { snapshot: (s) => (first = s), change: (c) => changes.push(c) });
    try {
      await waitFor(() => first, 5000, 'first snapshot');
      assert.deepEqual(first!.locks[0].flags, []);
      const handed = JSON.stringify(first);
      const c = await waitFor(() => changes.find((x) => x.changed.some((l) => l.flags.includes('expiring'))), 5000, 'expiring');
      assert.ok(c.changed[0].validityMs! < 2000);
      // The change is counted on copies of what the first snapshot handed out (no node was
      // read anew), never on those copies themselves.
      assert.equal(JSON.stringify(first), handed);
    } finally {
      await w.stop();
    }
  });

  it('sees a lock without TTL change hands, though no expiry moved', async () => {
    await Promise.all(fx.servers.map(async (s) => {
      const c = s.client();
      await c.set('lock:stuck', 'first-holder');
      c.disconnect();
    }));
    const changes: WatchChange[] = [];
    let first: Snapshot | undefined;
    const w = fx.rl.watch({ intervalMs: 50 }, { snapshot: (s) => (first = s), change: (c) => changes.push(c) });
    try {
      await waitFor(() => first, 5000, 'first snapshot');
      assert.equal(first!.locks[0].nodes[0].token, 'first-holder');
      await Promise.all(fx.servers.map(async (s) => {
        const c = s.client();
        await c.set('lock:stuck', 'second-holder');
        c.disconnect();
      }));
      const c = await waitFor(() => changes.find((x) => x.changed.some((l) => l.key === 'lock:stuck')), 5000, 'changed');
      assert.ok(c.changed[0].nodes.every((n) => n.token === 'second-holder'));
    } finally {
      await w.stop();
    }
  });

  it('asks no node for a fence counter or waiter set its listing did not find, and reads those it found', async () => {
    await onEach((c) => c.set('lock:plain', 'holder-1', 'PX', 60_000));
    const changes: WatchChange[] = [];
    let first: Snapshot | undefined;
    const w = fx.rl.watch({ intervalMs: 50 }, { snapshot: (s) => (first = s), change: (c) => changes.push(c) });
    try {
      await waitFor(() => first, 5000, 'first snapshot');
      await onEach((c) => c.config('RESETSTAT'));
      // A TTL of its own: this test counts lookups, the first tick's expiry compare is tested below.
      await onEach((c) => c.set('lock:plain', 'holder-2', 'PX', 90_000));
      await waitFor(() => changes.find((x) => x.changed.some((l) => l.key === 'lock:plain' && l.nodes.every((n) => n.token === 'holder-2'))), 5000, 'changed');
      for (const s of fx.servers) {
        const calls = await commandCalls(s);
        assert.ok((calls.get('scan') ?? 0) > 0, 'the node was listed');
        assert.deepEqual({ mget: calls.get('mget') ?? 0, zrangebyscore: calls.get('zrangebyscore') ?? 0 }, { mget: 0, zrangebyscore: 0 }, `lookups on ${s.url}`);
      }
      // A counter and a waiter set beside the lock, one on each node and one on the first, with a new holder.
      await onEach((c) => c.set(internalKey('fence', 'lock:plain'), '7'));
      await withClient(fx.servers[0], (c) => c.zadd(internalKey('waiters', 'lock:plain'), Date.now() + 60_000, 'waiter-1'));
      await onEach((c) => c.set('lock:plain', 'holder-3', 'PX', 120_000));
      await waitFor(() => changes.find((x) => x.changed.some((l) => l.key === 'lock:plain' && l.fence === 7 && l.waiters?.length === 1 && l.nodes.every((n) => n.token === 'holder-3'))), 5000, 'fence and waiter seen');
    } finally {
      await w.stop();
    }
  });

  it('sees a waiter join a lock a tick after its holder changed with none: a listing\'s "no waiter set" is not kept past its tick', async () => {
    await onEach((c) => c.set('lock:later', 'holder-1', 'PX', 60_000));
    const changes: WatchChange[] = [];
    let first: Snapshot | undefined;
    const w = fx.rl.watch({ intervalMs: 50 }, { snapshot: (s) => (first = s), change: (c) => changes.push(c) });
    try {
      await waitFor(() => first, 5000, 'first snapshot');
      // A new holder and no waiter set: that tick's listing says so, and its waiters are not read.
      await onEach((c) => c.set('lock:later', 'holder-2', 'PX', 90_000));
      await waitFor(() => changes.find((x) => x.changed.some((l) => l.key === 'lock:later' && l.nodes.every((n) => n.token === 'holder-2'))), 5000, 'new holder');
      // Then a waiter, with the lock itself untouched: only its waiter set moved.
      await withClient(fx.servers[0], (c) => c.zadd(internalKey('waiters', 'lock:later'), Date.now() + 60_000, 'waiter-1'));
      await waitFor(() => changes.find((x) => x.changed.some((l) => l.key === 'lock:later' && l.waiters?.length === 1)), 5000, 'waiter seen');
    } finally {
      await w.stop();
    }
  });
});

describe('watch: a handover within the reads\' errors', function () {
  const fx = useNodes(3, { commandTimeoutMs: 300, readTimeoutMs: 300 });

  it('sees a new holder whose expiry lands 5 ms from the old one', async () => {
    const clients = fx.servers.map((s) => s.client());
    try {
      for (const c of clients) await c.set('lock:quick', 'first-holder', 'PX', 60_000);
      const changes: WatchChange[] = [];
      let ticks = 0;
      let first: Snapshot | undefined;
      const w = fx.rl.watch({ intervalMs: 50 }, { snapshot: (s) => (first = s), change: (c) => changes.push(c), status: () => ticks++ });
      try {
        await waitFor(() => first, 5000, 'first snapshot');
        // Two more ticks: the pages have been listed once with their keys' expiries.
        const after = ticks;
        await waitFor(() => ticks >= after + 2, 5000, 'two ticks');
        // A new holder with the same TTL, taken 5 ms later than the first: far inside the
        // tolerance a comparison of PTTLs needs (JUMP_TOLERANCE_MS plus the reads' errors).
        for (const c of clients) {
          const at = Number(await c.pexpiretime('lock:quick'));
          await c.multi().set('lock:quick', 'second-holder').pexpireat('lock:quick', at + 5).exec();
        }
        const c = await waitFor(() => changes.find((x) => x.changed.some((l) => l.key === 'lock:quick')), 5000, 'changed');
        assert.ok(c.changed[0].nodes.every((n) => n.token === 'second-holder'));
      } finally {
        await w.stop();
      }
    } finally {
      for (const c of clients) c.disconnect();
    }
  });

  it('at the first tick after a full read, reads again a key whose expiry moved 5 ms, and no other', async () => {
    const clients = fx.servers.map((s) => s.client());
    // No tick of its own: the one after the full read is a refresh().
    const watchFirst = async (): Promise<{ w: ReturnType<Redlock['watch']>; changes: WatchChange[] }> => {
      const changes: WatchChange[] = [];
      let first: Snapshot | undefined;
      const w = fx.rl.watch({ intervalMs: 600_000 }, { snapshot: (s) => (first = s), change: (c) => changes.push(c) });
      await waitFor(() => first, 5000, 'first snapshot');
      return { w, changes };
    };
    try {
      for (const c of clients) await c.set('lock:early', 'first-holder', 'PX', 60_000);
      // The pages have no last listing yet: the copies' expiries come from the full read's PTTLs.
      const quiet = await watchFirst();
      try {
        const reads = await Promise.all(fx.servers.map(getCalls));
        await quiet.w.refresh();
        assert.deepEqual(await Promise.all(fx.servers.map(getCalls)), reads, 'an unchanged key was read again');
      } finally {
        await quiet.w.stop();
      }
      const { w, changes } = await watchFirst();
      try {
        for (const c of clients) {
          const at = Number(await c.pexpiretime('lock:early'));
          await c.multi().set('lock:early', 'second-holder').pexpireat('lock:early', at + 5).exec();
        }
        await w.refresh();
        const c = changes.find((x) => x.changed.some((l) => l.key === 'lock:early'));
        assert.ok(c, 'the handover was not seen');
        assert.ok(c.changed[0].nodes.every((n) => n.token === 'second-holder'));
      } finally {
        await w.stop();
      }
    } finally {
      for (const c of clients) c.disconnect();
    }
  });
});

describe('watch: a read that fails or runs late is never a removal', function () {
  this.timeout(30_000);
  const fx = useNodes(3, { commandTimeoutMs: 200, readTimeoutMs: 200 });

  it('a paused node, then every node paused: no lock is removed, and none is added back after', async () => {
    const held = await fx.rl.acquire('lock:kept', 60_000);
    await held.settled;
    const c = fx.servers[0].client();
    await c.set('lock:only-on-a', 'token-a', 'PX', 60_000);
    c.disconnect();
    const changes: WatchChange[] = [];
    const statuses: Array<boolean[]> = [];
    let first: Snapshot | undefined;
    const w = fx.rl.watch({ intervalMs: 50 }, {
      snapshot: (s) => (first = s),
      change: (ch) => changes.push(ch),
      status: (st) => statuses.push(st.nodes.map((n) => n.reachable)),
    });
    try {
      await waitFor(() => first, 5000, 'first snapshot');
      assert.deepEqual(first!.locks.map((l) => l.key), ['lock:kept', 'lock:only-on-a']);
      fx.servers[0].pause();
      // Ticks that found the node silent, then every node silent.
      await waitFor(() => statuses.filter((s) => !s[0]).length >= 3, 10_000, 'ticks with node 0 silent');
      fx.servers[1].pause();
      fx.servers[2].pause();
      const from = statuses.length;
      await waitFor(() => statuses.slice(from).filter((s) => s.every((r) => !r)).length >= 2, 10_000, 'ticks with every node silent');
      fx.servers.forEach((s) => s.resume());
      await waitFor(() => statuses.length > 0 && statuses[statuses.length - 1].every(Boolean), 10_000, 'every node back');
      await w.refresh();
      assert.deepEqual(changes.flatMap((ch) => ch.removed), []);
      assert.deepEqual(changes.flatMap((ch) => ch.added.map((l) => l.key)), []);
      assert.deepEqual(w.snapshot()!.locks.map((l) => l.key), ['lock:kept', 'lock:only-on-a']);
    } finally {
      fx.servers.forEach((s) => s.resume());
      await w.stop();
    }
  });
});

describe('watch: a full read is bounded by keys, not by the tick\'s time', function () {
  this.timeout(30_000);
  const fx = useNodes(3, { commandTimeoutMs: 2000, readTimeoutMs: 2000 });

  it('a first read that outlasts the time budget hands out every lock, and none of them later as added', async () => {
    const n = 2500;
    await Promise.all(fx.servers.map((s) => withClient(s, async (c) => {
      const p = c.pipeline();
      for (let i = 0; i < n; i++) p.set(`lock:slow:${i}`, `tok-${i}`, 'PX', 120_000);
      await p.exec();
    })));
    let first: Snapshot | undefined;
    const changes: WatchChange[] = [];
    let ticks = 0;
    // 1 ms: the deadline passes before the first page's reply, so a cut read would stop there.
    const w = fx.rl.watch({ intervalMs: 20, timeBudgetMs: 1, patterns: ['lock:*'] }, { snapshot: (s) => (first = s), change: (c) => changes.push(c), status: () => ticks++ });
    try {
      await waitFor(() => first, 20_000, 'first snapshot');
      assert.equal(first!.locks.length, n);
      assert.equal(first!.truncated, false);
      await waitFor(() => ticks >= 4, 20_000, 'three ticks after the first');
      assert.deepEqual(changes.map((c) => [c.added.length, c.changed.length, c.removed.length]), []);
    } finally {
      await w.stop();
    }
  });
});

// The watcher as a shared engine: several consumers, reads on demand, a key bound with
// "load more", node facts, pause and rate changes (docs/architecture.md).
describe('watcher consumers, paging and rates', function () {
  const fx = useNodes(3, { commandTimeoutMs: 300, readTimeoutMs: 300 });

  it('serves a late consumer the current state at once, then the same changes as the first', async () => {
    await (await fx.rl.acquire('lock:c1', 30_000)).settled;
    const first: WatchChange[] = [];
    let firstSnapshot: Snapshot | undefined;
    const w = fx.rl.watch({ intervalMs: 60_000 }, { snapshot: (s) => (firstSnapshot = s), change: (c) => first.push(c) });
    try {
      await waitFor(() => firstSnapshot, 5000, 'first snapshot');
      const late: { snapshots: Snapshot[]; changes: WatchChange[] } = { snapshots: [], changes: [] };
      const sub = w.subscribe({ snapshot: (s) => late.snapshots.push(s), change: (c) => late.changes.push(c) });
      // A consumer that throws must not stop the others.
      const errors: unknown[] = [];
      const bad = w.subscribe({ change: () => { throw new Error('consumer bug'); }, error: (e) => errors.push(e) });
      assert.equal(late.snapshots.length, 1, 'the late consumer has the state without waiting a tick');
      assert.deepEqual(late.snapshots[0].locks.map((l) => l.key), ['lock:c1']);

      await (await fx.rl.acquire('lock:c2', 30_000)).settled;
      // On demand: no waiting for the (one minute) interval.
      await w.refresh();
      assert.ok(first.some((c) => c.added.some((l) => l.key === 'lock:c2')), 'first consumer saw the change');
      assert.ok(late.changes.some((c) => c.added.some((l) => l.key === 'lock:c2')), 'late consumer saw the change');
      assert.ok(errors.some((e) => e instanceof Error && e.message === 'consumer bug'));

      sub.dispose();
      bad.dispose();
      await (await fx.rl.acquire('lock:c3', 30_000)).settled;
      await w.refresh();
      assert.ok(first.some((c) => c.added.some((l) => l.key === 'lock:c3')));
      assert.ok(!late.changes.some((c) => c.added.some((l) => l.key === 'lock:c3')), 'a disposed consumer hears nothing');
      assert.deepEqual(w.snapshot()?.locks.map((l) => l.key), ['lock:c1', 'lock:c2', 'lock:c3']);
    } finally {
      await w.stop();
    }
  });

  it('hands out the entries it keeps in its first snapshot, and counts them down from the first tick after it', async () => {
    await (await fx.rl.acquire('lock:k1', 30_000)).settled;
    await (await fx.rl.acquire('lock:k0', 30_000)).settled;
    // Skipped keys, around the locks in key order: the first snapshot lists them as the later ones do.
    const c = fx.servers[0].client();
    await c.rpush('lock:a-list', 'x');
    await c.rpush('lock:z-list', 'x');
    c.disconnect();
    let first: Snapshot | undefined;
    const w = fx.rl.watch({ intervalMs: 60_000 }, { snapshot: (s) => (first = s) });
    try {
      await waitFor(() => first, 5000, 'first snapshot');
      const firstAt = w.takenAtMs;
      // The same tick: nothing to count down, so no copy of the entry either.
      assert.equal(w.snapshot()!.locks[1], first!.locks[1]);
      assert.deepEqual(w.snapshot(), first);
      assert.deepEqual(first!.locks.map((l) => l.key), ['lock:k0', 'lock:k1']);
      assert.deepEqual(first!.skipped.map((k) => k.key), ['lock:a-list', 'lock:z-list']);
      // A lock's copies, decoded node by node, share one holder as they are counted down.
      const [a, ...rest] = first!.locks[1].nodes;
      assert.ok(a.holder);
      for (const o of rest) assert.equal(o.holder, a.holder);
      await w.refresh();
      const later = w.snapshot()!.locks[1];
      assert.notEqual(later, first!.locks[1]);
      const elapsed = w.takenAtMs - firstAt;
      later.nodes.forEach((o, i) => {
        // Counted from the instant the first snapshot was counted to, not from the read before it.
        assert.ok(Math.abs(first!.locks[1].nodes[i].pttlMs! - elapsed - o.pttlMs!) <= 1, `node ${i}: ${o.pttlMs} after ${elapsed} ms, from ${first!.locks[1].nodes[i].pttlMs}`);
      });
    } finally {
      await w.stop();
    }
  });

  it('hands out the entries it keeps for an added and a changed lock too, counted to the tick that found them', async () => {
    const held = await fx.rl.acquire('lock:k1', 30_000);
    await held.settled;
    const changes: WatchChange[] = [];
    let started = false;
    const w = fx.rl.watch({ intervalMs: 60_000 }, { snapshot: () => (started = true), change: (c) => changes.push(c) });
    try {
      await waitFor(() => started, 5000, 'first snapshot');
      await (await fx.rl.acquire('lock:k2', 30_000)).settled;
      await w.refresh();
      const added = changes.flatMap((c) => c.added).find((l) => l.key === 'lock:k2')!;
      assert.ok(added, 'lock:k2 added');
      // The same tick: the watch's own entry, not a copy counted anew.
      assert.equal(w.snapshot()!.locks.find((l) => l.key === 'lock:k2'), added);
      await fx.rl.extend(held, 120_000);
      await w.refresh();
      const changed = changes.flatMap((c) => c.changed).find((l) => l.key === 'lock:k1')!;
      assert.ok(changed, 'lock:k1 changed');
      assert.equal(w.snapshot()!.locks.find((l) => l.key === 'lock:k1'), changed);
      assert.ok(changed.nodes.every((o) => o.pttlMs! > 100_000 && o.pttlMs! <= 120_000));
      const firstAt = w.takenAtMs;
      await w.refresh();
      const later = w.snapshot()!.locks.find((l) => l.key === 'lock:k1')!;
      const elapsed = w.takenAtMs - firstAt;
      // Counted on from the tick that handed it out.
      later.nodes.forEach((o, i) => assert.ok(Math.abs(changed.nodes[i].pttlMs! - elapsed - o.pttlMs!) <= 1, `node ${i}: ${o.pttlMs} after ${elapsed} ms, from ${changed.nodes[i].pttlMs}`));
    } finally {
      await w.stop();
    }
  });

  it('shares one tick between refresh() calls that arrive during a tick', async () => {
    let ticks = 0;
    let started = false;
    const w = fx.rl.watch({ intervalMs: 60_000 }, { snapshot: () => (started = true) });
    try {
      await waitFor(() => started, 5000, 'first snapshot');
      const tick = w.tick.bind(w);
      w.tick = async () => {
        ticks++;
        await tick();
      };
      const a = w.refresh();
      const b = w.refresh();
      const c = w.refresh({ facts: true });
      await Promise.all([a, b, c]);
      assert.equal(ticks, 1);
    } finally {
      await w.stop();
    }
  });

  it('reads node facts every factsEveryMs and on demand', async () => {
    const facts: NodeFacts[][] = [];
    const w = fx.rl.watch({ intervalMs: 50, factsEveryMs: 60_000 }, { facts: (f) => facts.push(f) });
    try {
      const f = await waitFor(() => facts[0], 5000, 'facts');
      assert.deepEqual(f.map((x) => x.reachable), [true, true, true]);
      assert.ok(f.every((x) => /^\d+\.\d+\.\d+/.test(x.version ?? '')));
      // Not again within the minute, unless asked for.
      await w.refresh();
      assert.equal(facts.length, 1);
      await w.refresh({ facts: true });
      assert.equal(facts.length, 2);
      assert.equal(w.facts, facts[1]);
    } finally {
      await w.stop();
    }
  });

  it('stops its timer while paused but still reads on demand; a shorter interval applies at once', async () => {
    const statuses: WatchStatus[] = [];
    const w = fx.rl.watch({ intervalMs: 20 }, { status: (s) => statuses.push(s) });
    try {
      await waitFor(() => statuses.length >= 2, 5000, 'ticks');
      w.setPaused(true);
      await w.refresh();
      const seen = statuses.length;
      // Paused: a few intervals pass without a tick (polled, not slept on: any tick fails).
      const until = Date.now() + 200;
      await waitFor(() => statuses.length > seen || Date.now() > until, 5000, 'quiet while paused');
      assert.equal(statuses.length, seen);
      await w.refresh();
      assert.equal(statuses.length, seen + 1, 'refresh reads while paused');

      w.setIntervalMs(60_000);
      w.setPaused(false);
      const resumed = statuses.length;
      await waitFor(() => statuses.length > resumed, 5000, 'a tick on resume');
      const slow = statuses.length;
      w.setIntervalMs(20);
      await waitFor(() => statuses.length >= slow + 2, 5000, 'ticks at the shorter interval');
    } finally {
      await w.stop();
    }
  });

  it('watches maxKeys per node, and one more page of keys at each loadMore()', async () => {
    const one = new Redlock([fx.servers[0].url], { readTimeoutMs: 2000 });
    const c = fx.servers[0].client();
    const p = c.pipeline();
    for (let i = 0; i < 3500; i++) p.set(`lock:page:${String(i).padStart(4, '0')}`, `tok-${i}`, 'PX', 120_000);
    await p.exec();
    c.disconnect();
    let snap: Snapshot | undefined;
    let status: WatchStatus | undefined;
    const seen = new Set<string>();
    // One pattern: with several, loading the last page of the first can leave only empty
    // patterns for the next load, which then adds nothing (and says the scan is complete).
    const w = one.watch({ intervalMs: 60_000, maxKeys: 1000, patterns: ['lock:*'] }, {
      snapshot: (s) => {
        snap = s;
        for (const l of s.locks) seen.add(l.key);
      },
      change: (ch) => {
        for (const l of ch.added) seen.add(l.key);
      },
      status: (s) => (status = s),
    });
    try {
      await waitFor(() => snap, 10_000, 'first snapshot');
      assert.equal(snap!.truncated, true);
      assert.ok(seen.size >= 1000 && seen.size < 3500, `first page: ${seen.size}`);
      let loads = 0;
      while (status!.truncated && loads < 10) {
        const before = seen.size;
        await w.loadMore();
        loads++;
        assert.ok(seen.size > before, `load ${loads} added keys (${before} -> ${seen.size})`);
      }
      assert.equal(status!.truncated, false);
      assert.equal(seen.size, 3500);
      assert.equal(w.keyLimit, 1000 * (loads + 1));

      // A bound smaller than a SCAN page still moves on by at least one page per load.
      let small: Snapshot | undefined;
      let smallSeen = 0;
      const w1 = one.watch({ intervalMs: 60_000, maxKeys: 1 }, { snapshot: (s) => { small = s; smallSeen = s.locks.length; }, change: (ch) => (smallSeen += ch.added.length) });
      try {
        await waitFor(() => small, 10_000, 'first snapshot (maxKeys 1)');
        assert.equal(small!.truncated, true);
        const before = smallSeen;
        await w1.loadMore();
        assert.ok(smallSeen > before, `maxKeys 1: ${before} -> ${smallSeen}`);
      } finally {
        await w1.stop();
      }
    } finally {
      await w.stop();
      await one.quit();
    }
  });
});

describe('watch: the table of key ids', function () {
  const fx = useNodes(3, { commandTimeoutMs: 300, readTimeoutMs: 300 });

  it('keeps every key once across nodes, and lets go of the keys no node holds any more', async () => {
    const clients = fx.servers.map((s) => s.client());
    let changes = 0;
    const w = fx.rl.watch({ intervalMs: 3_600_000 }, { change: (c) => void (changes += c.added.length + c.changed.length + c.removed.length) });
    // The watcher's own table (watch.ts `keys`): not part of its API, read here to see it compacted.
    const table = (): KeyTable => (w as unknown as { keys: KeyTable }).keys;
    const write = async (round: number): Promise<void> => {
      for (const c of clients) {
        const p = c.pipeline();
        for (let i = 0; i < 300; i++) p.set(`lock:round${round}:${i}`, `token-${round}-${i}`, 'PX', 600_000);
        await p.exec();
      }
    };
    try {
      await write(0);
      await w.refresh();
      // One entry per key, not one per node: the three nodes' copies share it.
      assert.equal(table().size, 300);
      for (let round = 1; round <= 5; round++) {
        for (const c of clients) await c.del(...Array.from({ length: 300 }, (_, i) => `lock:round${round - 1}:${i}`));
        await write(round);
        await w.refresh();
        assert.equal(w.snapshot()!.locks.length, 300);
      }
      // 1,800 ids came and went; the table is pruned once it doubles (plus a little).
      assert.ok(table().size <= 2 * 300 + 256, `${table().size} ids kept for 300 keys`);
      assert.ok(table().ids().every((id) => id.startsWith('lock:round4:') || id.startsWith('lock:round5:')), 'only the last rounds\' keys');
      // Every node's slots were renumbered with it: a tick with nothing written finds each lock where it was.
      changes = 0;
      await w.refresh();
      assert.equal(changes, 0);
      assert.ok(w.snapshot()!.locks.every((l) => l.key.startsWith('lock:round5:') && l.nodes.every((o) => o.state === 'present' && o.token === `token-5-${l.key.split(':')[2]}`)));
    } finally {
      await w.stop();
      for (const c of clients) c.disconnect();
    }
  });
});
