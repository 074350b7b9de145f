// Observed history of a foreign library's lock (node-redlock's maintained fork, which
// records nothing): a watch derives acquired, extended, released and expired, and a split.
import assert from 'node:assert/strict';
import Redis from 'ioredis';
import { Redlock as NodeRedlock } from '@sesamecare-oss/redlock';
import { useNodes } from '../../support/nodesFixture';
import { waitFor } from '../../support/wait';
import { mergeHistory, type Watcher } from '../../../src/core';

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

  it('merges recorded and observed events newest first, marking each source', () => {
    const merged = mergeHistory([{ at: 2, type: 'acquired', holder: null, token: 't' }], [{ at: 3, type: 'released', holder: null, token: 't', source: 'observed' }, { at: 1, type: 'acquired', holder: null, token: 't', source: 'observed' }]);
    assert.deepEqual(merged.map((e) => `${e.at} ${e.source}`), ['3 observed', '2 recorded', '1 observed']);
  });
});
