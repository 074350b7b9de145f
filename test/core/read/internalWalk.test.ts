// A one-node snapshot learns its locks' fence counters and waiter sets by walking the
// internal keys beside the pattern's SCAN; when that walk cannot finish, the keys are
// looked up by name (docs/decisions.md "One call per SCAN page").
import assert from 'node:assert/strict';
import { Redlock } from '../../../src/core';
import { internalKey } from '../../../src/core/bookkeeping/internalKeys';
import type { Snapshot } from '../../../src/core/vocabulary/types';
import { RedisServer, startNodes, withClient } from '../../../src/dev/redisServer';

const LOCKS = 3000;
/** Every fifth name carries a hash tag of its own: its internal keys use the `=` form. */
const nameOf = (i: number): string => (i % 5 === 0 ? `lock:w:{t${i}}` : `lock:w:${i}`);
/** Dense enough that one page of the walk lists more counters than one call reads: the rest are read apart. */
const fenceOf = (i: number): number | null => (i % 4 !== 3 ? 1000 + i : null);
const waitsOn = (i: number): boolean => i % 3 === 0;

/** Each shown lock's fence and waiter count, beside what the fixture wrote for it. */
function seenAndWanted(snap: Snapshot): { seen: Record<string, [number | null, number]>; wanted: Record<string, [number | null, number]> } {
  const index = new Map<string, number>();
  for (let i = 0; i < LOCKS; i++) index.set(nameOf(i), i);
  const seen: Record<string, [number | null, number]> = {};
  const wanted: Record<string, [number | null, number]> = {};
  for (const l of snap.locks) {
    const i = index.get(l.key)!;
    seen[l.key] = [l.fence, l.waiters?.length ?? 0];
    wanted[l.key] = [fenceOf(i), waitsOn(i) ? 1 : 0];
  }
  return { seen, wanted };
}

describe('internal keys walked beside a one-node snapshot', function () {
  this.timeout(60_000);
  let server: RedisServer;
  let rl: Redlock;

  before(async () => {
    [server] = await startNodes(1);
    rl = new Redlock([server.url]);
    await withClient(server, async (c) => {
      const p = c.pipeline();
      for (let i = 0; i < LOCKS; i++) {
        p.set(nameOf(i), `token-${i}`, 'PX', 600_000);
        const fence = fenceOf(i);
        if (fence !== null) p.set(internalKey('fence', nameOf(i)), String(fence));
        if (waitsOn(i)) p.zadd(internalKey('waiters', nameOf(i)), Date.now() + 600_000, `waiter-${i}`);
      }
      await p.exec();
    });
  });
  after(async () => {
    await rl.quit();
    await server.dispose();
  });

  it('a full walk finds every fence counter and waiter set, pages read before it finished included', async () => {
    // The walk needs several pages here, so the first pattern pages wait for it.
    const [next] = await withClient(server, (c) => c.scan('0', 'MATCH', '__rli:*', 'COUNT', 2000));
    assert.notEqual(next, '0');
    const snap = await rl.inspect({ patterns: ['lock:w:*'], maxKeys: 100_000 });
    assert.equal(snap.truncated, false);
    assert.equal(snap.locks.length, LOCKS);
    const { seen, wanted } = seenAndWanted(snap);
    assert.deepEqual(seen, wanted);
  });

  it('a snapshot cut by maxKeys still shows the fence and waiters of locks whose internal keys were not walked', async () => {
    // One page of the walk, all a one-page snapshot gets, lists only some internal keys.
    const walked = await withClient(server, async (c) => new Set((await c.scan('0', 'MATCH', '__rli:*', 'COUNT', 2000))[1]));
    const snap = await rl.inspect({ patterns: ['lock:w:*'], maxKeys: 1 });
    assert.equal(snap.truncated, true);
    assert.ok(snap.locks.length > 0 && snap.locks.length < LOCKS);
    const unwalked = snap.locks.filter((l) => !walked.has(internalKey('fence', l.key)) && !walked.has(internalKey('waiters', l.key)));
    assert.ok(unwalked.some((l) => l.fence !== null) && unwalked.some((l) => (l.waiters?.length ?? 0) > 0), 'some shown fences and waiters were not walked');
    const { seen, wanted } = seenAndWanted(snap);
    assert.deepEqual(seen, wanted);
  });
});

describe('keys a page call left unread still take what the walk found', function () {
  this.timeout(60_000);
  let server: RedisServer;
  before(async () => {
    [server] = await startNodes(1);
  });
  after(() => server.dispose());

  // 500-byte tokens spend a call's 128 KiB byte budget after about 250 keys: the rest of
  // each page is read by calls of their own, as on a node too busy for a page's reads.
  it('no fence counter or waiter set is looked up by name once the walk is complete', async () => {
    await withClient(server, async (c) => {
      const p = c.pipeline();
      for (let i = 0; i < 1000; i++) p.set(`lock:big:${i}`, `${String(i).padStart(4, '0')}${'t'.repeat(496)}`, 'PX', 600_000);
      p.set(internalKey('fence', 'lock:big:7'), '41');
      p.zadd(internalKey('waiters', 'lock:big:9'), Date.now() + 600_000, 'waiter-9');
      await p.exec();
      await c.config('RESETSTAT');
    });
    const rl = new Redlock([server.url]);
    try {
      const snap = await rl.inspect({ patterns: ['lock:big:*'] });
      assert.equal(snap.locks.length, 1000);
      assert.equal(snap.locks.find((l) => l.key === 'lock:big:7')?.fence, 41);
      assert.equal(snap.locks.find((l) => l.key === 'lock:big:9')?.waiters?.length, 1);
      assert.equal(snap.locks.filter((l) => l.fence !== null || (l.waiters?.length ?? 0) > 0).length, 2);
    } finally {
      await rl.quit();
    }
    const stats = await withClient(server, (c) => c.info('commandstats'));
    const calls = (cmd: string): number => Number(new RegExp(`cmdstat_${cmd}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
    assert.ok(calls('evalsha_ro') + calls('eval_ro') > 4, 'the pages were read in several calls');
    // Lookups by name: MGET of counters, EXISTS of internal names, a waiter set read per lock.
    assert.deepEqual({ mget: calls('mget'), exists: calls('exists') }, { mget: 0, exists: 0 });
    assert.ok(calls('zrangebyscore') <= 1, `waiter sets read: ${calls('zrangebyscore')}`);
  });
});
