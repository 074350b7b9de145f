// Every deployment shape for real: one node, Sentinel (with a failover), Cluster.
import assert from 'node:assert/strict';
import Redis, { Cluster } from 'ioredis';
import { Redlock, RedlockError, Snapshot, WatchChange } from '../../../src/core';
import { seedOf, useCluster } from '../../support/clusterFixture';
import { RedisServer } from '../../../src/dev/redisServer';
import { waitFor } from '../../support/wait';

describe('deployments', function () {
  this.timeout(60_000);

  describe('Redis Cluster (3 masters)', () => {
    const fx = useCluster();

    it('locks through the cluster and shows each key on its owning master (N = 1)', async () => {
      const rl = new Redlock([fx.url], { commandTimeoutMs: 500 });
      try {
        assert.equal(rl.quorum, 1);
        const keys = ['lock:a', 'lock:b', 'lock:c', 'lock:d', 'lock:e', 'lock:f'];
        const locks = await Promise.all(keys.map((k) => rl.acquire(k, 30_000)));
        const snap = await rl.inspect();
        assert.equal(snap.quorum, 1);
        assert.deepEqual(snap.nodes.map((n) => n.node).sort(), fx.masters.map(seedOf).sort());
        assert.deepEqual(snap.locks.map((l) => l.key), keys);
        const owners = new Set<string>();
        for (const l of snap.locks) {
          assert.equal(l.verdict, 'held');
          assert.equal(l.nodes.length, 1);
          // The owning master really holds it.
          const port = Number(l.nodes[0].node.split(':')[1]);
          const c = new Redis({ port, host: '127.0.0.1' });
          assert.equal(await c.call('GETRANGE', l.key, 0, -1).catch(() => null), l.nodes[0].token);
          c.disconnect();
          owners.add(l.nodes[0].node);
        }
        assert.ok(owners.size >= 2, 'keys spread over several fx.masters');
        await Promise.all(locks.map((l) => rl.release(l)));
        assert.equal((await rl.inspect()).locks.length, 0);
      } finally {
        await rl.quit();
      }
    });

    it('watch follows a cluster', async () => {
      const rl = new Redlock([fx.url], { commandTimeoutMs: 500 });
      const snapshots: Snapshot[] = [];
      const changes: WatchChange[] = [];
      const w = rl.watch({ intervalMs: 50 }, { snapshot: (s) => snapshots.push(s), change: (c) => changes.push(c) });
      try {
        await waitFor(() => snapshots.length === 1, 10_000, 'first snapshot');
        const lock = await rl.acquire('lock:watched', 30_000);
        await waitFor(() => changes.some((c) => c.added.some((l) => l.key === 'lock:watched')), 10_000, 'added');
        await rl.release(lock);
        await waitFor(() => changes.some((c) => c.removed.includes('lock:watched')), 10_000, 'removed');
      } finally {
        await w.stop();
        await rl.quit();
      }
    });

    it('a cluster node configured as standalone gets a clear message', async () => {
      // Find a key this master does not own.
      const c = fx.masters[0].client();
      const cluster = new Cluster([{ host: '127.0.0.1', port: fx.masters[0].port }]);
      let key = '';
      for (let i = 0; i < 100 && !key; i++) {
        const slot = Number(await c.call('CLUSTER', 'KEYSLOT', `lock:moved:${i}`));
        const owner = ((await c.call('CLUSTER', 'SLOTS')) as Array<[number, number, [string, number]]>).find(([a, b]) => slot >= a && slot <= b);
        if (owner && owner[2][1] !== fx.masters[0].port) key = `lock:moved:${i}`;
      }
      c.disconnect();
      cluster.disconnect();
      const rl = new Redlock([fx.masters[0].url], { commandTimeoutMs: 500 });
      try {
        const err = await rl.acquire(key, 10_000).then(() => null, (e: unknown) => e);
        assert.ok(err instanceof RedlockError);
        assert.match(err.nodes[0].reason ?? '', /MOVED.*Redis Cluster: use redis\+cluster:\/\//);
      } finally {
        await rl.quit();
      }
    });
  });

  describe('Sentinel', () => {
    let master: RedisServer;
    let replica: RedisServer;
    let sentinel: RedisServer;
    before(async () => {
      master = await RedisServer.start();
      replica = await RedisServer.start({ args: ['--replicaof', '127.0.0.1', String(master.port)] });
      sentinel = await RedisServer.start({ sentinelOf: { name: 'mymaster', port: master.port, downAfterMs: 1000 } });
      // The sentinel must know the replica before it can fail over to it.
      const s = sentinel.client();
      await waitFor(async () => ((await s.call('SENTINEL', 'REPLICAS', 'mymaster')) as unknown[]).length > 0, 20_000, 'sentinel sees the replica');
      s.disconnect();
    });
    after(async () => {
      await Promise.all([master, replica, sentinel].map((x) => x.dispose()));
    });

    it('locks and inspects through the sentinel, and follows a failover', async () => {
      const rl = new Redlock([`redis+sentinel://127.0.0.1:${sentinel.port}/mymaster`], { commandTimeoutMs: 500 });
      try {
        assert.equal(rl.nodes[0].id, `mymaster@127.0.0.1:${sentinel.port}`);
        const lock = await rl.acquire('lock:sentinel', 60_000);
        const snap = await rl.inspect();
        assert.equal(snap.locks[0].key, 'lock:sentinel');
        assert.equal(snap.locks[0].nodes[0].token, lock.token);
        const facts = await rl.nodeFacts();
        assert.equal(facts[0].role, 'master');
        const changes: WatchChange[] = [];
        const firsts: Snapshot[] = [];
        const w = rl.watch({ intervalMs: 50 }, { snapshot: (x) => firsts.push(x), change: (c) => changes.push(c) });
        await waitFor(() => firsts.length === 1, 10_000, 'watch snapshot');
        assert.equal(firsts[0].locks[0].key, 'lock:sentinel');
        const other = await rl.acquire('lock:sentinel-2', 60_000);
        await waitFor(() => changes.some((c) => c.added.some((l) => l.key === 'lock:sentinel-2')), 10_000, 'watch added');
        await w.stop();
        await rl.release(other);

        // Wait until the replica has the lock, then fail the master over.
        const r = replica.client();
        await waitFor(async () => (await r.get('lock:sentinel')) === lock.token, 10_000, 'replication');
        r.disconnect();
        await master.stop();
        await waitFor(async () => {
          const s = await rl.inspect();
          return s.nodes[0].reachable && s.locks[0]?.nodes[0].token === lock.token;
        }, 30_000, 'inspect after failover');
        const after = await rl.nodeFacts();
        assert.equal(after[0].role, 'master');
        await rl.release(lock);
      } finally {
        await rl.quit();
      }
    });
  });
});
