import assert from 'node:assert/strict';
import { RedlockError } from '../../../src/core';
import { useNodes } from '../../support/nodesFixture';
import { RedisServer } from '../../../src/dev/redisServer';
import { waitFor } from '../../support/wait';

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
  const fx = useNodes(3, { commandTimeoutMs: 200 });

  it('await using releases the lock when the scope ends', async () => {
    let token = '';
    {
      await using lock = await fx.rl.acquire('lock:scoped', 30_000);
      token = lock.token;
      assert.deepEqual(await valuesOf(fx.servers, 'lock:scoped'), [token, token, token]);
    }
    assert.deepEqual(await valuesOf(fx.servers, 'lock:scoped'), [null, null, null]);
  });

  it('await using releases when the scope throws, and the error is the one thrown', async () => {
    const boom = new Error('work failed');
    const run = async (): Promise<void> => {
      await using lock = await fx.rl.acquire('lock:throws', 30_000);
      assert.equal((await valuesOf(fx.servers, 'lock:throws'))[0], lock.token);
      throw boom;
    };
    await assert.rejects(run(), (e) => e === boom);
    assert.deepEqual(await valuesOf(fx.servers, 'lock:throws'), [null, null, null]);
  });

  it('an extended lock disposes too, and disposing both releases once and never throws', async () => {
    {
      await using first = await fx.rl.acquire('lock:ext', 5000);
      await using longer = await fx.rl.extend(first, 30_000);
      assert.equal(longer.token, first.token);
    }
    assert.deepEqual(await valuesOf(fx.servers, 'lock:ext'), [null, null, null]);
  });

  it('a lock that expired before the scope ended disposes quietly; release resolves not-held', async () => {
    const lock = await fx.rl.acquire('lock:gone', 100);
    await waitFor(async () => (await valuesOf(fx.servers, 'lock:gone')).every((v) => v === null), 5000, 'expiry');
    {
      await using held = lock;
      assert.equal(held.remainingMs, 0);
    }
    const r = await fx.rl.release(lock);
    assert.deepEqual((await r.settled).map((n) => n.outcome), ['not-held', 'not-held', 'not-held']);
  });

  it('releasing twice resolves not-held the second time and leaves a new holder alone', async () => {
    const lock = await fx.rl.acquire('lock:twice', 30_000);
    assert.deepEqual((await (await fx.rl.release(lock)).settled).map((n) => n.outcome), ['released', 'released', 'released']);
    const other = await fx.rl.acquire('lock:twice', 30_000);
    const again = await fx.rl.release(lock);
    assert.deepEqual((await again.settled).map((n) => n.outcome), ['not-held', 'not-held', 'not-held']);
    assert.deepEqual(await valuesOf(fx.servers, 'lock:twice'), [other.token, other.token, other.token]);
    await fx.rl.release(other);
  });

  it('disposing after quit() resolves (every node unreachable) instead of rejecting', async () => {
    const lock = await fx.rl.acquire('lock:after-quit', 30_000);
    await fx.rl.quit();
    await lock[Symbol.asyncDispose]();
    const r = await fx.rl.release(lock);
    assert.deepEqual((await r.settled).map((n) => n.outcome), ['unreachable', 'unreachable', 'unreachable']);
  });

  it('a lock built from a shown token (lockFor) disposes by compare-and-delete on that token', async () => {
    const held = await fx.rl.acquire('lock:foreign', 30_000);
    {
      await using _foreign = fx.rl.lockFor('lock:foreign', held.token);
    }
    assert.deepEqual(await valuesOf(fx.servers, 'lock:foreign'), [null, null, null]);
    {
      await using _stale = fx.rl.lockFor('lock:foreign', 'not-the-token');
    }
  });

  it('remainingMs is a whole number of ms, never above validityMs nor below 0', async () => {
    const lock = await fx.rl.acquire('lock:remaining', 30_000);
    for (let i = 0; i < 5; i++) {
      const left = lock.remainingMs;
      assert.ok(Number.isInteger(left), `integer, got ${left}`);
      assert.ok(left >= 0 && left <= lock.validityMs, `${left} within 0..${lock.validityMs}`);
      await Promise.resolve();
    }
    await fx.rl.release(lock);
  });

  it('a failed acquire has nothing to dispose: the error surfaces from acquire itself', async () => {
    const holder = await fx.rl.acquire('lock:taken', 30_000);
    const run = async (): Promise<void> => {
      await using _lock = await fx.rl.acquire('lock:taken', 30_000);
    };
    await assert.rejects(run(), RedlockError);
    assert.deepEqual(await valuesOf(fx.servers, 'lock:taken'), [holder.token, holder.token, holder.token]);
  });
});
