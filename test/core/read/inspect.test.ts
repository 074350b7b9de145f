import assert from 'node:assert/strict';
import { displayKey } from '../../../src/core/vocabulary/tokens';
import { Redlock, LockEntry, Snapshot, WatchStatus } from '../../../src/core';
import { waitFor } from '../../support/wait';
import { RedisServer, startNodes } from '../../../src/dev/redisServer';

function entry(snap: Snapshot, key: string): LockEntry {
  const e = snap.locks.find((l) => l.key === key);
  assert.ok(e, `no lock entry for ${JSON.stringify(key)} in ${JSON.stringify(snap.locks.map((l) => l.key))}`);
  return e;
}

describe('inspect on 5 real nodes', function () {
  let servers: RedisServer[];
  let rl: Redlock;
  const on = async (which: number[], fn: (c: import('ioredis').default) => Promise<unknown>): Promise<void> => {
    await Promise.all(which.map(async (i) => {
      const c = servers[i].client();
      await fn(c);
      c.disconnect();
    }));
  };

  before(async () => {
    servers = await startNodes(5);
  });
  beforeEach(() => {
    rl = new Redlock(servers.map((s) => s.url), { commandTimeoutMs: 300, readTimeoutMs: 500 });
  });
  afterEach(async () => {
    await rl.quit();
    for (const s of servers) {
      s.resume();
      if (!s.running) await s.restart();
    }
    await on([0, 1, 2, 3, 4], (c) => c.flushall());
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.dispose()));
  });

  it('prints the contract document: one entry per configured node, in order', async () => {
    const lock = await rl.acquire('lock:doc', 10_000);
    await lock.settled;
    const snap = await rl.inspect();
    assert.deepEqual(Object.keys(snap), ['quorum', 'nodes', 'locks', 'skipped', 'truncated']);
    assert.equal(snap.quorum, 3);
    assert.deepEqual(snap.nodes.map((n) => n.node), rl.nodes.map((n) => n.id));
    assert.ok(snap.nodes.every((n) => n.reachable && n.error === null && n.outcome === 'ok' && typeof n.latencyMs === 'number'));
    const e = entry(snap, 'lock:doc');
    assert.deepEqual(Object.keys(e), ['key', 'verdict', 'flags', 'validityMs', 'quorum', 'holders', 'fence', 'fenceRisk', 'nodes', 'holder', 'waiters', 'liveness']);
    assert.deepEqual(e.waiters, []);
    assert.deepEqual(Object.keys(e.holder!), ['name', 'host', 'pid', 'since', 'thread', 'library']);
    assert.equal(e.holder!.pid, process.pid);
    assert.equal(e.verdict, 'held');
    assert.deepEqual(e.flags, []);
    assert.equal(e.holders[lock.token], 5);
    assert.ok(e.validityMs! > 8000 && e.validityMs! <= 10_000);
    assert.deepEqual(e.nodes.map((n) => n.node), rl.nodes.map((n) => n.id));
    for (const n of e.nodes) {
      assert.equal(n.state, 'present');
      assert.equal(n.token, lock.token);
      assert.equal(n.type, 'string');
      assert.equal(n.format, 'string');
      assert.ok(n.pttlMs! > 8000);
      assert.deepEqual(n.holder, e.holder);
    }
    assert.equal(snap.truncated, false);
  });

  it('split, partial, no-ttl and ttl-skew from real server states', async () => {
    await on([0, 1], (c) => c.set('lock:split', 'tok-a', 'PX', 60_000));
    await on([2, 3], (c) => c.set('lock:split', 'tok-b', 'PX', 60_000));
    await on([0, 1], (c) => c.set('lock:partial', 'tok-p', 'PX', 60_000));
    await on([0, 1, 2], (c) => c.set('lock:forever', 'tok-f'));
    await Promise.all([0, 1, 2, 3, 4].map((i) => on([i], (c) => c.set('lock:skew', 'tok-s', 'PX', 20_000 + i * 5_000))));
    const snap = await rl.inspect();
    const split = entry(snap, 'lock:split');
    assert.equal(split.verdict, 'split');
    assert.equal(split.holders['tok-a'], 2);
    assert.equal(split.holders['tok-b'], 2);
    assert.equal(split.validityMs, null);
    assert.equal(entry(snap, 'lock:partial').verdict, 'partial');
    const forever = entry(snap, 'lock:forever');
    assert.equal(forever.verdict, 'held');
    assert.deepEqual(forever.flags, ['no-ttl']);
    assert.equal(forever.validityMs, null);
    assert.ok(forever.nodes.slice(0, 3).every((n) => n.pttlMs === -1));
    const skew = entry(snap, 'lock:skew');
    assert.equal(skew.verdict, 'held');
    assert.deepEqual(skew.flags, ['ttl-skew']);
    // The 3rd largest expiry is ~30 s.
    assert.ok(skew.validityMs! > 25_000 && skew.validityMs! < 30_000, String(skew.validityMs));
  });

  it('no ttl-skew from a clock offset measured over a slow round trip: copies with one expiry stay one', async () => {
    // One absolute expiry on every node: no skew at any instant.
    const at = Date.now() + 5_000;
    await on([0, 1, 2, 3, 4], (c) => c.set('lock:aligned', 'tok-a', 'PXAT', at));
    const slow = new Redlock(servers.map((s) => s.url), { commandTimeoutMs: 2_000, readTimeoutMs: 3_000 });
    try {
      // Connected, identified and probed by a lock round, which measures no clock: the
      // first read's TIME is the first command each node answers for it.
      await slow.release(await slow.acquire('lock:warm', 1_000));
      // Node 0 answers a read's TIME 300 ms late: an offset taken at the middle of that trip
      // is about 150 ms off, and its copy would seem to expire that much before the others,
      // beyond the drift allowance (0.01 x 5 s + 2 ms).
      const slowRead = async (): Promise<Snapshot> => {
        servers[0].pause();
        const reading = slow.inspect();
        await new Promise((r) => setTimeout(r, 300)); // the fault's length, not a wait for anything
        servers[0].resume();
        const snap = await reading;
        assert.ok(snap.nodes[0].latencyMs! >= 250, `node 0's TIME took ${snap.nodes[0].latencyMs} ms`);
        return snap;
      };
      // The first read has only that measurement: each copy's instant is widened by its error.
      const first = entry(await slowRead(), 'lock:aligned');
      assert.equal(first.verdict, 'held');
      assert.deepEqual(first.flags, []);
      // A quick read, then a slow one: the connection keeps the quick read's offset (clockOffset.ts).
      assert.deepEqual(entry(await slow.inspect(), 'lock:aligned').flags, []);
      assert.deepEqual(entry(await slowRead(), 'lock:aligned').flags, []);
    } finally {
      await slow.quit();
    }
  });

  it('expiring, reentrant (Redisson hash), semaphore and read-write lock layouts', async () => {
    await on([0, 1, 2, 3, 4], (c) => c.set('lock:soon', 'tok-e', 'PX', 1500));
    const field = '8d3f4c2a-9b1e-4f6a-8c7d-2e5b9a1f3c4d:57';
    await on([0, 1, 2], async (c) => {
      await c.hset('lock:redisson', field, '2');
      await c.pexpire('lock:redisson', 30_000);
      await c.hset('lock:rw', 'mode', 'read', 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1', '1', 'bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:2', '1');
      await c.zadd('lock:semaphore:jobs', 1, 'holder-2', 2, 'holder-1');
    });
    const snap = await rl.inspect();
    const soon = entry(snap, 'lock:soon');
    assert.ok(soon.flags.includes('expiring'));
    const r = entry(snap, 'lock:redisson');
    assert.equal(r.verdict, 'held');
    assert.deepEqual(r.flags, ['reentrant']);
    assert.equal(r.nodes[0].token, field);
    assert.equal(r.nodes[0].format, 'redisson-lock');
    assert.equal(r.nodes[0].holdCount, 2);
    const rw = entry(snap, 'lock:rw');
    assert.equal(rw.nodes[0].format, 'redisson-rwlock');
    assert.equal(rw.nodes[0].token, 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1,bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:2');
    const sem = entry(snap, 'lock:semaphore:jobs');
    assert.equal(sem.nodes[0].format, 'semaphore');
    assert.equal(sem.nodes[0].token, 'holder-1,holder-2');
    assert.equal(sem.nodes[0].pttlMs, -1);
  });

  it('unknown and degraded while nodes are stopped or paused', async () => {
    await on([0, 1], (c) => c.set('lock:maybe', 'tok-u', 'PX', 60_000));
    await servers[3].stop();
    servers[4].pause();
    const snap = await rl.inspect();
    const e = entry(snap, 'lock:maybe');
    assert.equal(e.verdict, 'unknown');
    assert.deepEqual(e.flags, ['degraded']);
    assert.equal(e.nodes[3].state, 'unreachable');
    assert.equal(e.nodes[4].state, 'unreachable');
    assert.match(e.nodes[4].reason ?? '', /no answer within/);
    assert.deepEqual(snap.nodes.map((n) => n.reachable), [true, true, true, false, false]);
  });

  it('a lock taken by node-redlock shows as held with its token', async () => {
    const NodeRedlock = require('redlock');
    const clients = servers.map((s) => s.client());
    const theirs = await new NodeRedlock(clients, { retryCount: 0 }).lock('lock:theirs', 30_000);
    const e = entry(await rl.inspect(), 'lock:theirs');
    assert.equal(e.verdict, 'held');
    assert.equal(e.nodes[0].token, theirs.value);
    assert.match(theirs.value, /^[0-9a-f]{32}$/);
    await theirs.unlock();
    clients.forEach((c) => c.disconnect());
  });

  it('non-lock types and a 50 MB value go to skipped, cheaply and without crashing', async () => {
    await on([0], async (c) => {
      await c.rpush('lock:list', 'a', 'b');
      await c.sadd('lock:set', 'a');
      await c.xadd('lock:stream', '*', 'f', 'v');
      await c.hset('lock:config', 'timeout', '30');
      await c.set('lock:huge', Buffer.alloc(50 * 1024 * 1024, 0x61));
    });
    const snap = await rl.inspect();
    assert.equal(snap.locks.length, 0);
    const reasons = Object.fromEntries(snap.skipped.map((s) => [s.key, s.reason]));
    assert.deepEqual(reasons, {
      'lock:config': 'unrecognised-hash',
      'lock:huge': 'too-large',
      'lock:list': 'wrong-type',
      'lock:set': 'wrong-type',
      'lock:stream': 'wrong-type',
    });
  });

  it('binary tokens and hostile key names come through as data', async () => {
    const hostile = ['lock:\nnewline', 'lock:<img src=x onerror=alert(1)>', 'lock:\u001b[31mred\u001b[0m', 'lock:\u202eevil', 'lock:🔒emoji'];
    await on([0, 1, 2], async (c) => {
      for (const k of hostile) await c.set(k, 'tok', 'PX', 60_000);
      await c.set(Buffer.from([0x6c, 0x6f, 0x63, 0x6b, 0xff]), Buffer.from([0x00, 0xfe, 0x41]), 'PX', 60_000);
    });
    const snap = await rl.inspect();
    // Control and bidi characters make a name a lookalike: shown as hex:, which round-trips.
    for (const k of hostile) assert.equal(entry(snap, displayKey(Buffer.from(k))).verdict, 'held');
    assert.deepEqual(hostile.map((k) => displayKey(Buffer.from(k)).startsWith('hex:')), [true, false, true, true, false]);
    const bin = entry(snap, 'hex:6c6f636bff');
    assert.equal(bin.nodes[0].token, 'hex:00fe41');
    // And the shown forms work as arguments.
    const r = await rl.forceRelease(Buffer.from([0x6c, 0x6f, 0x63, 0x6b, 0xff]), bin.nodes);
    assert.deepEqual(r.nodes.map((n) => n.outcome), ['deleted', 'deleted', 'deleted', 'absent', 'absent']);
  });

  it('a scan cut by its key cap says truncated and continues where it stopped', async () => {
    await on([0, 1, 2], async (c) => {
      const p = c.pipeline();
      for (let i = 0; i < 2500; i++) p.set(`lock:many:${i}`, `t${i}`, 'PX', 60_000);
      await p.exec();
    });
    const seen = new Set<string>();
    // The cap cuts at whole pages once past maxKeys: 900 makes each of ~1000-key pages a cut.
    let page = await rl.inspectPage({ maxKeys: 900 });
    assert.equal(page.snapshot.truncated, true);
    assert.ok(page.next);
    let pages = 1;
    page.snapshot.locks.forEach((l) => seen.add(l.key));
    while (page.next) {
      page = await rl.inspectPage({ maxKeys: 900, continueFrom: page.next });
      page.snapshot.locks.forEach((l) => seen.add(l.key));
      pages++;
      assert.ok(pages < 10);
    }
    assert.equal(seen.size, 2500);
    assert.ok(pages >= 3);
    assert.ok(page.snapshot.locks.every((l) => l.verdict === 'held'));
  });

  it('exactly maxKeys keys are read in full: not truncated, by a snapshot or a watch', async () => {
    await on([0, 1, 2], async (c) => {
      const p = c.pipeline();
      for (let i = 0; i < 2500; i++) p.set(`lock:exact:${i}`, `t${i}`, 'PX', 60_000);
      await p.exec();
    });
    const page = await rl.inspectPage({ maxKeys: 2500 });
    assert.equal(page.snapshot.truncated, false);
    assert.equal(page.next, null);
    assert.equal(page.snapshot.locks.length, 2500);
    let status: WatchStatus | undefined;
    const w = rl.watch({ intervalMs: 20, maxKeys: 2500 }, { status: (s) => (status = s) });
    try {
      // The first tick scans in full; the second walks the pages by their digests.
      let ticks = 0;
      const sub = w.subscribe({ status: () => ticks++ });
      await waitFor(() => ticks >= 2, 10_000, 'two ticks');
      sub.dispose();
      assert.equal(status!.truncated, false);
    } finally {
      await w.stop();
    }
    // Keys past the cap (it cuts at whole SCAN pages) say so.
    await on([0, 1, 2], async (c) => {
      const p = c.pipeline();
      for (let i = 0; i < 2000; i++) p.set(`lock:exact:more:${i}`, `m${i}`, 'PX', 60_000);
      await p.exec();
    });
    assert.equal((await rl.inspectPage({ maxKeys: 2500 })).snapshot.truncated, true);
  });

  it('reads only: works for an ACL user denied writes, and DEBUG DIGEST is unchanged', async () => {
    await on([0, 1, 2, 3, 4], async (c) => {
      await c.call('ACL', 'SETUSER', 'viewer', 'on', '>viewpass', '~*', '&*', '+@all', '-@write', '-@dangerous', '+info');
      await c.set('lock:ro', 'tok-ro');
      await c.hset('lock:ro-hash', 'f', '1');
    });
    const digests = async (): Promise<string[]> => Promise.all(servers.map(async (s) => {
      const c = s.client();
      const d = String(await c.call('DEBUG', 'DIGEST'));
      c.disconnect();
      return d;
    }));
    const before = await digests();
    const viewer = new Redlock(servers.map((s) => `redis://viewer:viewpass@127.0.0.1:${s.port}`), { readTimeoutMs: 1000 });
    try {
      const snap = await viewer.inspect();
      assert.equal(entry(snap, 'lock:ro').verdict, 'held');
      assert.ok(snap.nodes.every((n) => n.reachable));
      const facts = await viewer.nodeFacts(60_000);
      assert.ok(facts.every((f) => f.reachable && f.version !== null && f.role === 'master'));
      // CONFIG GET is dangerous: persistence is unknown for this user.
      assert.ok(facts.every((f) => f.persistence === 'unknown' && f.restartRisk === 'unknown'));
    } finally {
      await viewer.quit();
    }
    assert.deepEqual(await digests(), before);
  });

  it('node facts: version, role, clock offset, persistence off and restart risk', async () => {
    const facts = await rl.nodeFacts(10 * 60_000);
    for (const f of facts) {
      assert.equal(f.reachable, true);
      assert.match(f.version ?? '', /^\d+\.\d+/);
      assert.equal(f.role, 'master');
      assert.ok(Math.abs(f.clockOffsetMs!) < 1000);
      assert.equal(f.persistence, 'off');
      assert.equal(f.restartRisk, true);
    }
  });
});
