// The tick's grants and releases on one node in one script call (writeBatch.ts): each
// caller gets its own answer, the writes land in the order they were made, and any other
// lock write lands after them.
import assert from 'node:assert/strict';
import { lockRounds } from '../../../src/core/connection/nodes';
import { AT_ONCE_PER_TICK, fencedGrantOn, grantOn, MAX_BATCH_WRITES, releaseOn } from '../../../src/core/lock/writeBatch';
import { Redlock } from '../../../src/core';
import { RedisServer, startNodes, withClient } from '../../../src/dev/redisServer';
import { commandCalls } from '../../support/commandCounts';

/** Script calls (EVAL and EVALSHA) and SETs, plain or inside scripts, a node has run. */
async function calls(server: RedisServer): Promise<{ scripts: number; sets: number }> {
  const n = await commandCalls(server);
  return { scripts: (n.get('eval') ?? 0) + (n.get('evalsha') ?? 0), sets: n.get('set') ?? 0 };
}

/** Runs `fn` as if another lock round were undecided: the writes it makes may be held for the tick. */
async function whileOthersDecide<T>(fn: () => Promise<T>): Promise<T> {
  lockRounds.undecided++;
  try {
    return await fn();
  } finally {
    lockRounds.undecided--;
  }
}

/** The tick's first callers on `c`, whose writes go out at once: what comes after them is held. */
function leading(c: Parameters<typeof grantOn>[0]): Array<Promise<unknown>> {
  return Array.from({ length: AT_ONCE_PER_TICK }, (_, i) => grantOn(c, `b:lead:${i}:${Math.random()}`, 'lead', '60000'));
}

