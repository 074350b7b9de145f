// Waiter sets and event logs live in their resource's slot: contended acquires, waiters
// and history work through a Redis Cluster (no CROSSSLOT), hash-tagged keys included.
import assert from 'node:assert/strict';
import { Redlock } from '../../../src/core';
import { useCluster } from '../../support/clusterFixture';
import { waitFor } from '../../support/wait';

describe('holders, waiters and history on a Redis Cluster', function () {
  this.timeout(60_000);
  const fx = useCluster();

  it('shows holder and waiter, grants the waiter, and keeps history, per slot', async () => {
    const a = new Redlock([fx.url], { holderName: 'cluster-a', events: true, commandTimeoutMs: 500 });
    const b = new Redlock([fx.url], { holderName: 'cluster-b', events: true, commandTimeoutMs: 500, retryDelayMs: 50 });
    const reader = new Redlock([fx.url]);
    try {
      for (const key of ['lock:cl', 'orders:{42}:lock']) {
        const held = await a.acquire(key, 30_000);
        const waiting = b.acquire(key, 30_000, { retryCount: 1000 });
        const entry = await waitFor(async () => {
          const l = (await reader.inspect({ patterns: [key] })).locks.find((x) => x.key === key);
          return l && l.waiters!.length > 0 ? l : undefined;
        }, 10_000, `a waiter on ${key}`);
        assert.equal(entry.holder!.name, 'cluster-a');
        assert.equal(entry.waiters![0].name, 'cluster-b');
        await a.release(held);
        const got = await waiting;
        const after = (await reader.inspect({ patterns: [key] })).locks.find((x) => x.key === key)!;
        assert.equal(after.holder!.name, 'cluster-b');
        assert.deepEqual(after.waiters, []);
        await b.release(got);
      }
      await Promise.all([a.quit(), b.quit()]);
      const h = await reader.history('orders:{42}:lock');
      assert.deepEqual(h.events.map((e) => `${e.type} ${e.holder?.name}`).reverse(), ['acquired cluster-a', 'released cluster-a', 'acquired cluster-b', 'released cluster-b']);
      const snap = await reader.inspect({ patterns: ['*'] });
      assert.ok(![...snap.locks, ...snap.skipped].some((x) => x.key.startsWith('__rli:')));
    } finally {
      await Promise.all([a.quit(), b.quit(), reader.quit()]);
    }
  });
});
