// Other libraries' locks under the default patterns: real locks taken with the installed
// Node libraries (@sesamecare-oss/redlock, node-redlock's maintained fork; redis-semaphore), and the documented layouts of the ones
// that cannot run here (Redisson, DistributedLock, ShedLock, python-redis-lock), written
// by hand as their sources write them (docs/formats.md, "Their locks").
import assert from 'node:assert/strict';
import Redis from 'ioredis';
import { Redlock as NodeRedlock } from '@sesamecare-oss/redlock';
import { Mutex, Semaphore } from 'redis-semaphore';
import { createLock, createLockValueWithMetadata, IoredisAdapter } from 'redlock-universal';
import { useNodes } from '../../support/nodesFixture';
import type { LockEntry, Snapshot } from '../../../src/core';

const UUID = '0f6c2a58-3c1e-4b57-9d7a-5a0d8e1c9b21';
const OTHER = '7d1e9f02-1111-4a2b-8c3d-222222222222';

describe('their locks: found, one row each, holders decoded', () => {
  const fx = useNodes(1, { commandTimeoutMs: 500, readTimeoutMs: 500 });
  let c: Redis;
  beforeEach(() => {
    c = new Redis(fx.servers[0].url);
  });
  afterEach(() => c.disconnect());

  const lockOf = (s: Snapshot, key: string): LockEntry => {
    const l = s.locks.find((x) => x.key === key);
    assert.ok(l, `${key} not in ${s.locks.map((x) => x.key).join(', ')}`);
    return l;
  };

  it('the default patterns find Redisson names in any case, mutex:* and semaphore:* of redis-semaphore', async () => {
    await c.hset('myLock', `${UUID}:53`, '1');
    await c.pexpire('myLock', 30_000);
    const mutex = new Mutex(c, 'orders', { lockTimeout: 30_000 });
    await mutex.acquire();
    const sem = new Semaphore(c, 'pool', 2, { lockTimeout: 30_000 });
    const sem2 = new Semaphore(c, 'pool', 2, { lockTimeout: 30_000 });
    await sem.acquire();
    await sem2.acquire();
    try {
      const s = await fx.rl.inspect();
      assert.deepEqual(s.locks.map((l) => l.key).sort(), ['mutex:orders', 'myLock', 'semaphore:pool']);
      assert.deepEqual(lockOf(s, 'myLock').holder, { name: null, host: null, pid: null, since: null, thread: 53, library: 'redisson' });
      const pool = lockOf(s, 'semaphore:pool');
      // holders keeps its meaning (token -> node count); owners lists one entry per permit.
      assert.equal(Object.keys(pool.holders).length, 1);
      assert.equal(pool.owners?.length, 2);
      assert.deepEqual(pool.owners!.map((o) => o.token).join(','), Object.keys(pool.holders)[0]);
    } finally {
      await mutex.release();
      await sem.release();
      await sem2.release();
    }
  });

  it('Redisson bookkeeping attaches: fair-lock waiters with deadlines, the fence counter; never a row of its own', async () => {
    const deadline = Date.now() + 60_000;
    await c.hset('myLock', `${UUID}:53`, '1');
    await c.pexpire('myLock', 30_000);
    await c.rpush('redisson_lock_queue:{myLock}', `${OTHER}:7`);
    await c.zadd('redisson_lock_timeout:{myLock}', deadline, `${OTHER}:7`);
    await c.set('redisson_lock_token:{myLock}', '12');
    await c.set(`{myLock}:${UUID}:53:rwlock_timeout:1`, '1', 'PX', 30_000);
    await c.set('redisson_unlock_latch:{myLock}:abc', '1', 'PX', 30_000);
    const s = await fx.rl.inspect();
    assert.deepEqual(s.locks.map((l) => l.key), ['myLock']);
    const l = lockOf(s, 'myLock');
    assert.equal(l.fence, 12);
    assert.deepEqual(l.waiters, [{ name: null, host: null, pid: null, since: null, thread: 7, deadline, library: 'redisson' }]);
    assert.deepEqual(l.flags, []);
    assert.deepEqual(s.skipped, []);
  });

  it('a bookkeeping key whose lock is gone is skipped as orphaned, also when the pattern misses the lock name', async () => {
    await c.set('redisson_lock_token:{jobs}', '3');
    await c.set('lock-signal:report', '1');
    await c.hset('jobs-held', `${UUID}:1`, '1');
    await c.set('redisson_lock_token:{orders}', '4');
    await c.hset('orders', `${UUID}:9`, '1');
    await c.pexpire('orders', 30_000);
    const s = await fx.rl.inspect();
    // `orders` does not match the patterns: read by name because its counter did, and shown.
    assert.deepEqual(s.locks.map((l) => [l.key, l.fence]), [['orders', 4]]);
    assert.deepEqual(s.skipped, [
      { key: 'lock-signal:report', reason: 'orphaned', of: 'lock:report' },
      { key: 'redisson_lock_token:{jobs}', reason: 'orphaned', of: 'jobs' },
    ]);
  });

  it('holders decoded from DistributedLock, ShedLock and redlock-universal values; look-alikes are not', async () => {
    await c.set('lock:dl', 'WEB-01_4242_0123456789abcdef0123456789abcdef', 'PX', 30_000);
    await c.set('job-lock:prod:report', 'ADDED:2026-11-25T21:00:00.123Z@app-7', 'PX', 30_000);
    await c.set('lock:ru', 'worker-3:1764104400000:0123456789abcdef', 'PX', 30_000);
    await c.set('lock:looks', 'ADDED:yesterday@app-7', 'PX', 30_000);
    const s = await fx.rl.inspect();
    assert.deepEqual(lockOf(s, 'lock:dl').holder, { name: null, host: 'WEB-01', pid: 4242, since: null, thread: null, library: 'DistributedLock' });
    assert.deepEqual(lockOf(s, 'job-lock:prod:report').holder, { name: null, host: 'app-7', pid: null, since: Date.parse('2026-11-25T21:00:00.123Z'), thread: null, library: 'ShedLock' });
    assert.deepEqual(lockOf(s, 'lock:ru').holder, { name: 'worker-3', host: null, pid: null, since: 1764104400000, thread: null, library: 'redlock-universal' });
    assert.equal(lockOf(s, 'lock:looks').holder, null);
  });

  it('redlock-universal: a real lock is one row with its token; its metadata value names the node and instant', async () => {
    // redlock-universal asks for Node 22 (EBADENGINE on 20); what it writes works here.
    const handle = await createLock({ adapter: new IoredisAdapter(c), key: 'lock:ru-real', ttl: 30_000 }).acquire();
    const value = createLockValueWithMetadata('worker-9');
    await c.set('lock:ru-meta', value, 'PX', 30_000);
    const s = await fx.rl.inspect();
    const real = lockOf(s, 'lock:ru-real');
    assert.deepEqual(Object.keys(real.holders), [handle.value]);
    assert.equal(real.holder, null);
    const meta = lockOf(s, 'lock:ru-meta').holder!;
    assert.equal(meta.name, 'worker-9');
    assert.equal(meta.library, 'redlock-universal');
    assert.equal(meta.since, Number(value.split(':')[1]));
  });

  it('a Redisson read lock lists one owner per reader, with its thread; its timeouts are no rows', async () => {
    await c.hset('rw-lock', 'mode', 'read', `${UUID}:3`, '1', `${OTHER}:4`, '2');
    await c.pexpire('rw-lock', 30_000);
    await c.set(`{rw-lock}:${UUID}:3:rwlock_timeout:1`, '1', 'PX', 30_000);
    await c.set(`{rw-lock}:${OTHER}:4:rwlock_timeout:2`, '1', 'PX', 30_000);
    const s = await fx.rl.inspect();
    assert.deepEqual(s.locks.map((l) => l.key), ['rw-lock']);
    assert.deepEqual(lockOf(s, 'rw-lock').owners!.map((o) => [o.token, o.holder?.thread, o.holder?.library]), [[`${UUID}:3`, 3, 'redisson'], [`${OTHER}:4`, 4, 'redisson']]);
  });

  it('--fail-on no-ttl material: healthy Redisson locks carry no no-ttl row', async () => {
    await c.hset('a-lock', `${UUID}:1`, '1');
    await c.pexpire('a-lock', 30_000);
    await c.zadd('redisson_lock_timeout:{a-lock}', Date.now() + 5_000, `${OTHER}:2`);
    await c.set('redisson_lock_token:{a-lock}', '1');
    const s = await fx.rl.inspect();
    assert.equal(s.locks.filter((l) => l.flags.includes('no-ttl')).length, 0);
  });

  it('discover finds node-redlock keys under any name and groups them into patterns', async () => {
    const nr = new NodeRedlock([c], { retryCount: 0 });
    const held = await Promise.all([nr.acquire(['orders:42'], 30_000), nr.acquire(['orders:43'], 30_000)]);
    await c.hset('myJob', `${UUID}:5`, '1');
    await c.pexpire('myJob', 30_000);
    for (let i = 0; i < 50; i++) await c.set(`cache:${i}`, `value ${i}`, 'PX', 60_000);
    try {
      const d = await fx.rl.discover();
      assert.equal(d.complete, true);
      assert.equal(d.keyspace, 53);
      assert.equal(d.scanned, 53);
      assert.deepEqual(d.patterns, [
        { pattern: 'orders:*', count: 2, library: 'node-redlock, redlock-universal or redis-py', examples: ['orders:42', 'orders:43'] },
        { pattern: 'myJob', count: 1, library: 'redisson', examples: ['myJob'] },
      ]);
    } finally {
      await Promise.all(held.map((h) => h.release()));
    }
  });

  it('discover stops at its key budget and says the walk is incomplete', async () => {
    const pipe = c.pipeline();
    for (let i = 0; i < 5000; i++) pipe.set(`k:${i}`, 'x');
    await pipe.exec();
    const d = await fx.rl.discover({ budgetKeys: 1000 });
    assert.equal(d.complete, false);
    assert.equal(d.keyspace, 5000);
    assert.ok(d.scanned >= 1000 && d.scanned < 5000, String(d.scanned));
  });
});