describe('writeBatch', function () {
  this.timeout(30_000);
  let servers: RedisServer[];

  before(async () => {
    servers = await startNodes(3);
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.dispose()));
  });

  it("a tick's grants and releases: after its first callers, one script call, each caller with its own answer, in the order made", async () => {
    await withClient(servers[0], async (c) => {
      await c.set('b:held', 'other', 'PX', 60_000);
      await c.hset('b:hash', 'f', 'v');
      await c.set('b:mine', 'tok-m', 'PX', 60_000);
      const before = await calls(servers[0]);
      const answers = await whileOthersDecide(() =>
        Promise.all([
          ...leading(c),
          // Granted, released and granted again in the one call: only the order makes these three answers.
          grantOn(c, 'b:again', 'first', '60000'),
          releaseOn(c, ['b:again'], 'first'),
          grantOn(c, 'b:again', 'second', '60000'),
          grantOn(c, 'b:a', 'tok-a', '60000'),
          grantOn(c, 'b:held', 'tok-b', '60000'),
          releaseOn(c, ['b:mine', 'b:hash'], 'tok-m'),
          releaseOn(c, ['b:held'], 'not-the-holder'),
        ]),
      );
      assert.deepEqual(answers.slice(AT_ONCE_PER_TICK), ['OK', 1, 'OK', 'OK', null, 1, 0]);
      const after = await calls(servers[0]);
      assert.equal(after.scripts - before.scripts, 1, 'one script call for the held writes');
      assert.equal(after.sets - before.sets, AT_ONCE_PER_TICK + 4, 'the leading SETs at once, four inside the script');
      assert.deepEqual(await c.mget('b:a', 'b:held', 'b:mine', 'b:again'), ['tok-a', 'other', null, 'second']);
      assert.equal(await c.hget('b:hash', 'f'), 'v', 'a key of another type is not ours: left alone');
      const ttl = await c.pttl('b:a');
      assert.ok(ttl > 50_000 && ttl <= 60_000, `the grant's PX: ${ttl}`);
    });
  });

  it('fenced grants in one batch: a fence increment the node refuses fails that write alone', async () => {
    await withClient(servers[0], async (c) => {
      await c.hset('b:counter-hash', 'f', 'v');
      await c.set('b:counter', '41');
      const answers = (
        await whileOthersDecide(() =>
          Promise.allSettled([...leading(c), ...fencedGrantOn(c, 'b:counter', 'b:f1', 't1', '60000'), ...fencedGrantOn(c, 'b:counter', 'b:f2', 't2', '60000'), ...fencedGrantOn(c, 'b:counter-hash', 'b:f3', 't3', '60000')]),
        )
      ).slice(AT_ONCE_PER_TICK);
      assert.deepEqual(answers.slice(0, 4), [
        { status: 'fulfilled', value: 42 },
        { status: 'fulfilled', value: 'OK' },
        { status: 'fulfilled', value: 43 },
        { status: 'fulfilled', value: 'OK' },
      ]);
      assert.equal(answers[4].status, 'rejected');
      assert.match(String((answers[4] as PromiseRejectedResult).reason), /WRONGTYPE/);
      // The grant beside a refused increment still ran: fencing.ts takes such a grant back.
      assert.deepEqual(answers[5], { status: 'fulfilled', value: 'OK' });
    });
  });

  it('a write made while a batch is held joins it, even once no other round is undecided', async () => {
    await withClient(servers[1], async (c) => {
      await c.ping();
      lockRounds.undecided++;
      const lead = leading(c);
      const first = grantOn(c, 'b:join', 'one', '60000');
      const released = releaseOn(c, ['b:join'], 'one');
      lockRounds.undecided--;
      // Sent at once, this grant would reach the node before the release held for the tick, and be refused.
      const again = grantOn(c, 'b:join', 'two', '60000');
      await Promise.all(lead);
      assert.deepEqual(await Promise.all([first, released, again]), ['OK', 1, 'OK']);
      assert.equal(await c.get('b:join'), 'two');
    });
  });

  it('a lone caller writes at once, with the plain command', async () => {
    await withClient(servers[0], async (c) => {
      await c.ping();
      const before = await calls(servers[0]);
      assert.equal(await grantOn(c, 'b:lone', 'tok', '60000'), 'OK');
      assert.equal(await releaseOn(c, ['b:lone'], 'tok'), 1);
      const after = await calls(servers[0]);
      assert.deepEqual({ scripts: after.scripts - before.scripts, sets: after.sets - before.sets }, { scripts: 1, sets: 1 }, 'a SET, then the release script');
    });
  });

  it('past the batch bound a tick takes more calls, and every write is answered', async () => {
    // The leading writes at once, then 256 in one call and the rest in another.
    await withClient(servers[1], async (c) => {
      await c.ping();
      const n = AT_ONCE_PER_TICK + MAX_BATCH_WRITES + 10;
      const before = await calls(servers[1]);
      const granted = await whileOthersDecide(() => Promise.all(Array.from({ length: n }, (_, i) => grantOn(c, `b:many:${i}`, `t${i}`, '60000'))));
      assert.equal(granted.filter((g) => g === 'OK').length, n);
      assert.equal((await calls(servers[1])).scripts - before.scripts, 2);
      const released = await whileOthersDecide(() => Promise.all(Array.from({ length: n }, (_, i) => releaseOn(c, [`b:many:${i}`], `t${i}`))));
      assert.equal(released.filter((r) => r === 1).length, n);
      assert.equal(await c.exists(Array.from({ length: n }, (_, i) => `b:many:${i}`)), 0);
    });
  });

  it('a node that forgot the script: the held grants fail there and write nothing, the held releases are sent again', async () => {
    await withClient(servers[2], async (c) => {
      await c.ping();
      // Warm: this connection has sent the batch script's text.
      await whileOthersDecide(() => Promise.all([...leading(c), grantOn(c, 'b:warm', 'w', '60000'), grantOn(c, 'b:warm2', 'w', '60000')]));
      await c.set('b:mine2', 'tok', 'PX', 60_000);
      await c.script('FLUSH');
      const [grant, release] = (await whileOthersDecide(() => Promise.allSettled([...leading(c), grantOn(c, 'b:new', 'tok', '60000'), releaseOn(c, ['b:mine2'], 'tok')]))).slice(AT_ONCE_PER_TICK);
      assert.equal(grant.status, 'rejected');
      assert.match(String((grant as PromiseRejectedResult).reason), /NOSCRIPT/);
      assert.deepEqual(release, { status: 'fulfilled', value: 1 });
      assert.equal(await c.exists('b:new', 'b:mine2'), 0);
    });
  });

  it('a Redlock: a release held for the tick lands before an extend made after it in the same tick', async () => {
    const rl = new Redlock(servers.map((s) => s.url), { commandTimeoutMs: 1000 });
    try {
      const lock = await rl.acquire('b:order', 60_000);
      // Other rounds in flight, and a write before it on each connection in this tick, so
      // the release is held for the tick; the extend, a round of its own, must not
      // overtake it on any node.
      const others = Array.from({ length: AT_ONCE_PER_TICK + 1 }, (_, i) => rl.acquire(`b:other${i}`, 60_000));
      const released = rl.release(lock);
      const extended = rl.extend(lock, 60_000);
      await assert.rejects(extended, /extend/);
      assert.ok((await (await released).settled).every((n) => n.outcome === 'released'));
      for (const l of await Promise.all(others)) await rl.release(l);
      for (const s of servers) {
        await withClient(s, async (c) => assert.equal(await c.exists('b:order', ...Array.from({ length: AT_ONCE_PER_TICK + 1 }, (_, i) => `b:other${i}`)), 0, `${s.url}: nothing left`));
      }
    } finally {
      await rl.quit();
    }
  });

  it('a Redlock: 64 callers at once each hold their own lock once, in far fewer calls than writes', async () => {
    const rl = new Redlock(servers.map((s) => s.url), { commandTimeoutMs: 1000 });
    try {
      await rl.release(await rl.acquire('b:warm-rl', 10_000));
      const before = await Promise.all(servers.map(calls));
      const locks = await Promise.all(Array.from({ length: 64 }, (_, i) => rl.acquire(`b:w:${i}`, 10_000)));
      assert.equal(new Set(locks.map((l) => l.token)).size, 64);
      const results = await Promise.all(locks.map((l) => rl.release(l)));
      const settled = await Promise.all(results.map((r) => r.settled));
      assert.ok(settled.every((nodes) => nodes.every((n) => n.outcome === 'released')));
      const after = await Promise.all(servers.map(calls));
      servers.forEach((_, i) => {
        // 64 grants and 64 releases on each node: each grant ran once (plain or in a
        // script), and the writes of a tick left together instead of one script per release.
        assert.equal(after[i].sets - before[i].sets, 64, `node ${i}: grants`);
        const scripts = after[i].scripts - before[i].scripts;
        assert.ok(scripts < 16, `node ${i}: ${scripts} script calls for 64 grants and 64 releases`);
      });
      for (const s of servers) {
        await withClient(s, async (c) => assert.equal(await c.exists(Array.from({ length: 64 }, (_, i) => `b:w:${i}`)), 0));
      }
    } finally {
      await rl.quit();
    }
  });
});
