import assert from 'node:assert/strict';
import Redis from 'ioredis';
import { Redlock, RedlockError, Lock } from '../../../src/core';
import { resetNodes } from '../../support/nodesFixture';
import { RedisServer, startNodes } from '../../../src/dev/redisServer';
import { waitFor, elapsedSince } from '../../support/wait';

async function keyOn(servers: RedisServer[], key: string): Promise<Array<string | null>> {
  return Promise.all(
    servers.map(async (s) => {
      const c = s.client();
      try {
        return await c.get(key);
      } finally {
        c.disconnect();
      }
    }),
  );
}

async function setOn(servers: RedisServer[], key: string, value: string, px = 60_000): Promise<void> {
  await Promise.all(
    servers.map(async (s) => {
      const c = s.client();
      await c.set(key, value, 'PX', px);
      c.disconnect();
    }),
  );
}

describe('Redlock on 5 real nodes', function () {
  let servers: RedisServer[];
  let redlock: Redlock;
  const opened: Redlock[] = [];
  const make = (options = {}, which = servers): Redlock => {
    const r = new Redlock(which.map((s) => s.url), { commandTimeoutMs: 200, ...options });
    opened.push(r);
    return r;
  };

  before(async () => {
    servers = await startNodes(5);
  });
  beforeEach(async () => {
    await Promise.all(servers.map(async (s) => {
      if (!s.running) await s.restart();
      s.resume();
    }));
    redlock = make();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((r) => r.quit()));
    await resetNodes(servers);
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.dispose()));
  });

  it('acquires on all nodes with a 32-hex token and a positive validity, and releases', async () => {
    const lock = await redlock.acquire('lock:basic', 10_000);
    assert.match(lock.token, /^[0-9a-f]{32}\.[0-9a-z]+\.[A-Za-z0-9_-]+$/);
    assert.ok(lock.validityMs > 9_000 && lock.validityMs <= 10_000);
    await waitFor(async () => (await keyOn(servers, 'lock:basic')).every((v) => v === lock.token), 2000, 'all copies');
    const r = await redlock.release(lock);
    assert.ok(r.nodes.every((n) => n.outcome === 'released' || n.outcome === 'pending'));
    assert.deepEqual((await r.settled).map((n) => n.outcome), ['released', 'released', 'released', 'released', 'released']);
    assert.deepEqual(await keyOn(servers, 'lock:basic'), [null, null, null, null, null]);
  });

  it('a Redlock used right after construction waits for its connections', async () => {
    const fresh = make();
    const lock = await fresh.acquire('lock:fresh', 5000);
    assert.equal((await lock.settled).filter((a) => a.outcome === 'granted').length, 5);
  });

  it('still holds a quorum with 1 and then 2 of 5 nodes stopped', async () => {
    await servers[0].stop();
    const a = await redlock.acquire('lock:q1', 5000);
    await redlock.release(a);
    await servers[1].stop();
    const b = await redlock.acquire('lock:q2', 5000);
    const nodes = await b.settled;
    assert.deepEqual(nodes.map((n) => n.outcome), ['refused', 'refused', 'granted', 'granted', 'granted']);
    const r = await redlock.release(b);
    assert.deepEqual((await r.settled).map((n) => n.outcome), ['unreachable', 'unreachable', 'released', 'released', 'released']);
  });

  it('refuses with 3 of 5 stopped, explaining every node, and leaves no key behind', async () => {
    await Promise.all([servers[0].stop(), servers[1].stop(), servers[2].stop()]);
    const err = await redlock.acquire('lock:q3', 5000).then(() => null, (e: unknown) => e);
    assert.ok(err instanceof RedlockError, String(err));
    assert.equal(err.nodes.length, 5);
    assert.deepEqual(err.nodes.map((n) => n.outcome), ['refused', 'refused', 'refused', 'granted', 'granted']);
    assert.equal(err.unreachable, true);
    assert.match(err.message, /2 of 5 nodes granted, 3 needed/);
    assert.doesNotMatch(err.message, /quorum not achieved/i);
    assert.deepEqual((await keyOn(servers.slice(3), 'lock:q3')), [null, null]);
  });

  it('a failed acquire leaves no key on the nodes that answered', async () => {
    await setOn(servers.slice(0, 3), 'lock:taken', 'other-token');
    const err = await redlock.acquire('lock:taken', 5000).then(() => null, (e: unknown) => e);
    assert.ok(err instanceof RedlockError);
    assert.equal(err.unreachable, false);
    assert.deepEqual(err.nodes.map((n) => n.outcome), ['held-by-other', 'held-by-other', 'held-by-other', 'granted', 'granted']);
    assert.equal(err.nodes[0].heldBy, 'other-token');
    assert.deepEqual(await keyOn(servers, 'lock:taken'), ['other-token', 'other-token', 'other-token', null, null]);
  });

  it('a SIGSTOPped node makes neither acquire nor release wait past the per-node deadline', async () => {
    const deadline = 300;
    const rl = make({ commandTimeoutMs: deadline });
    await rl.acquire('lock:warm', 1000).then((l) => rl.release(l));
    servers[4].pause();
    const t0 = process.hrtime.bigint();
    const lock = await rl.acquire('lock:paused', 10_000);
    const acquireMs = elapsedSince(t0);
    const t1 = process.hrtime.bigint();
    const r = await rl.release(lock);
    const releaseMs = elapsedSince(t1);
    assert.ok(acquireMs < deadline, `acquire took ${acquireMs} ms`);
    assert.ok(releaseMs < deadline * 2, `release took ${releaseMs} ms`);
    // Certain once a quorum released: the paused node is still pending, settled has it.
    assert.equal(r.nodes[4].outcome, 'pending');
    assert.ok(r.nodes.filter((n) => n.outcome === 'released').length >= rl.quorum);
    const final = await r.settled;
    assert.equal(final[4].outcome, 'unreachable');
    assert.match(final[4].reason ?? '', /no answer within 300 ms/);
    assert.deepEqual(final.slice(0, 4).map((n) => n.outcome), ['released', 'released', 'released', 'released']);
  });

  it('release resolves at a quorum; settled and quit() wait for the paused node to answer', async () => {
    const rl = new Redlock(servers.map((s) => s.url), { commandTimeoutMs: 5000 });
    await rl.acquire('lock:warm', 1000).then((l) => rl.release(l));
    const lock = await rl.acquire('lock:pending', 10_000);
    servers[4].pause();
    try {
      const r = await rl.release(lock);
      assert.equal(r.nodes[4].outcome, 'pending');
      assert.ok(r.nodes.filter((n) => n.outcome === 'released').length >= rl.quorum);
      let quit = false;
      const quitting = rl.quit().then(() => (quit = true));
      let settled = false;
      void r.settled.then(() => (settled = true));
      // quit() must not close the paused node's connection under the release in flight.
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(settled, false);
      assert.equal(quit, false);
      servers[4].resume();
      const final = await r.settled;
      assert.deepEqual(final.map((n) => n.outcome), ['released', 'released', 'released', 'released', 'released']);
      await quitting;
    } finally {
      servers[4].resume();
    }
    assert.deepEqual(await keyOn(servers, 'lock:pending'), [null, null, null, null, null]);
  });

  it('a timed-out SET on a paused node never comes back as a ghost lock', async () => {
    const rl = make({ commandTimeoutMs: 100 });
    await rl.acquire('lock:warm', 1000).then((l) => rl.release(l));
    for (const s of servers.slice(0, 3)) s.pause();
    const err = await rl.acquire('lock:ghost', 30_000).then(() => null, (e: unknown) => e);
    assert.ok(err instanceof RedlockError);
    assert.deepEqual(err.nodes.slice(0, 3).map((n) => n.outcome), ['timeout', 'timeout', 'timeout']);
    for (const s of servers.slice(0, 3)) s.resume();
    // Queued commands run in order when the node resumes: the SET, then our release.
    await Promise.all(rl.nodes.slice(0, 3).map((n) => waitFor(() => (n.client as import('ioredis').default).ping().then(() => true, () => false), 5000, 'resumed node')));
    assert.deepEqual(await keyOn(servers, 'lock:ghost'), [null, null, null, null, null]);
  });

  it('refuses when the elapsed time eats the whole validity', async () => {
    // The per-node deadline is above the TTL so only the validity check can refuse.
    const rl = make({ commandTimeoutMs: 3000 });
    await rl.acquire('lock:warm', 1000).then((l) => rl.release(l));
    const sleepers = servers.slice(0, 3).map((s) => s.client());
    await Promise.all(sleepers.map((c) => c.ping()));
    const sleeping = sleepers.map((c) => c.call('DEBUG', 'SLEEP', '0.4'));
    const err = await rl.acquire('lock:slow', 300).then(() => null, (e: unknown) => e);
    await Promise.all(sleeping);
    sleepers.forEach((c) => c.disconnect());
    assert.ok(err instanceof RedlockError, String(err));
    assert.match(err.message, /validity used up/);
    assert.deepEqual(await keyOn(servers, 'lock:slow'), [null, null, null, null, null]);
  });

  it('extend after expiry fails promptly; release of an expired lock answers at once', async () => {
    const lock = await redlock.acquire('lock:short', 100);
    await waitFor(async () => (await keyOn(servers, 'lock:short')).every((v) => v === null), 3000, 'expiry');
    const t0 = process.hrtime.bigint();
    const err = await redlock.extend(lock, 5000).then(() => null, (e: unknown) => e);
    assert.ok(elapsedSince(t0) < 200);
    assert.ok(err instanceof RedlockError);
    assert.deepEqual(err.nodes.map((n) => n.outcome), ['not-held', 'not-held', 'not-held', 'not-held', 'not-held']);
    const t1 = process.hrtime.bigint();
    const r = await redlock.release(lock);
    assert.ok(elapsedSince(t1) < 200);
    assert.deepEqual((await r.settled).map((n) => n.outcome), ['not-held', 'not-held', 'not-held', 'not-held', 'not-held']);
  });

  it('extend sets the new TTL and returns a new lock; a foreign holder refuses it', async () => {
    const lock = await redlock.acquire('lock:ext', 2000);
    const longer = await redlock.extend(lock, 60_000);
    assert.notEqual(longer, lock);
    assert.equal(longer.token, lock.token);
    assert.ok(longer.validityMs > 50_000);
    const c = servers[0].client();
    assert.ok((await c.pttl('lock:ext')) > 50_000);
    await setOn(servers.slice(0, 3), 'lock:ext', 'thief');
    const err = await redlock.extend(longer, 60_000).then(() => null, (e: unknown) => e);
    assert.ok(err instanceof RedlockError);
    assert.deepEqual(err.nodes.map((n) => n.outcome), ['held-by-other', 'held-by-other', 'held-by-other', 'granted', 'granted']);
    assert.equal(err.nodes[0].heldBy, 'thief');
    c.disconnect();
  });

  it('multi-resource locks are all-or-nothing on each node', async () => {
    await setOn([servers[0]], 'lock:m2', 'x');
    const lock = await redlock.acquire(['lock:m1', 'lock:m2'], 5000);
    const nodes = await lock.settled;
    assert.equal(nodes[0].outcome, 'held-by-other');
    assert.equal(nodes[0].heldBy, 'x');
    assert.deepEqual(await keyOn(servers, 'lock:m1'), [null, lock.token, lock.token, lock.token, lock.token]);
    await redlock.release(lock);
    assert.deepEqual(await keyOn(servers, 'lock:m2'), ['x', null, null, null, null]);
  });

  it('names a key of another type as wrong-type', async () => {
    const c = servers[0].client();
    await c.hset('lock:hash', 'f', '1');
    c.disconnect();
    const lock = await redlock.acquire('lock:hash', 5000);
    assert.equal((await lock.settled)[0].outcome, 'wrong-type');
    await redlock.release(lock);
  });

  it('16 contending clients on one resource never have two holders', async function () {
    this.timeout(60_000);
    const clients = Array.from({ length: 16 }, () => make({ retryCount: 1000, retryDelayMs: 5, retryJitterMs: 10 }));
    let holders = 0;
    let maxHolders = 0;
    let acquisitions = 0;
    const until = Date.now() + 3000;
    await Promise.all(
      clients.map(async (rl) => {
        while (Date.now() < until) {
          const lock = await rl.acquire('lock:contended', 2000);
          holders++;
          maxHolders = Math.max(maxHolders, holders);
          acquisitions++;
          await new Promise((r) => setImmediate(r));
          holders--;
          await rl.release(lock);
        }
      }),
    );
    assert.equal(maxHolders, 1);
    assert.ok(acquisitions > 16, `only ${acquisitions} acquisitions`);
  });

  it('forceRelease deletes only where the observed token is still there', async () => {
    await setOn(servers, 'lock:force', 'old-holder');
    const observed = servers.map((s, i) => ({ node: redlock.nodes[i].id, token: 'old-holder' }));
    await setOn([servers[1]], 'lock:force', 'new-holder');
    const c = servers[3].client();
    await c.del('lock:force');
    c.disconnect();
    const r = await redlock.forceRelease('lock:force', observed);
    assert.deepEqual(r.nodes.map((n) => n.outcome), ['deleted', 'changed', 'deleted', 'absent', 'deleted']);
    assert.deepEqual(await keyOn(servers, 'lock:force'), [null, 'new-holder', null, null, null]);
  });

  it('forceRelease reports a node that was unreachable in the snapshot as unreachable, not absent', async () => {
    await setOn(servers, 'lock:force-down', 'holder');
    await servers[4].stop();
    const entry = (await redlock.inspect({ patterns: ['lock:force-down'] })).locks[0];
    assert.equal(entry.nodes[4].state, 'unreachable');
    const r = await redlock.forceRelease('lock:force-down', entry.nodes);
    assert.deepEqual(r.nodes.map((n) => n.outcome), ['deleted', 'deleted', 'deleted', 'deleted', 'unreachable']);
    assert.ok(r.nodes[4].reason, 'the unreachable node carries its reason');
  });

  it('forceRelease matches Redisson-shaped hashes and semaphores by their holder set', async () => {
    const c = servers[0].client();
    await c.hset('lock:rhash', 'mode', 'read', 'b:2', '1', 'a:1', '2');
    await c.zadd('semaphore:s', 1, 'h2', 2, 'h1');
    await c.hset('lock:rhash2', 'u:1', '1', 'u:2', '1');
    const rl = make({}, [servers[0]]);
    const node = rl.nodes[0].id;
    assert.equal((await rl.forceRelease('lock:rhash', [{ node, token: 'a:1,b:2' }])).nodes[0].outcome, 'deleted');
    assert.equal((await rl.forceRelease('semaphore:s', [{ node, token: 'h1,h2' }])).nodes[0].outcome, 'deleted');
    assert.equal((await rl.forceRelease('lock:rhash2', [{ node, token: 'u:1' }])).nodes[0].outcome, 'changed');
    assert.equal(await c.exists('lock:rhash', 'semaphore:s', 'lock:rhash2'), 1);
    c.disconnect();
  });

  it('using() extends past the TTL and aborts when the node set loses its quorum', async function () {
    this.timeout(20_000);
    const rl = make({ commandTimeoutMs: 100 });
    let sawAbort: unknown;
    const result = await rl.using('lock:lease', 600, async (signal) => {
      // Held across several TTLs: the automatic extension keeps every copy alive.
      const probe = servers[0].client();
      const started = Date.now();
      while (Date.now() - started < 1500) {
        assert.ok((await probe.pttl('lock:lease')) > 0, 'the lease lapsed while held');
        await new Promise((r) => setTimeout(r, 20));
      }
      probe.disconnect();
      assert.equal(signal.aborted, false);
      assert.ok((await keyOn(servers, 'lock:lease')).every((v) => v !== null));
      await Promise.all([servers[0].stop(), servers[1].stop(), servers[2].stop()]);
      await waitFor(() => signal.aborted, 3000, 'abort');
      sawAbort = signal.reason;
      return 'done';
    });
    assert.equal(result, 'done');
    assert.ok(sawAbort instanceof Error);
  });

  it('works with N = 1, 3 and 7', async function () {
    this.timeout(20_000);
    const extra = await startNodes(2);
    try {
      for (const set of [servers.slice(0, 1), servers.slice(0, 3), [...servers, ...extra]]) {
        const rl = make({}, set);
        assert.equal(rl.quorum, Math.floor(set.length / 2) + 1);
        const lock = await rl.acquire('lock:n', 5000);
        assert.equal((await lock.settled).filter((a) => a.outcome === 'granted').length, set.length);
        const r = await rl.release(lock);
        assert.ok((await r.settled).every((n) => n.outcome === 'released'));
      }
    } finally {
      await Promise.all(extra.map((s) => s.dispose()));
    }
  });

  it('rejects bad TTLs and empty resources before touching any node', async () => {
    for (const ttl of [0, -1, 1.5, 2 ** 31, Number.NaN]) {
      await assert.rejects(redlock.acquire('lock:x', ttl), /invalid TTL/);
    }
    await assert.rejects(redlock.acquire('', 1000), /empty resource/);
    await assert.rejects(redlock.acquire([], 1000), /no resource/);
  });

  it('never shows a password; a wrong one is reported as auth', async () => {
    const secured = await RedisServer.start({ args: ['--requirepass', 'right-pass'] });
    try {
      const ok = new Redlock([`redis://:right-pass@127.0.0.1:${secured.port}`], { commandTimeoutMs: 200 });
      opened.push(ok);
      await ok.release(await ok.acquire('lock:auth', 1000));
      assert.ok(!String(ok.nodes[0]).includes('right-pass'));
      assert.ok(!JSON.stringify(ok.nodes[0]).includes('right-pass'));
      const bad = new Redlock([`redis://:wrong-pass@127.0.0.1:${secured.port}`], { commandTimeoutMs: 200, connectTimeoutMs: 500 });
      opened.push(bad);
      const err = await bad.acquire('lock:auth', 1000).then(() => null, (e: unknown) => e);
      assert.ok(err instanceof RedlockError, String(err));
      assert.equal(err.nodes[0].outcome, 'auth');
      assert.ok(!err.message.includes('wrong-pass'));
    } finally {
      await secured.dispose();
    }
  });

  it('passes no Lock between unrelated instances by accident', () => {
    assert.equal(typeof Lock, 'function');
  });
});

