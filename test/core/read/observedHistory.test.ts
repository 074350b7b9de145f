// Observed history of a foreign library's lock (node-redlock's maintained fork, which
// records nothing): a watch derives acquired, extended, released and expired, and a split.
import assert from 'node:assert/strict';
import Redis from 'ioredis';
import { Redlock as NodeRedlock } from '@sesamecare-oss/redlock';
import { useNodes } from '../../support/nodesFixture';
import { waitFor } from '../../support/wait';
import { mergeHistory, ObservedHistory, type Watcher } from '../../../src/core';
import { lockEntry, present } from '../../support/entries';

describe('observed history: what a watch saw happen to any lock', () => {
  const fx = useNodes(3, { commandTimeoutMs: 500, readTimeoutMs: 500 });
  let clients: Redis[] = [];
  let watcher: Watcher | undefined;
  beforeEach(() => {
    clients = fx.servers.map((s) => new Redis(s.url));
  });
  afterEach(() => {
    watcher?.stop();
    clients.forEach((c) => c.disconnect());
  });

  const types = (key: string): string[] => watcher!.observed.eventsOf(key).map((e) => e.type).reverse();

  it('acquired, extended, released, then acquired and expired: told apart by the TTL left', async () => {
    let snapshots = 0;
    watcher = fx.rl.watch({ intervalMs: 50, patterns: ['orders:*'] }, { snapshot: () => snapshots++ });
    await waitFor(() => snapshots > 0, 5000, 'first snapshot');
    const nr = new NodeRedlock(clients, { retryCount: 0 });
    const lock = await nr.acquire(['orders:42'], 30_000);
    await waitFor(() => types('orders:42').includes('acquired'), 5000, 'acquired');
    const longer = await lock.extend(60_000);
    await waitFor(() => types('orders:42').includes('extended'), 5000, 'extended');
    await longer.release();
    await waitFor(() => types('orders:42').includes('released'), 5000, 'released');
    await nr.acquire(['orders:42'], 300);
    await waitFor(() => types('orders:42').includes('expired'), 5000, 'expired');
    assert.deepEqual(types('orders:42'), ['acquired', 'extended', 'released', 'acquired', 'expired']);
    const newest = watcher.observed.eventsOf('orders:42')[0];
    assert.equal(newest.source, 'observed');
    assert.equal(newest.token, watcher.observed.eventsOf('orders:42')[1].token);
  });

  it('a split is observed when two tokens hold copies', async () => {
    let snapshots = 0;
    watcher = fx.rl.watch({ intervalMs: 50, patterns: ['orders:*'] }, { snapshot: () => snapshots++ });
    await waitFor(() => snapshots > 0, 5000, 'first snapshot');
    await clients[0].set('orders:7', 'a'.repeat(32), 'PX', 30_000);
    await clients[1].set('orders:7', 'b'.repeat(32), 'PX', 30_000);
    await waitFor(() => types('orders:7').includes('split'), 5000, 'split');
  });

  it('a caller that keeps each lock\'s last state (change) is told what one that lets the history keep it (seed, observe) is', () => {
    const held = (token: string, pttlMs: number) => lockEntry('orders:1', [present('a', token, pttlMs), present('b', token, pttlMs), present('c', token, pttlMs)]);
    // at (ms), then the lock's entry then (undefined: gone).
    const ticks: Array<[number, ReturnType<typeof held> | undefined]> = [
      [1_000, held('t1', 10_000)],
      [2_000, held('t1', 30_000)], // extended
      [3_000, undefined], // released: 28 s were left
      [4_000, held('t2', 500)], // acquired
      [4_600, undefined], // expired
    ];
    const kept = new ObservedHistory();
    kept.seed(held('t0', 10_000), 0);
    kept.observe('orders:1', undefined, 500);
    const stateless = new ObservedHistory();
    let before: { entry: ReturnType<typeof held>; expiresAt: number } | undefined;
    stateless.change('orders:1', { entry: held('t0', 10_000), expiresAt: 10_000 }, undefined, 500);
    for (const [at, entry] of ticks) {
      kept.observe('orders:1', entry, at);
      stateless.change('orders:1', before, entry, at);
      before = entry && { entry, expiresAt: at + entry.nodes[0].pttlMs! };
    }
    const told = (h: ObservedHistory): string[] => h.eventsOf('orders:1').map((e) => `${e.at} ${e.type} ${e.token}`).reverse();
    assert.deepEqual(told(kept), ['500 released t0', '1000 acquired t1', '2000 extended t1', '3000 released t1', '4000 acquired t2', '4600 expired t2']);
    assert.deepEqual(told(stateless), told(kept));
    assert.equal((stateless as unknown as { last: Map<string, unknown> }).last.size, 0, 'change() keeps no state of its own per key');
  });

  it('merges recorded and observed events newest first, marking each source', () => {
    const merged = mergeHistory([{ at: 2, type: 'acquired', holder: null, token: 't' }], [{ at: 3, type: 'released', holder: null, token: 't', source: 'observed' }, { at: 1, type: 'acquired', holder: null, token: 't', source: 'observed' }]);
    assert.deepEqual(merged.map((e) => `${e.at} ${e.source}`), ['3 observed', '2 recorded', '1 observed']);
  });
});
