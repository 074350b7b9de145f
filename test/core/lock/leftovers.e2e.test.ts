// Leave nothing behind: after a load run of acquire+release on 5 nodes (sequential, 64
// workers on their own resources, 16 contenders on one resource with retries) and quit(),
// no key of ours is left on any node, counted at once, without waiting for a TTL.
import assert from 'node:assert/strict';
import { Redlock } from '../../../src/core';
import { RedisServer, startNodes, withClient } from '../../../src/dev/redisServer';

describe('no leftover keys after a load run', function () {
  this.timeout(60_000);
  let servers: RedisServer[];

  before(async () => {
    servers = await startNodes(5);
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.dispose()));
  });

  it('sequential, 64 workers and 16 contenders, then quit(): 0 keys on every node', async () => {
    const rl = new Redlock(servers.map((s) => s.url), { retryCount: 1_000_000, retryDelayMs: 5, retryJitterMs: 5 });
    const phase = (ms: number): (() => boolean) => {
      const end = Date.now() + ms;
      return () => Date.now() < end;
    };
    let ops = 0;
    let holders = 0;
    let overlaps = 0;
    try {
      let go = phase(1000);
      while (go()) {
        await rl.release(await rl.acquire('load:seq', 10_000));
        ops++;
      }
      go = phase(1000);
      await Promise.all(Array.from({ length: 64 }, async (_, w) => {
        while (go()) {
          await rl.release(await rl.acquire(`load:w${w}`, 10_000));
          ops++;
        }
      }));
      go = phase(1500);
      await Promise.all(Array.from({ length: 16 }, async () => {
        while (go()) {
          const lock = await rl.acquire('load:hot', 10_000);
          if (++holders > 1) overlaps++;
          await new Promise((r) => setImmediate(r));
          holders--;
          await rl.release(lock);
          ops++;
        }
      }));
    } finally {
      await rl.quit();
    }
    assert.ok(ops > 0);
    assert.equal(overlaps, 0);
    // Named, not counted: a failure says which key stayed and where.
    const left = await Promise.all(servers.map((s) => withClient(s, async (c) => {
      const names: string[] = [];
      let cursor = '0';
      do {
        const [next, keys] = await c.scan(cursor, 'COUNT', 1000);
        names.push(...keys);
        cursor = next;
      } while (cursor !== '0');
      return names;
    })));
    assert.deepEqual(left, [[], [], [], [], []], 'keys left on the nodes');
    // Every script went out as EVAL on its connection's first use, then EVALSHA: a
    // NOSCRIPT answer means a fallback EVAL sent later, behind commands written after it
    // (an attempt's grant landing after the undo that was meant to follow it).
    const noscript = await Promise.all(servers.map((s) => withClient(s, async (c) => /errorstat_NOSCRIPT:count=(\d+)/.exec(String(await c.info('errorstats')))?.[1] ?? '0')));
    assert.deepEqual(noscript, ['0', '0', '0', '0', '0'], 'NOSCRIPT answers per node');
  });
});