// Our locks and node-redlock's on the same key exclude each other, both ways.
const NodeRedlockV4 = require('redlock');
const NodeRedlockV5 = require('redlock5').default;

describe('interop with node-redlock (npm redlock)', () => {
  let servers: RedisServer[];
  let clients: Redis[];
  let ours: Redlock;

  before(async () => {
    servers = await startNodes(3);
    clients = servers.map((s) => s.client());
    ours = new Redlock(servers.map((s) => s.url), { commandTimeoutMs: 300 });
  });
  after(async () => {
    await ours.quit();
    clients.forEach((c) => c.disconnect());
    await Promise.all(servers.map((s) => s.dispose()));
  });

  it('v4: its lock refuses ours, and ours refuses its', async () => {
    const theirs = new NodeRedlockV4(clients, { retryCount: 0 });
    const held = await theirs.lock('lock:interop4', 10_000);
    const err = await ours.acquire('lock:interop4', 10_000).then(() => null, (e: unknown) => e);
    assert.ok(err instanceof RedlockError);
    assert.ok(err.nodes.every((n) => n.outcome === 'held-by-other' && n.heldBy === held.value));
    await held.unlock();

    const mine = await ours.acquire('lock:interop4', 10_000);
    await assert.rejects(theirs.lock('lock:interop4', 10_000));
    await ours.release(mine);
    const again = await theirs.lock('lock:interop4', 10_000);
    await again.unlock();
  });

  it('v5: its lock refuses ours, and ours refuses its', async () => {
    const theirs = new NodeRedlockV5(clients, { retryCount: 0 });
    const held = await theirs.acquire(['lock:interop5'], 10_000);
    // v5 resolves once a quorum granted; its last node may still be writing (its first
    // EVALSHA on a fresh node draws NOSCRIPT, then EVAL): wait until every node voted.
    await Promise.all(held.attempts);
    const err = await ours.acquire('lock:interop5', 10_000).then(() => null, (e: unknown) => e);
    assert.ok(err instanceof RedlockError);
    assert.ok(err.nodes.every((n) => n.outcome === 'held-by-other' && n.heldBy === held.value));
    await held.release();

    const mine = await ours.acquire('lock:interop5', 10_000);
    await assert.rejects(theirs.acquire(['lock:interop5'], 10_000));
    await ours.release(mine);
    const again = await theirs.acquire(['lock:interop5'], 10_000);
    await again.release();
  });
});
