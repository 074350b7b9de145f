import { performance } from 'node:perf_hooks';
import assert from 'node:assert/strict';
import { Redlock, RedlockError } from '../../../src/core';
import { useNodes } from '../../support/nodesFixture';
import { RedisServer } from '../../../src/dev/redisServer';
import { waitFor } from '../../support/wait';
import { commandCalls } from '../../support/commandCounts';
import { LocalHandoff } from '../../../src/core/lock/localHandoff';
import { internalKeyOf } from '../../../src/core/bookkeeping/internalKeys';

const nextTurn = (): Promise<void> => new Promise((r) => setImmediate(r));

/** Lock writes (SET and script calls: EVAL on a connection's first use, EVALSHA after) a node has served since its stats were reset. */
async function lockWrites(server: RedisServer): Promise<number> {
  const calls = await commandCalls(server);
  return (calls.get('set') ?? 0) + (calls.get('eval') ?? 0) + (calls.get('evalsha') ?? 0);
}

/** Live entries of a resource's waiter set on one node. */
async function listedOn(server: RedisServer, resource: string): Promise<number> {
  const c = server.client();
  try {
    return await c.zcount(internalKeyOf('waiters', resource)!, String(Date.now()), '+inf');
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

  it('a new call for a key this instance hands down a line faster than the delay joins it without a round; releases bring it the lock', async () => {
    await fx.rl.release(await fx.rl.acquire('lock:warm-up', 1000));
    const first = await fx.rl.acquire('lock:line', 30_000);
    // Three calls queue behind it, each after its first attempt was refused on the nodes.
    const queued: Array<ReturnType<Redlock['acquire']>> = [];
    for (let i = 0; i < 3; i++) {
      let refused!: () => void;
      const refusal = new Promise<void>((resolve) => (refused = resolve));
      queued.push(fx.rl.acquire('lock:line', 30_000, { retryCount: 5, onAttempt: () => refused() }));
      await refusal;
    }
    await nextTurn();
    // Two handoffs give the line its pace; the second leaves the key handed to a queued call.
    await fx.rl.release(first);
    await fx.rl.release(await queued[0]);
    const held = await queued[1];
    await resetStats(fx.servers);
    let got = false;
    const joined = fx.rl.acquire('lock:line', 30_000, { retryCount: 5 }).then((l) => ((got = true), l));
    // Its round would only be refused: no node sees a write from it while the line moves.
    // (A round would have been sent in this turn: the connections are ready.)
    await nextTurn();
    for (const s of fx.servers) assert.equal(await lockWrites(s), 0);
    assert.equal(got, false);
    // Behind the last queued call: two releases, not its 600 s delay, bring it the lock.
    await fx.rl.release(held);
    await fx.rl.release(await queued[2]);
    const next = await joined;
    assert.notEqual(next.token, held.token);
    await fx.rl.release(next);
  });

  it('a call that joined the line is listed as a waiter by its first round, once its delay runs out before its turn', async () => {
    // A joined call has made no attempt yet; its first (a grant-or-list) lists it
    // (docs/decisions.md, "Lock round costs").
    const rl = new Redlock(fx.servers.map((s) => s.url), { retryJitterMs: 0, retryDelayMs: 1000 });
    const waits: Array<Promise<unknown>> = [];
    // A failed assertion must not leave calls retrying for 100 s.
    const stop = new AbortController();
    try {
      await rl.release(await rl.acquire('lock:warm-up', 1000));
      const first = await rl.acquire('lock:slow-line', 30_000);
      const queued: Array<ReturnType<Redlock['acquire']>> = [];
      for (let i = 0; i < 3; i++) {
        let refused!: () => void;
        const refusal = new Promise<void>((resolve) => (refused = resolve));
        queued.push(rl.acquire('lock:slow-line', 30_000, { retryCount: 100, signal: stop.signal, onAttempt: () => refused() }));
        await refusal;
      }
      waits.push(...queued);
      await rl.release(first);
      await rl.release(await queued[0]);
      const held = await queued[1];
      const listed = async (n: number): Promise<boolean> => (await Promise.all(fx.servers.map((s) => listedOn(s, 'lock:slow-line')))).every((x) => x === n);
      await waitFor(() => listed(1), 5000, 'the last queued call listed on every node');
      await resetStats(fx.servers);
      const started = performance.now();
      const joined = rl.acquire('lock:slow-line', 30_000, { retryCount: 100, signal: stop.signal });
      waits.push(joined);
      await nextTurn();
      for (const s of fx.servers) assert.equal(await lockWrites(s), 0, 'joined without a round');
      // Nobody releases: its 1 s delay runs out and its first round lists it.
      await waitFor(() => listed(2), 5000, 'the joined call listed on every node');
      assert.ok(performance.now() - started >= 900, 'listed by the round after its delay, not before');
      await rl.release(held);
      await rl.release(await queued[2]);
      await rl.release(await joined);
    } finally {
      stop.abort();
      await Promise.allSettled(waits);
      await rl.quit();
    }
  });

  it('a retry while a lock of the same instance holds the resource asks no node; the last attempt does, naming every holder', async () => {
    const rl = new Redlock(fx.servers.map((s) => s.url), { retryJitterMs: 0, retryDelayMs: 10 });
    try {
      // A first write may go out once a quorum's capability probes answered; the warm-up
      // write lets every node's probe (its script counts as an EVAL) land before counting.
      await rl.release(await rl.acquire('lock:warm-up', 1000));
      const held = await rl.acquire('lock:held-here', 30_000);
      await resetStats(fx.servers);
      const err = await rl.acquire('lock:held-here', 30_000, { retryCount: 4 }).then(
        () => assert.fail('acquired a held lock'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof RedlockError);
      assert.equal(err.attempts, 5);
      assert.deepEqual(err.nodes.map((n) => n.outcome), ['held-by-other', 'held-by-other', 'held-by-other']);
      // Each node saw the first attempt (its refusal listing the waiter in the same script:
      // the instance knew a lock of its own held the key), the last attempt and the release
      // unlisting it: 3 writes; the three retries between sent none.
      for (const s of fx.servers) assert.equal(await lockWrites(s), 3);
      await rl.release(held);
    } finally {
      await rl.quit();
    }
  });
});

describe('a skipped retry rests on something still true (3 real nodes, retryCount 200, retryDelayMs 25)', function () {
  const fx = useNodes(3, {});
  const options = { retryJitterMs: 5, retryDelayMs: 25 };
  let holderRl: Redlock;
  let other: Redlock;
  beforeEach(() => {
    holderRl = new Redlock(fx.servers.map((s) => s.url), options);
    other = new Redlock(fx.servers.map((s) => s.url), options);
  });
  afterEach(async () => {
    await Promise.all([holderRl.quit(), other.quit()]);
  });

  /** A waiter of `holderRl`'s own instance, listed on the nodes (so it may skip rounds). */
  async function listedWaiter(key: string, ttlMs = 30_000): Promise<{ held: Awaited<ReturnType<Redlock['acquire']>>; waiting: Promise<Awaited<ReturnType<Redlock['acquire']>>> }> {
    const held = await holderRl.acquire(key, ttlMs);
    const waiting = holderRl.acquire(key, 30_000, { retryCount: 200 });
    await waitFor(async () => ((await other.inspect()).locks.find((l) => l.key === key)?.waiters?.length ?? 0) > 0, 5000, 'the waiter listed');
    return { held, waiting };
  }

  it('released through another Redlock instance: the waiter gets the lock at once, not on its last attempt', async () => {
    const { held, waiting } = await listedWaiter('lock:via-other');
    const t0 = Date.now();
    await other.release(held);
    const next = await waiting;
    const ms = Date.now() - t0;
    assert.notEqual(next.token, held.token);
    assert.ok(ms < 1000, `got it ${ms} ms after the release`);
    await holderRl.release(next);
  });

  it('force-released by an operator: the waiter gets the lock within a node check, not on its last attempt', async () => {
    const { held, waiting } = await listedWaiter('lock:forced');
    const entry = (await other.inspect()).locks.find((l) => l.key === 'lock:forced')!;
    const t0 = Date.now();
    const r = await other.forceRelease('lock:forced', entry.nodes);
    assert.ok(r.nodes.filter((n) => n.outcome === 'deleted').length >= 2, JSON.stringify(r));
    const next = await waiting;
    const ms = Date.now() - t0;
    assert.notEqual(next.token, held.token);
    assert.ok(ms < 1000, `got it ${ms} ms after the force-release`);
    await holderRl.release(next);
  });

  it('expiry: the waiter gets the lock soon after the holder\'s TTL runs out', async () => {
    const { held, waiting } = await listedWaiter('lock:expires', 700);
    const next = await waiting;
    const late = Date.now() - held.expiration;
    assert.notEqual(next.token, held.token);
    assert.ok(late < 1000, `got it ${late} ms after the holder's validity ended`);
    await holderRl.release(next);
  });
});

describe('LocalHandoff: who joins the line', function () {
  /** Busy for `ms`: the time between two releases is what is under test, not a wait for something. */
  const spin = (ms: number): void => {
    const end = performance.now() + ms;
    while (performance.now() < end);
  };

  it('a new call joins only while releases hand the key down faster than its retry delay would', () => {
    const h = new LocalHandoff();
    const one = { keys: ['k'], rawToken: 'one' };
    h.hold(one.keys, one, performance.now() + 60_000);
    const [a, b, c] = [h.waiter(['k']), h.waiter(['k']), h.waiter(['k'])];
    // Held here, but the line has no pace yet: a new call makes its round.
    assert.equal(h.joinsLine(['k'], 1e9), false);
    h.releasedLock(one);
    a.done();
    spin(5);
    const two = { keys: ['k'], rawToken: 'two' };
    h.hold(two.keys, two, performance.now() + 60_000);
    h.releasedLock(two);
    // Handed to b, c behind it: a new call is third in line, at one handoff per >= 5 ms.
    assert.equal(h.joinsLine(['k'], 1e9), true);
    assert.equal(h.joinsLine(['k'], 14), false);
    // Another key is not in line at all.
    assert.equal(h.joinsLine(['other'], 1e9), false);
    b.done();
    c.done();
    // The line is gone with its last call: so is its pace.
    assert.equal(h.joinsLine(['k'], 1e9), false);
  });
});
