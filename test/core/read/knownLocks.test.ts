// The sets a watch tick asks for, kept beside its known locks, say what a walk of every
// known lock would have found.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DueQueue, inPlay, KnownLocks } from '../../../src/core/read/knownLocks';
import { JUMP_TOLERANCE_MS, type Known } from '../../../src/core/read/watchDiff';
import type { LockEntry, Waiter } from '../../../src/core/vocabulary/types';
import { heldEntry, lockEntry, present } from '../../support/entries';

const waiter: Waiter = { name: 'w', host: 'h', pid: 1, since: 0 };

function lock(entry: LockEntry, over: Partial<Known> = {}): Known {
  return { expiries: [], readErrMs: 0, recheckAt: Infinity, kind: 'lock', entry, ...over };
}

function collect(f: (each: (id: string) => void) => void): string[] {
  const out: string[] = [];
  f((id) => out.push(id));
  return out.sort();
}

describe('knownLocks: DueQueue', () => {
  it('gives a number once its instant comes, and keeps giving it until it is set again or deleted', () => {
    const q = new DueQueue();
    q.set(1, 10);
    q.set(2, 20);
    q.set(3, Infinity);
    assert.deepEqual([...q.due(9)], []);
    assert.deepEqual([...q.due(10)], [1]);
    assert.deepEqual([...q.due(10, true)], [1], 'still due: nothing set it again');
    q.set(1, 30);
    assert.deepEqual([...q.due(25)].sort(), [2]);
    q.delete(2);
    assert.deepEqual([...q.due(1e9)].sort(), [1]);
    assert.equal(q.size, 1, 'Infinity is never due and not counted');
  });

  it('is strict when asked: an instant equal to now is not yet past', () => {
    const q = new DueQueue();
    q.set(0, 10);
    assert.deepEqual([...q.due(10, true)], []);
    assert.deepEqual([...q.due(11, true)], [0]);
  });

  it('stays right when renewals set the same numbers again and again (its heap rebuilt from what stands)', () => {
    const q = new DueQueue();
    const model = new Map<number, number>();
    for (let i = 0; i < 20_000; i++) {
      const k = i % 7;
      const at = 1_000 + ((i * 7919) % 5_000);
      model.set(k, at);
      q.set(k, at);
    }
    const now = 3_000;
    assert.deepEqual([...q.due(now)].sort(), [...model].filter(([, at]) => at <= now).map(([k]) => k).sort());
  });

  it('says what a walk over every number would, through any sequence of sets, deletes, renumberings and looks', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), id: fc.integer({ min: 0, max: 30 }), at: fc.oneof(fc.integer({ min: 0, max: 200 }), fc.constant(Infinity)) }),
      fc.record({ kind: fc.constant('delete' as const), id: fc.integer({ min: 0, max: 30 }) }),
      fc.record({ kind: fc.constant('due' as const), now: fc.integer({ min: 0, max: 200 }) }),
      // Numbers reversed (31 - k), as a compaction moves them; the model keeps ids.
      fc.record({ kind: fc.constant('renumber' as const) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 3000, size: 'max' }), (ops) => {
        const q = new DueQueue();
        const model = new Map<number, number>();
        // The walk's view: what stands, and what was due at a look and not set since.
        const overdue = new Set<number>();
        // Each id's number in the queue.
        let flipped = false;
        const n = (id: number): number => (flipped ? 30 - id : id);
        for (const o of ops) {
          if (o.kind === 'set') {
            overdue.delete(o.id);
            if (Number.isFinite(o.at)) model.set(o.id, o.at);
            else model.delete(o.id);
            q.set(n(o.id), o.at);
          } else if (o.kind === 'delete') {
            model.delete(o.id);
            overdue.delete(o.id);
            q.delete(n(o.id));
          } else if (o.kind === 'renumber') {
            q.renumber(Int32Array.from({ length: 31 }, (_, k) => 30 - k), 31);
            flipped = !flipped;
          } else {
            for (const [id, at] of model) if (at <= o.now) overdue.add(id);
            assert.deepEqual([...q.due(o.now)].sort(), [...overdue].map(n).sort());
            assert.equal(q.size, model.size);
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('knownLocks: KnownLocks', () => {
  it('keeps the locks with waiters or a deadlock flag, as their entries change', () => {
    const known = new KnownLocks();
    const plain = heldEntry('lock:a');
    known.set('a', lock(plain));
    known.set('b', lock(heldEntry('lock:b', { waiters: [waiter] })));
    known.set('s', { expiries: [], readErrMs: 0, recheckAt: Infinity, kind: 'skipped', skipped: { key: 'lock:s', reason: 'orphaned', of: 'lock:x' } });
    assert.deepEqual([...known.inPlay()], ['b']);
    known.update('a', { entry: heldEntry('lock:a', { flags: ['deadlock'] }) });
    known.update('b', { entry: heldEntry('lock:b') });
    assert.deepEqual([...known.inPlay()], ['a']);
    known.delete('a');
    assert.deepEqual([...known.inPlay()], []);
    assert.equal(known.size, 2);
  });

  it('gives for judging every lock judged at each tick, and the others only once their verdict may have moved', () => {
    const known = new KnownLocks();
    known.set('always', lock(heldEntry('lock:a'), { judgeAt: -Infinity }));
    known.set('unset', lock(heldEntry('lock:u')));
    known.set('later', lock(heldEntry('lock:l'), { judgeAt: 100 }));
    known.set('never', lock(heldEntry('lock:n'), { judgeAt: Infinity }));
    assert.deepEqual(collect((each) => known.dueForJudging(100, each)), ['always', 'unset']);
    assert.deepEqual(collect((each) => known.dueForJudging(101, each)), ['always', 'later', 'unset']);
    // Judged again: its verdict stands until its new instant.
    known.update('later', { entry: heldEntry('lock:l'), judgeAt: 500 });
    known.update('always', { entry: heldEntry('lock:a'), judgeAt: Infinity });
    assert.deepEqual(collect((each) => known.dueForJudging(200, each)), ['unset']);
    // Read anew, a lock is set whole: its instant goes with the new one.
    known.set('later', lock(heldEntry('lock:l'), { judgeAt: Infinity }));
    assert.deepEqual(collect((each) => known.dueForJudging(1_000, each)), ['unset']);
  });

  it('gives for classifying again the keys whose recheck instant came, and the locks whose fence looked at risk', () => {
    const known = new KnownLocks();
    known.set('soon', lock(heldEntry('lock:s'), { recheckAt: 50 }));
    known.set('risk', lock(heldEntry('lock:r', { fenceRisk: true })));
    known.set('quiet', lock(heldEntry('lock:q'), { recheckAt: 5_000 }));
    assert.deepEqual(collect((each) => known.dueForRecheck(49, each)), ['risk']);
    assert.deepEqual(collect((each) => known.dueForRecheck(50, each)), ['risk', 'soon']);
    known.update('risk', { entry: heldEntry('lock:r') });
    known.set('soon', lock(heldEntry('lock:s'), { recheckAt: 9_000 }));
    assert.deepEqual(collect((each) => known.dueForRecheck(6_000, each)), ['quiet']);
  });
});

describe('knownLocks: KnownLocks in columns', () => {
  const five = ['a', 'b', 'c', 'd', 'e'];
  /** An entry of 3 or 5 copies, with waiters, a deadlock flag or a fence at risk as asked. */
  function entryOf(key: string, shape: { copies: 3 | 5; waiters: boolean; deadlock: boolean; risk: boolean }): LockEntry {
    const nodes = five.slice(0, shape.copies).map((n) => present(n, `t-${key}`));
    return lockEntry(key, nodes, { waiters: shape.waiters ? [waiter] : [], fenceRisk: shape.risk, ...(shape.deadlock ? { flags: ['deadlock'] } : {}) });
  }

  it('says what a map of records would, through sets, updates, deletes and prunings', () => {
    const shape = fc.record({ copies: fc.constantFrom(3 as const, 5 as const), waiters: fc.boolean(), deadlock: fc.boolean(), risk: fc.boolean() });
    const instant = fc.oneof(fc.integer({ min: 0, max: 1_000 }), fc.constant(Infinity), fc.constant(-Infinity));
    const op = fc.oneof(
      fc.record({ kind: fc.constant('lock' as const), id: fc.integer({ min: 0, max: 40 }), shape, recheckAt: instant, judgeAt: fc.option(instant, { nil: undefined }), err: fc.integer({ min: 0, max: 50 }), expiry: fc.integer({ min: -2, max: 5_000 }) }),
      fc.record({ kind: fc.constant('skip' as const), id: fc.integer({ min: 0, max: 40 }) }),
      fc.record({ kind: fc.constant('update' as const), id: fc.integer({ min: 0, max: 40 }), shape, judgeAt: fc.option(instant, { nil: undefined }), touchJudge: fc.boolean() }),
      // Deletes outweigh sets, so that a prune often finds the table twice the keys known.
      { arbitrary: fc.record({ kind: fc.constant('delete' as const), id: fc.integer({ min: 0, max: 40 }) }), weight: 4 },
      fc.record({ kind: fc.constant('prune' as const) }),
      fc.record({ kind: fc.constant('look' as const), step: fc.integer({ min: 0, max: 100 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { minLength: 20, maxLength: 400, size: 'max' }), (ops) => {
        // Compacted at every prune() where a key was deleted: the numbers move under the model.
        const known = new KnownLocks(0);
        const model = new Map<string, Known>();
        let now = 0;
        for (const o of ops) {
          const id = 'id' in o ? `k${o.id}` : '';
          if (o.kind === 'lock') {
            const entry = entryOf(`lock:${o.id}`, o.shape);
            const k = lock(entry, { recheckAt: o.recheckAt, judgeAt: o.judgeAt, readErrMs: o.err, expiries: entry.nodes.map((_, i) => o.expiry + i), waiterProcesses: o.shape.waiters ? [`p${o.id}`] : undefined });
            known.set(id, k);
            model.set(id, k);
          } else if (o.kind === 'skip') {
            const k: Known = { expiries: [], readErrMs: 0, recheckAt: Infinity, kind: 'skipped', skipped: { key: `s${o.id}`, reason: 'orphaned', of: 'x' } };
            known.set(id, k);
            model.set(id, k);
          } else if (o.kind === 'update') {
            const entry = entryOf(`lock:${o.id}`, o.shape);
            const was = model.get(id);
            const waiterProcesses = o.shape.waiters ? [`q${o.id}`] : undefined;
            known.update(id, o.touchJudge ? { entry, judgeAt: o.judgeAt, waiterProcesses } : { entry });
            // An update gives a key its entry as it stands (KnownLocks.update is for locks).
            if (was?.kind === 'lock' && entry.nodes.length === was.entry!.nodes.length) model.set(id, { ...was, entry, ...(o.touchJudge ? { judgeAt: o.judgeAt, waiterProcesses } : {}) });
            else if (was !== undefined) {
              known.delete(id);
              model.delete(id);
            }
          } else if (o.kind === 'delete') {
            known.delete(id);
            model.delete(id);
          } else if (o.kind === 'prune') {
            known.prune();
          } else {
            now += o.step;
            const m = [...model];
            const locks = m.filter(([, k]) => k.kind === 'lock');
            assert.equal(known.size, model.size);
            assert.deepEqual([...known.inPlay()].sort(), locks.filter(([, k]) => inPlay(k.entry!)).map(([i]) => i).sort());
            assert.deepEqual(collect((each) => known.dueForRecheck(now, each)), [...m.filter(([, k]) => Number.isFinite(k.recheckAt) && k.recheckAt <= now).map(([i]) => i), ...locks.filter(([, k]) => k.entry!.fenceRisk).map(([i]) => i)].sort());
            assert.deepEqual(collect((each) => known.dueForJudging(now, each)), locks.filter(([, k]) => (k.judgeAt ?? -Infinity) < now).map(([i]) => i).sort());
            for (const [i, k] of m) {
              assert.equal(known.kindOf(i), k.kind);
              assert.equal(known.entryOf(i), k.entry);
              assert.equal(known.skippedOf(i), k.skipped);
              assert.deepEqual(known.waiterProcessesOf(i), k.waiterProcesses);
              if (k.kind !== 'lock') continue;
              assert.equal(known.sameAs(i, k.entry!, k.expiries, k.readErrMs), true);
              // An expiry may move by the tolerance and both reads' errors: the kept error counts.
              const slack = JUMP_TOLERANCE_MS + k.readErrMs + 1;
              const within = k.expiries.map((x) => (x >= 0 ? x + slack - 1 : x));
              const beyond = k.expiries.map((x) => (x >= 0 ? x + slack : 7));
              assert.equal(known.sameAs(i, k.entry!, within, 0), true);
              assert.equal(known.sameAs(i, k.entry!, beyond, 0), false, 'an expiry that jumped, or one that has no instant now, is a change');
              const at = k.expiries[0];
              assert.deepEqual(known.keptState(i), { entry: k.entry, expiresAt: at < 0 ? Infinity : at });
            }
            const ids: string[] = [];
            known.forEachId((i) => void ids.push(i));
            assert.deepEqual(ids.sort(), [...model.keys()].sort());
            const expiries = locks.flatMap(([, k]) => k.expiries.filter((x) => x >= 0));
            assert.equal(known.latestExpiry(), expiries.length === 0 ? -Infinity : Math.max(...expiries));
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});
