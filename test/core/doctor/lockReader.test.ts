// LockReader: every read over a node set, alone or beside a lock engine over the same
// connections, and no way to write.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { LockReader, Redlock } from '../../../src/core';
import { useNodes } from '../../support/nodesFixture';

const WRITES = ['acquire', 'extend', 'release', 'forceRelease', 'using', 'lockFor'];

/** Keyspace changes a node has seen (INFO stats rdb_changes_since_last_save counts every write). */
async function changesOn(fx: ReturnType<typeof useNodes>): Promise<number[]> {
  return Promise.all(fx.servers.map(async (s) => {
    const c = s.client();
    try {
      return Number(/rdb_changes_since_last_save:(\d+)/.exec(await c.info('persistence'))?.[1]);
    } finally {
      c.disconnect();
    }
  }));
}

describe('LockReader', function () {
  const fx = useNodes(3, { commandTimeoutMs: 500, readTimeoutMs: 1000 });

  it('reads on its own connections what the engine wrote, writes nothing, and closes them on quit()', async () => {
    const lock = await fx.rl.acquire('jobs:nightly', 30_000);
    const reader = new LockReader(fx.servers.map((s) => s.url), { readTimeoutMs: 1000 });
    try {
      const before = await changesOn(fx);
      const snap = await reader.inspect({ patterns: ['jobs:*'] });
      assert.deepEqual(snap.locks.map((l) => [l.key, l.verdict, { ...l.holders }]), [['jobs:nightly', 'held', { [lock.token]: 3 }]]);
      assert.equal((await reader.inspectKey('jobs:nightly')).entry?.verdict, 'held');
      assert.equal((await reader.doctor()).answered, 3);
      assert.deepEqual(await changesOn(fx), before, 'no node saw a write');
      for (const m of WRITES) assert.equal(m in reader, false, `a reader has no ${m}()`);
      assert.notEqual(reader.nodes[0].client, fx.rl.nodes[0].client, 'its own connections');
    } finally {
      await reader.quit();
    }
    // quit() ended every connection it opened: each client reaches `end` (the test's timeout bounds the wait).
    await Promise.all(reader.nodes.map((n) => (n.client.status === 'end' ? undefined : once(n.client, 'end'))));
    await fx.rl.release(lock);
  });

  it('as redlock.reader shares the engine\'s connections, and its quit() leaves them to the engine', async () => {
    const rl: Redlock = fx.rl;
    assert.equal(rl.reader.nodeSet, rl.nodeSet);
    const lock = await rl.acquire('jobs:hourly', 30_000);
    // The reads the engine always offered still answer, through its reader.
    assert.deepEqual((await rl.inspect({ patterns: ['jobs:*'] })).locks.map((l) => l.key), ['jobs:hourly']);
    await rl.reader.quit();
    assert.ok(rl.nodes.every((n) => n.client.status === 'ready'), 'the engine\'s connections stay open');
    assert.equal((await (await rl.release(lock)).settled).filter((n) => n.outcome === 'released').length, 3);
  });
});
