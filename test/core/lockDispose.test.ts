import assert from 'node:assert/strict';
import { Redlock, RedlockError } from '../../src/core';
import { RedisServer, startNodes } from '../support/redisServer';
import { waitFor } from '../support/wait';

async function valuesOf(servers: RedisServer[], key: string): Promise<Array<string | null>> {
  return Promise.all(servers.map(async (s) => {
    const c = s.client();
    try {
      return await c.get(key);
    } finally {
      c.disconnect();
    }
  }));
}

describe('Lock: await using, remainingMs, release of a gone lock (3 real nodes)', function () {
  let servers: RedisServer[];
  let redlock: Redlock;

  before(async () => {
    servers = await startNodes(3);
  });
  beforeEach(() => {
    redlock = new Redlock(servers.map((s) => s.url), { commandTimeoutMs: 200 });
  });
  afterEach(async () => {
    await redlock.quit();
    await Promise.all(servers.map(async (s) => {
      const c = s.client();
      await c.flushall();
      c.disconnect();
    }));
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.dispose()));
  });

  it('await using releases the lock when the scope ends', async () => {
    let token = '';
    {
      await using lock = await redlock.acquire('lock:scoped', 30_000);
      token = lock.token;
      assert.deepEqual(await valuesOf(servers, 'lock:scoped'), [token, token, token]);
    }
    assert.deepEqual(await valuesOf(servers, 'lock:scoped'), [null, null, null]);
  });

  it('await using releases when the scope throws, and the error is the one thrown', async () => {
    const boom = new Error('work failed');
    const run = async (): Promise<void> => {
      await using lock = await redlock.acquire('lock:throws', 30_000);
      assert.equal((await valuesOf(servers, 'lock:throws'))[0], lock.token);
      throw boom;
    };
    await assert.rejects(run(), (e) => e === boom);
    assert.deepEqual(await valuesOf(servers, 'lock:throws'), [null, null, null]);
  });

  it('an extended lock disposes too, and disposing both releases once and never throws', async () => {
    {
      await using first = await redlock.acquire('lock:ext', 5000);
      await using longer = await redlock.extend(first, 30_000);
      assert.equal(longer.token, first.token);
    }
    assert.deepEqual(await valuesOf(servers, 'lock:ext'), [null, null, null]);
  });

  it('a lock that expired before the scope ended disposes quietly; release resolves not-held', async () => {
    const lock = await redlock.acquire('lock:gone', 100);
    await waitFor(async () => (await valuesOf(servers, 'lock:gone')).every((v) => v === null), 5000, 'expiry');
    {
      await using held = lock;
      assert.equal(held.remainingMs, 0);
    }
    const r = await redlock.release(lock);
    assert.deepEqual((await r.settled).map((n) => n.outcome), ['not-held', 'not-held', 'not-held']);
  });

  it('releasing twice resolves not-held the second time and leaves a new holder alone', async () => {
    const lock = await redlock.acquire('lock:twice', 30_000);
    assert.deepEqual((await (await redlock.release(lock)).settled).map((n) => n.outcome), ['released', 'released', 'released']);
    const other = await redlock.acquire('lock:twice', 30_000);
    const again = await redlock.release(lock);
    assert.deepEqual((await again.settled).map((n) => n.outcome), ['not-held', 'not-held', 'not-held']);
    assert.deepEqual(await valuesOf(servers, 'lock:twice'), [other.token, other.token, other.token]);
    await redlock.release(other);
  });

  it('disposing after quit() resolves (every node unreachable) instead of rejecting', async () => {
    const lock = await redlock.acquire('lock:after-quit', 30_000);
    await redlock.quit();
    await lock[Symbol.asyncDispose]();
    const r = await redlock.release(lock);
    assert.deepEqual((await r.settled).map((n) => n.outcome), ['unreachable', 'unreachable', 'unreachable']);
  });

  it('a lock built from a shown token (lockFor) disposes by compare-and-delete on that token', async () => {
    const held = await redlock.acquire('lock:foreign', 30_000);
    {
      await using _foreign = redlock.lockFor('lock:foreign', held.token);
    }
    assert.deepEqual(await valuesOf(servers, 'lock:foreign'), [null, null, null]);
    {
      await using _stale = redlock.lockFor('lock:foreign', 'not-the-token');
    }
  });

  it('remainingMs is a whole number of ms, never above validityMs nor below 0', async () => {
    const lock = await redlock.acquire('lock:remaining', 30_000);
    for (let i = 0; i < 5; i++) {
      const left = lock.remainingMs;
      assert.ok(Number.isInteger(left), `integer, got ${left}`);
      assert.ok(left >= 0 && left <= lock.validityMs, `${left} within 0..${lock.validityMs}`);
      await Promise.resolve();
    }
    await redlock.release(lock);
  });

  it('a failed acquire has nothing to dispose: the error surfaces from acquire itself', async () => {
    const holder = await redlock.acquire('lock:taken', 30_000);
    const run = async (): Promise<void> => {
      await using _lock = await redlock.acquire('lock:taken', 30_000);
    };
    await assert.rejects(run(), RedlockError);
    assert.deepEqual(await valuesOf(servers, 'lock:taken'), [holder.token, holder.token, holder.token]);
  });
});
