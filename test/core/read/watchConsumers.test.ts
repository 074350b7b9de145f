// The watcher as a shared engine: several consumers, reads on demand, a key bound with
// "load more", node facts, pause and rate changes (docs/architecture.md).
import assert from 'node:assert/strict';
import { Redlock, type NodeFacts, type Snapshot, type WatchChange, type WatchStatus } from '../../../src/core';
import { useNodes } from '../../support/nodesFixture';
import { waitFor } from '../../support/wait';

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
