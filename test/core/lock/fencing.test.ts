import assert from 'node:assert/strict';
import { fencedWrite, fenceKeyOf, Lock, readFenced, Redlock, RedlockError, UnsupportedWriteError } from '../../../src/core';
import { RedisServer, startCluster, startNodes, withClient } from '../../../src/dev/redisServer';
import { waitFor } from '../../support/wait';
import { fencesOutOfOrder } from '../../chaos/chaos';

const counters = (servers: RedisServer[], resource: string): Promise<Array<string | null>> =>
  Promise.all(servers.map((s) => withClient(s, (c) => c.get(String(fenceKeyOf(resource))))));

/** The nodes that granted an acquisition (indexes into the configured set). */
async function grantedBy(lock: Lock): Promise<number[]> {
  const all = await lock.settled;
  return all.flatMap((a, i) => (a.outcome === 'granted' ? [i] : []));
}

describe('fencing tokens on real nodes', function () {
  this.timeout(60_000);
  let servers: RedisServer[];
  const opened: Redlock[] = [];
  const make = (which = servers.slice(0, 3), options = {}): Redlock => {
    const r = new Redlock(which.map((s) => s.url), { commandTimeoutMs: 150, ...options });
    opened.push(r);
    return r;
  };

  before(async () => {
    servers = await startNodes(5);
  });
  afterEach(async () => {
    for (const s of servers) s.resume();
    await Promise.all(opened.splice(0).map((r) => r.quit()));
    await Promise.all(servers.map((s) => withClient(s, (c) => c.flushall())));
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.dispose()));
  });

  it('hands out a positive fence that grows with every acquisition; counters never expire', async () => {
    const rl = make();
    const a = await rl.acquire('lock:f', 5000, { fencing: true });
    assert.ok(Number.isSafeInteger(a.fence) && a.fence! >= 1);
    assert.deepEqual(a.fences, [a.fence]);
    await rl.release(a);
    const b = await rl.acquire('lock:f', 5000, { fencing: true });
    assert.ok(b.fence! > a.fence!);
    await rl.release(b);
    assert.equal(String(fenceKeyOf('lock:f')), '__rli:fence:{lock:f}');
    assert.equal(String(fenceKeyOf('orders:{42}')), '__rli:fence:=orders:{42}');
    for (const s of servers.slice(0, 3)) {
      await withClient(s, async (c) => {
        assert.equal(await c.get('__rli:fence:{lock:f}'), String(b.fence));
        assert.equal(await c.pttl('__rli:fence:{lock:f}'), -1);
      });
    }
  });

  it('an unfenced acquisition has no fence and leaves the counters alone', async () => {
    const rl = make();
    const lock = await rl.acquire('lock:plain', 5000);
    assert.ok(!('fence' in lock) && !('fences' in lock), 'no fence property at all');
    await rl.release(lock);
    assert.deepEqual(await counters(servers.slice(0, 3), 'lock:plain'), [null, null, null]);
  });

  it('extend keeps the fence; using passes the lock with its fence', async () => {
    const rl = make();
    const lock = await rl.acquire('lock:ext', 2000, { fencing: true });
    const longer = await rl.extend(lock, 5000);
    assert.equal(longer.fence, lock.fence);
    await rl.release(longer);
    const seen = await rl.using('lock:ext', 2000, async (signal, held) => {
      assert.equal(signal.aborted, false);
      return held.fence;
    }, { fencing: true });
    assert.ok(seen! > lock.fence!);
    const unfenced = await rl.using('lock:ext', 2000, async (_signal, held) => held.fence);
    assert.equal(unfenced, undefined);
  });

  it('several resources: a wrong-type counter refuses before anything is written', async () => {
    const three = servers.slice(0, 3);
    const rl = make(three);
    await Promise.all(three.map((s) => withClient(s, (c) => c.rpush(String(fenceKeyOf('lock:mb')), 'x'))));
    const e = await rl.acquire(['lock:ma', 'lock:mb'], 5000, { fencing: true }).then(() => null, (x: unknown) => x);
    assert.ok(e instanceof RedlockError);
    assert.deepEqual(e.nodes.map((a) => a.outcome), ['wrong-type', 'wrong-type', 'wrong-type']);
    assert.match(e.nodes[0].reason ?? '', /fence counter of resource 2/);
    for (const s of three) assert.equal(await withClient(s, (c) => c.exists('lock:ma', 'lock:mb')), 0);
  });

  it('several resources: one fence per resource, in resource order; `fence` is undefined', async () => {
    const rl = make();
    const first = await rl.acquire('lock:m2', 5000, { fencing: true });
    await rl.release(first);
    const lock = await rl.acquire(['lock:m1', 'lock:m2'], 5000, { fencing: true });
    assert.ok(!('fence' in lock));
    assert.deepEqual(lock.fences, [1, first.fence! + 1]);
    await rl.release(lock);
  });

  it('the counterexample of three quorums: {a,b}, {a,c}, {b,c} give 1, 2, 3 (not 1, 2, 2)', async () => {
    const three = servers.slice(0, 3);
    const rl = make(three);
    const fences: number[] = [];
    for (const paused of [2, 1, 0]) {
      three[paused].pause();
      const lock = await rl.acquire('lock:ce', 5000, { fencing: true });
      fences.push(lock.fence!);
      assert.deepEqual(await grantedBy(lock), [0, 1, 2].filter((i) => i !== paused));
      await rl.release(lock);
      three[paused].resume();
      // A connection dropped during the pause comes back first, so no attempt fails and
      // burns a number (a failed attempt's increments are skipped, never reused).
      await waitFor(() => rl.nodes.every((n) => n.ready), 5000, 'connections back');
    }
    assert.deepEqual(fences, [1, 2, 3]);
  });

  for (const n of [3, 5]) {
    it(`two clients alternate over ${n} nodes while one node at a time is paused: fences strictly increase`, async () => {
      const set = servers.slice(0, n);
      const clients = [make(set), make(set)];
      const fences: number[] = [];
      const quorums = new Set<string>();
      for (let i = 0; i < 4 * n; i++) {
        const paused = set[i % n];
        paused.pause();
        try {
          const rl = clients[i % 2];
          const lock = await rl.acquire('lock:rot', 5000, { fencing: true, retryCount: 20 });
          fences.push(lock.fence!);
          quorums.add((await grantedBy(lock)).join(','));
          await rl.release(lock);
        } finally {
          paused.resume();
        }
      }
      for (let i = 1; i < fences.length; i++) assert.ok(fences[i] > fences[i - 1], `fence ${fences[i]} after ${fences[i - 1]} (${fences.join(', ')})`);
      assert.ok(quorums.size >= n, `granting quorums rotated: ${[...quorums].join(' | ')}`);
    });
  }

  it('a wrong-type counter is a per-node reason, and leaves no lock copy on that node', async () => {
    const three = servers.slice(0, 3);
    const rl = make(three);
    const counter = String(fenceKeyOf('lock:wt'));
    await withClient(three[0], (c) => c.rpush(counter, 'x'));
    const lock = await rl.acquire('lock:wt', 5000, { fencing: true });
    const settled = await lock.settled;
    assert.equal(settled[0].outcome, 'wrong-type');
    assert.match(settled[0].reason ?? '', /fence counter/);
    // The copy granted there is taken back right after the refused INCR.
    await waitFor(async () => (await withClient(three[0], (c) => c.exists('lock:wt'))) === 0, 2000, 'no copy on the refusing node');
    await rl.release(lock);

    await Promise.all(three.slice(1).map((s) => withClient(s, (c) => c.set(counter, 'not a number'))));
    const e = await rl.acquire('lock:wt', 5000, { fencing: true }).then(() => null, (x: unknown) => x);
    assert.ok(e instanceof RedlockError);
    assert.deepEqual(e.nodes.map((a) => a.outcome), ['wrong-type', 'refused', 'refused']);
    assert.match(e.message, /fence counter/);
    for (const s of three) assert.equal(await withClient(s, (c) => c.exists('lock:wt')), 0);
  });

  it('a user who may not touch the counters gets NOPERM per node, and the plain path still works', async () => {
    const three = servers.slice(0, 3);
    await Promise.all(three.map((s) => withClient(s, (c) => c.call('ACL', 'SETUSER', 'locksonly', 'on', '>pw', 'resetkeys', '~lock:*', '+@all'))));
    const rl = new Redlock(three.map((s) => `redis://locksonly:pw@127.0.0.1:${s.port}`), { commandTimeoutMs: 150 });
    opened.push(rl);
    const e = await rl.acquire('lock:acl', 5000, { fencing: true }).then(() => null, (x: unknown) => x);
    assert.ok(e instanceof RedlockError);
    for (const a of e.nodes) {
      assert.equal(a.outcome, 'refused');
      assert.match(a.reason ?? '', /NOPERM/);
    }
    for (const s of three) assert.equal(await withClient(s, (c) => c.exists('lock:acl')), 0);
    const plain = await rl.acquire('lock:acl', 5000);
    // A snapshot still reads the locks; the counters it may not read are simply none.
    const snap = await rl.inspect({ patterns: ['lock:*'] });
    assert.deepEqual(snap.nodes.map((n) => n.outcome), ['ok', 'ok', 'ok']);
    assert.deepEqual(snap.locks.map((l) => [l.key, l.verdict, l.fence]), [['lock:acl', 'held', null]]);
    await rl.release(plain);
    await Promise.all(three.map((s) => withClient(s, (c) => c.call('ACL', 'DELUSER', 'locksonly'))));
  });

  // A user who may not run scripts cannot raise fences, nor undo a partial grant: the
  // acquisition is refused before anything is written, naming each node (it used to write
  // SET/INCR and fail at the raise, leaving copies behind).
  it('a user without scripting: the fenced acquisition is refused before writing, naming each node', async () => {
    const three = servers.slice(0, 3);
    await withClient(three[0], (c) => c.set(String(fenceKeyOf('lock:ra')), '10'));
    await withClient(three[1], (c) => c.set(String(fenceKeyOf('lock:ra')), '20'));
    await Promise.all(three.map((s) => withClient(s, (c) => c.call('ACL', 'SETUSER', 'noscript', 'on', '>pw', '~*', '+@all', '-@scripting'))));
    const rl = new Redlock(three.map((s) => `redis://noscript:pw@127.0.0.1:${s.port}`), { commandTimeoutMs: 150 });
    opened.push(rl);
    const e = await rl.acquire('lock:ra', 2000, { fencing: true }).then(() => null, (x: unknown) => x);
    assert.ok(e instanceof UnsupportedWriteError, String(e));
    assert.equal(e.lines.length, 3, e.message);
    for (const s of three) assert.ok(e.lines.some((l) => l.startsWith(`127.0.0.1:${s.port}: this server (Redis 7.0.15) cannot run scripts`)), e.message);
    const left = await Promise.all(three.map((s) => withClient(s, (c) => c.exists('lock:ra'))));
    assert.deepEqual(left, [0, 0, 0], 'a refused acquisition wrote a copy');
    assert.deepEqual(await Promise.all(three.map((s) => withClient(s, (c) => c.get(String(fenceKeyOf('lock:ra')))))), ['10', '20', null], 'a refused acquisition raised a fence');
    await Promise.all(three.map((s) => withClient(s, (c) => c.call('ACL', 'DELUSER', 'noscript'))));
  });

  it('fencedWrite accepts equal or higher fences and refuses a lower one', async () => {
    await withClient(servers[0], async (c) => {
      assert.deepEqual(await fencedWrite(c, 'store', 33, 'from 33'), { written: true, lastFence: 0 });
      assert.deepEqual(await fencedWrite(c, 'store', 34, 'from 34'), { written: true, lastFence: 33 });
      assert.deepEqual(await fencedWrite(c, 'store', 33, 'late'), { written: false, lastFence: 34 });
      assert.deepEqual(await fencedWrite(c, 'store', 34, 'again'), { written: true, lastFence: 34 });
      assert.deepEqual(await readFenced(c, 'store'), { fence: 34, value: 'again' });
      assert.equal(await readFenced(c, 'nothing'), null);
      await assert.rejects(fencedWrite(c, 'store', 0, 'x'), RangeError);
      await assert.rejects(fencedWrite(c, 'store', 1.5, 'x'), RangeError);
    });
  });

  it('status shows the highest counter per lock, flags a fencing risk when fewer than Q nodes hold it, never lists counters', async () => {
    const five = servers;
    const rl = make(five);
    const lock = await rl.acquire('lock:st', 10_000, { fencing: true });
    await rl.acquire('lock:plainst', 10_000);
    await waitFor(async () => (await counters(five, 'lock:st')).filter((v) => v === String(lock.fence)).length >= 3, 2000, 'a quorum holds the fence');
    let snap = await rl.inspect({ patterns: ['*'] });
    assert.deepEqual(snap.locks.map((l) => l.key), ['lock:plainst', 'lock:st']);
    assert.deepEqual(snap.skipped, []);
    const st = snap.locks.find((l) => l.key === 'lock:st')!;
    assert.equal(st.fence, lock.fence);
    assert.equal(st.fenceRisk, false);
    assert.equal(snap.locks.find((l) => l.key === 'lock:plainst')!.fence, null);
    // Three of five nodes lose their counters (restarted without persistence).
    await Promise.all(five.slice(0, 3).map((s) => withClient(s, (c) => c.del(String(fenceKeyOf('lock:st'))))));
    snap = await rl.inspect({ patterns: ['*'] });
    const risky = snap.locks.find((l) => l.key === 'lock:st')!;
    assert.equal(risky.fence, lock.fence);
    assert.equal(risky.fenceRisk, true);
  });

  it('a one-node snapshot reads the counter beside any key name (own hash tag, stray braces, non-UTF-8 bytes); 16 digits or a wrong type is no counter', async () => {
    const rl = make([servers[0]]);
    const named: Array<[string | Buffer, string]> = [
      ['lock:plain', 'lock:plain'],
      ['orders:{42}', 'orders:{42}'],
      ['lock:{}{x}', 'lock:{}{x}'],
      ['lock:}{', 'lock:}{'],
      [Buffer.from([0x6c, 0xff, 0x7b, 0x01, 0x7d]), 'hex:6cff7b017d'],
    ];
    await withClient(servers[0], async (c) => {
      for (const [i, [k]] of named.entries()) {
        await c.set(k, `token-${i}`, 'PX', 60_000);
        await c.set(fenceKeyOf(k), String(100 + i));
      }
      await c.set('lock:long', 'token-long', 'PX', 60_000);
      await c.set(fenceKeyOf('lock:long'), '1234567890123456');
      await c.set('lock:wrong', 'token-wrong', 'PX', 60_000);
      await c.hset(fenceKeyOf('lock:wrong'), 'f', '1');
    });
    const snap = await rl.inspect({ patterns: ['*'] });
    const fences = Object.fromEntries(snap.locks.map((l) => [l.key, l.fence]));
    const want: Record<string, number | null> = { 'lock:long': null, 'lock:wrong': null };
    named.forEach(([, shown], i) => (want[shown] = 100 + i));
    assert.deepEqual(fences, want);
    assert.deepEqual(snap.skipped, []);
  });

  it('watch carries the fence: in the first snapshot, and as a change when a new holder gets a higher one', async () => {
    const rl = make();
    const first = await rl.acquire('lock:w', 10_000, { fencing: true });
    const seen: Array<[string, number | null]> = [];
    const watcher = rl.watch({ intervalMs: 100, patterns: ['lock:*'] }, {
      snapshot: (s) => s.locks.forEach((l) => seen.push([l.key, l.fence])),
      change: (c) => [...c.added, ...c.changed].forEach((l) => seen.push([l.key, l.fence])),
    });
    try {
      await waitFor(() => seen.length > 0, 5000, 'first snapshot');
      assert.deepEqual(seen[0], ['lock:w', first.fence]);
      await rl.release(first);
      // A longer TTL: the watch tells a new SET by its expiry jump.
      const second = await rl.acquire('lock:w', 30_000, { fencing: true });
      await waitFor(() => seen.some(([, f]) => f === second.fence), 5000, `the new fence ${second.fence} (seen ${JSON.stringify(seen)})`);
    } finally {
      await watcher.stop();
    }
  });

  it('the chaos run counts a fence that is not above an earlier one of the same resource', () => {
    const h = (resource: number, fence: number | undefined, start: number): { resource: number; fence?: number; start: number } => ({ resource, fence, start });
    assert.equal(fencesOutOfOrder([h(0, 1, 1), h(0, 2, 2), h(1, 1, 3), h(0, undefined, 4), h(0, 3, 5)]), 0);
    assert.equal(fencesOutOfOrder([h(0, 1, 1), h(0, 3, 2), h(0, 2, 3), h(0, 3, 4)]), 2);
  });
});

describe('fencing on a Redis Cluster (N = 1 per key)', function () {
  this.timeout(60_000);
  let masters: RedisServer[];
  let rl: Redlock;
  before(async () => {
    masters = await startCluster(3);
    rl = new Redlock([`redis+cluster://${masters.map((m) => `127.0.0.1:${m.port}`).join(',')}`]);
  });
  after(async () => {
    await rl?.quit();
    await Promise.all(masters.map((m) => m.dispose()));
  });

  it('the counter lives in the resource slot; fences grow and status shows them on the owning master', async () => {
    const fences: number[] = [];
    for (const resource of ['lock:c1', 'orders:{42}:lock']) {
      for (let i = 0; i < 2; i++) {
        const lock = await rl.acquire(resource, 5000, { fencing: true });
        fences.push(lock.fence!);
        if (i === 0) await rl.release(lock);
      }
    }
    assert.deepEqual(fences, [1, 2, 1, 2]);
    const snap = await rl.inspect({ patterns: ['*'] });
    assert.deepEqual(snap.locks.map((l) => [l.key, l.fence, l.fenceRisk]), [['lock:c1', 2, false], ['orders:{42}:lock', 2, false]]);
    assert.deepEqual(snap.skipped, []);
  });
});
