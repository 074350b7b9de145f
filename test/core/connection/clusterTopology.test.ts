// Slot arithmetic against a real cluster-enabled server, and the library's view of a
// fresh cluster client and of a cluster with a silent master.
import assert from 'node:assert/strict';
import { keySlot, patternSlot, Redlock } from '../../../src/core';
import { literalPrefix } from '../../../src/core/connection/clusterTopology';
import { seedOf, useCluster } from '../../support/clusterFixture';
import { clusterOwner, RedisServer, withClient } from '../../../src/dev/redisServer';
import { waitFor } from '../../support/wait';

describe('cluster slots', function () {
  this.timeout(30_000);
  let node: RedisServer;
  before(async () => {
    node = await RedisServer.start({ args: ['--cluster-enabled', 'yes'] });
  });
  after(async () => {
    await node.dispose();
  });

  it('keySlot agrees with CLUSTER KEYSLOT, hash tags and bytes included', async () => {
    const keys = ['lock:a', 'foo', '{user1000}.following', 'a{}b', '{}{x}', 'x{y', 'lock:{m1}:f', 'ключ', '', '{a}{b}'];
    for (let i = 0; i < 50; i++) keys.push(`lock:${i}:${'z'.repeat(i)}`);
    await withClient(node, async (c) => {
      for (const k of keys) assert.equal(keySlot(k), Number(await c.call('CLUSTER', 'KEYSLOT', k)), k);
    });
  });

  it('patternSlot: exact keys and globs with a fixed {tag} have one slot, other globs none', () => {
    assert.equal(patternSlot('lock:{m1}:f'), keySlot('lock:{m1}:f'));
    assert.equal(patternSlot('lock:{m1}:*'), keySlot('m1'));
    assert.equal(patternSlot('x\\*y'), keySlot('x*y'));
    assert.equal(patternSlot('lock:*'), null);
    assert.equal(patternSlot('lock:{m*}:f'), null);
    assert.equal(patternSlot('*{m1}'), null);
    assert.equal(patternSlot('lock:{}:*'), null);
    assert.deepEqual(literalPrefix('a\\[b[c]'), { prefix: 'a[b', exact: false });
  });
});

describe('cluster through the library', function () {
  this.timeout(60_000);
  const fx = useCluster(['--cluster-require-full-coverage', 'no']);
  // One seed: a new client must learn the other masters itself.
  const url = (): string => `redis+cluster://${seedOf(fx.masters[0])}`;

  it('the first call of a new Redlock waits for the cluster and succeeds, every time', async () => {
    for (let i = 0; i < 12; i++) {
      const rl = new Redlock([url()]);
      try {
        const lock = await rl.acquire(`lock:first:${i}`, 10_000);
        assert.equal((await rl.release(lock)).nodes[0].outcome, 'released');
      } finally {
        await rl.quit();
      }
    }
  });

  it('a silent master stays listed as unreachable and inspectPage names it in unread', async () => {
    const paused = fx.masters[2];
    let key = '';
    for (let i = 0; !key; i++) if ((await clusterOwner(fx.masters[0], `lock:{p${i}}:x`)) === paused.port) key = `lock:{p${i}}:x`;
    const rl = new Redlock([url()], { readTimeoutMs: 500 });
    try {
      const lock = await rl.acquire(key, 30_000);
      assert.deepEqual((await lock.settled).map((n) => n.node), [`127.0.0.1:${paused.port}`]);
      paused.pause();
      const page = await rl.inspectPage({ patterns: [key] });
      assert.equal(page.snapshot.nodes.length, 3);
      assert.equal(page.snapshot.nodes.find((n) => n.node === `127.0.0.1:${paused.port}`)?.reachable, false);
      assert.deepEqual(page.unread, [`127.0.0.1:${paused.port}`]);
      assert.deepEqual(page.snapshot.skipped, [{ key, reason: 'unreachable' }]);
      const elsewhere = await rl.inspectPage({ patterns: ['nothing:{q}:*'] });
      const qOwner = await clusterOwner(fx.masters[0], 'q');
      assert.deepEqual(elsewhere.unread, qOwner === paused.port ? [`127.0.0.1:${paused.port}`] : []);
      paused.resume();
      await waitFor(async () => (await rl.inspectPage({ patterns: [key] })).unread.length === 0, 20_000, 'master back');
      assert.equal((await rl.release(lock)).nodes[0].outcome, 'released');
    } finally {
      paused.resume();
      await rl.quit();
    }
  });
});
