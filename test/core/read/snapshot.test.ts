// inspectKey: one key by its name on every node, with the same stages as every snapshot.
import assert from 'node:assert/strict';
import Redis from 'ioredis';
import type { Snapshot } from '../../../src/core';
import { useNodes } from '../../support/nodesFixture';
import { scanCalls } from '../../support/commandCounts';

const UUID = '0f6c2a58-3c1e-4b57-9d7a-5a0d8e1c9b21';
const OTHER = '7d1e9f02-1111-4a2b-8c3d-222222222222';

/** Times by kind, as the differential test compares them (pipeline.test.ts). */
const timeless = (s: Snapshot): unknown => JSON.parse(JSON.stringify(s), (k, v: unknown) => (k === 'latencyMs' || k === 'pttlMs' || k === 'validityMs') && typeof v === 'number' && v > 0 ? 'time' : v);

describe('inspectKey: one key by its name', function () {
  const fx = useNodes(3, { commandTimeoutMs: 500, readTimeoutMs: 1000 });
  let c: Redis[];
  beforeEach(() => {
    c = fx.servers.map((s) => new Redis(s.url));
  });
  afterEach(() => c.forEach((x) => x.disconnect()));

  it('reads the key and its bookkeeping with no SCAN, and says what inspect() says of it', async () => {
    for (const x of c) {
      await x.hset('orders:7', `${UUID}:53`, '1');
      await x.pexpire('orders:7', 60_000);
      await x.zadd('redisson_lock_timeout:{orders:7}', Date.now() + 60_000, `${OTHER}:7`);
      await x.set('redisson_lock_token:{orders:7}', '5');
      // Another lock the pattern of one exact name must not bring along.
      await x.set('orders:70', 'token-70', 'PX', 60_000);
    }
    const scansBefore = await Promise.all(fx.servers.map((s) => scanCalls(s)));
    const one = await fx.rl.inspectKey('orders:7');
    assert.deepEqual(await Promise.all(fx.servers.map((s) => scanCalls(s))), scansBefore, 'no SCAN on any node');
    assert.equal(one.entry?.fence, 5);
    assert.equal(one.entry?.waiters?.length, 1);
    assert.equal(one.skipped, undefined);
    assert.deepEqual(one.snapshot.locks.map((l) => l.key), ['orders:7']);
    assert.deepEqual(timeless(one.snapshot), timeless(await fx.rl.inspect({ patterns: ['orders:7'] })));
  });

  it('a key that is no lock says why; a key nobody holds is neither', async () => {
    for (const x of c) await x.rpush('lock:list', 'a');
    const list = await fx.rl.inspectKey('lock:list');
    assert.equal(list.entry, undefined);
    assert.deepEqual(list.skipped, (await fx.rl.inspect({ patterns: ['lock:list'] })).skipped[0]);
    const none = await fx.rl.inspectKey('lock:nobody');
    assert.equal(none.entry, undefined);
    assert.equal(none.skipped, undefined);
    assert.ok(none.snapshot.nodes.every((n) => n.reachable));
  });

  it('a paused node is unreachable in the document, and the key is read on the others', async () => {
    const held = await fx.rl.acquire('lock:one', 60_000);
    await held.settled;
    fx.servers[2].pause();
    const one = await fx.rl.inspectKey('lock:one');
    assert.equal(one.entry?.verdict, 'held');
    assert.deepEqual(one.snapshot.nodes.map((n) => n.reachable), [true, true, false]);
    assert.ok(one.entry?.flags.includes('degraded'));
  });
});
