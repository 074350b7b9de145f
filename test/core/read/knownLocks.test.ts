// The sets a watch tick asks for, kept beside its known locks, say what a walk of every
// known lock would have found.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DueQueue, KnownLocks } from '../../../src/core/read/knownLocks';
import type { Known } from '../../../src/core/read/watchDiff';
import type { LockEntry, Waiter } from '../../../src/core/vocabulary/types';
import { heldEntry } from '../../support/entries';

const waiter: Waiter = { name: 'w', host: 'h', pid: 1, since: 0 };

function lock(key: string, entry: LockEntry, over: Partial<Known> = {}): Known {
  return { key, expiries: [], readErrMs: 0, recheckAt: Infinity, kind: 'lock', entry, ...over };
}

function collect(f: (each: (id: string) => void) => void): string[] {
  const out: string[] = [];
  f((id) => out.push(id));
  return out.sort();
}

describe('knownLocks: DueQueue', () => {
  it('gives an id once its instant comes, and keeps giving it until it is set again or deleted', () => {
    const q = new DueQueue();
    q.set('a', 10);
    q.set('b', 20);
    q.set('c', Infinity);
    assert.deepEqual([...q.due(9)], []);
    assert.deepEqual([...q.due(10)], ['a']);
    assert.deepEqual([...q.due(10, true)], ['a'], 'still due: nothing set it again');
    q.set('a', 30);
    assert.deepEqual([...q.due(25)].sort(), ['b']);
    q.delete('b');
    assert.deepEqual([...q.due(1e9)].sort(), ['a']);
    assert.equal(q.size, 1, 'Infinity is never due and not counted');
  });

  it('is strict when asked: an instant equal to now is not yet past', () => {
    const q = new DueQueue();
    q.set('a', 10);
    assert.deepEqual([...q.due(10, true)], []);
    assert.deepEqual([...q.due(11, true)], ['a']);
  });

  it('stays right when renewals set the same ids again and again (its heap rebuilt from what stands)', () => {
    const q = new DueQueue();
    const model = new Map<string, number>();
    for (let i = 0; i < 20_000; i++) {
      const id = String(i % 7);
      const at = 1_000 + ((i * 7919) % 5_000);
      model.set(id, at);
      q.set(id, at);
    }
    const now = 3_000;
    assert.deepEqual([...q.due(now)].sort(), [...model].filter(([, at]) => at <= now).map(([id]) => id).sort());
  });

  it('says what a walk over every id would, through any sequence of sets, deletes and looks', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), id: fc.integer({ min: 0, max: 30 }), at: fc.oneof(fc.integer({ min: 0, max: 200 }), fc.constant(Infinity)) }),
      fc.record({ kind: fc.constant('delete' as const), id: fc.integer({ min: 0, max: 30 }) }),
      fc.record({ kind: fc.constant('due' as const), now: fc.integer({ min: 0, max: 200 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 3000 }), (ops) => {
        const q = new DueQueue();
        const model = new Map<string, number>();
        // The walk's view: what stands, and what was due at a look and not set since.
        const overdue = new Set<string>();
        for (const o of ops) {
          if (o.kind === 'set') {
            overdue.delete(String(o.id));
            if (Number.isFinite(o.at)) model.set(String(o.id), o.at);
            else model.delete(String(o.id));
            q.set(String(o.id), o.at);
          } else if (o.kind === 'delete') {
            model.delete(String(o.id));
            overdue.delete(String(o.id));
            q.delete(String(o.id));
          } else {
            for (const [id, at] of model) if (at <= o.now) overdue.add(id);
            assert.deepEqual([...q.due(o.now)].sort(), [...overdue].sort());
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
    known.set('a', lock('lock:a', plain));
    known.set('b', lock('lock:b', heldEntry('lock:b', { waiters: [waiter] })));
    known.set('s', { key: 'lock:s', expiries: [], readErrMs: 0, recheckAt: Infinity, kind: 'skipped', skipped: { key: 'lock:s', reason: 'orphaned', of: 'lock:x' } });
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
    known.set('always', lock('lock:a', heldEntry('lock:a'), { judgeAt: -Infinity }));
    known.set('unset', lock('lock:u', heldEntry('lock:u')));
    known.set('later', lock('lock:l', heldEntry('lock:l'), { judgeAt: 100 }));
    known.set('never', lock('lock:n', heldEntry('lock:n'), { judgeAt: Infinity }));
    assert.deepEqual(collect((each) => known.dueForJudging(100, each)), ['always', 'unset']);
    assert.deepEqual(collect((each) => known.dueForJudging(101, each)), ['always', 'later', 'unset']);
    // Judged again: its verdict stands until its new instant.
    known.update('later', { entry: heldEntry('lock:l'), judgeAt: 500 });
    known.update('always', { entry: heldEntry('lock:a'), judgeAt: Infinity });
    assert.deepEqual(collect((each) => known.dueForJudging(200, each)), ['unset']);
    // Read anew, a lock is set whole: its instant goes with the new one.
    known.set('later', lock('lock:l', heldEntry('lock:l'), { judgeAt: Infinity }));
    assert.deepEqual(collect((each) => known.dueForJudging(1_000, each)), ['unset']);
  });

  it('gives for classifying again the keys whose recheck instant came, and the locks whose fence looked at risk', () => {
    const known = new KnownLocks();
    known.set('soon', lock('lock:s', heldEntry('lock:s'), { recheckAt: 50 }));
    known.set('risk', lock('lock:r', heldEntry('lock:r', { fenceRisk: true })));
    known.set('quiet', lock('lock:q', heldEntry('lock:q'), { recheckAt: 5_000 }));
    assert.deepEqual(collect((each) => known.dueForRecheck(49, each)), ['risk']);
    assert.deepEqual(collect((each) => known.dueForRecheck(50, each)), ['risk', 'soon']);
    known.update('risk', { entry: heldEntry('lock:r') });
    known.set('soon', lock('lock:s', heldEntry('lock:s'), { recheckAt: 9_000 }));
    assert.deepEqual(collect((each) => known.dueForRecheck(6_000, each)), ['quiet']);
  });
});
