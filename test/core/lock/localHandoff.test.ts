import assert from 'node:assert/strict';
import { Redlock, RedlockError } from '../../../src/core';
import { useNodes } from '../../support/nodesFixture';
import { RedisServer } from '../../../src/dev/redisServer';

/** Lock writes (SET and script calls: EVAL on a connection's first use, EVALSHA after) a node has served since its stats were reset. */
async function lockWrites(server: RedisServer): Promise<number> {
  const c = server.client();
  try {
    const stats = await c.info('commandstats');
    const calls = (cmd: string): number => Number(new RegExp(`cmdstat_${cmd}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
    return calls('set') + calls('eval') + calls('evalsha');
  } finally {
    c.disconnect();
  }
}

async function resetStats(servers: readonly RedisServer[]): Promise<void> {
  await Promise.all(servers.map(async (s) => {
    const c = s.client();
    await c.config('RESETSTAT');
    c.disconnect();
  }));
}

describe('handoff between the calls of one Redlock (3 real nodes)', function () {
  // A retry delay far beyond the test's timeout: only a release can wake a retry.
  const fx = useNodes(3, { retryJitterMs: 0, retryDelayMs: 600_000 });

  it('a release wakes a retry of the same instance sleeping out its delay', async () => {
    const held = await fx.rl.acquire('lock:handoff', 30_000);
    let refused!: () => void;
    const firstRefusal = new Promise<void>((resolve) => (refused = resolve));
    const waiting = fx.rl.acquire('lock:handoff', 30_000, { retryCount: 1, onAttempt: () => refused() });
    await firstRefusal;
    await fx.rl.release(held);
    const next = await waiting;
    assert.notEqual(next.token, held.token);
    await fx.rl.release(next);
  });

  it('a retry while a lock of the same instance holds the resource asks no node; the last attempt does, naming every holder', async () => {
    const rl = new Redlock(fx.servers.map((s) => s.url), { retryJitterMs: 0, retryDelayMs: 10 });
    try {
      const held = await rl.acquire('lock:held-here', 30_000);
      await resetStats(fx.servers);
      const err = await rl.acquire('lock:held-here', 30_000, { retryCount: 4 }).then(
        () => assert.fail('acquired a held lock'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof RedlockError);
      assert.equal(err.attempts, 5);
      assert.deepEqual(err.nodes.map((n) => n.outcome), ['held-by-other', 'held-by-other', 'held-by-other']);
      // Each node saw the first attempt (SET NX), the release listing the waiter, the last
      // attempt and the release unlisting it: 4 writes; the three retries between sent none.
      for (const s of fx.servers) assert.equal(await lockWrites(s), 4);
      await rl.release(held);
    } finally {
      await rl.quit();
    }
  });
});
