// Entry copies built as literals must be the copies a spread would make: same fields, same
// values, same order (the order is what `status --json` prints).
import assert from 'node:assert/strict';
import { entryAt, withLiveness } from '../../../src/core/read/entryCopy';
import type { Liveness, LockEntry } from '../../../src/core/vocabulary/types';
import { lockEntry, present } from '../../support/entries';

const ALIVE: Liveness = { verdict: 'alive', evidence: [], suggestion: 'its holder renews it' };
// As classifyKey builds one: holder and waiters set, nothing after them.
const built = lockEntry('lock:a', [present('a', 't'), present('b', 't'), present('c', 't')], { holder: null, waiters: [] });
const withOwners = { ...built, owners: [{ token: 't', holder: null, count: 1 }] } as unknown as LockEntry;
const judged = { ...built, liveness: ALIVE };

const same = (a: LockEntry, b: LockEntry): void => {
  assert.deepEqual(Object.keys(a), Object.keys(b));
  assert.deepEqual(a, b);
};

describe('entryCopy', () => {
  it('entryAt gives what a spread of the new validity and flags gives, for an entry as built and any other', () => {
    for (const e of [built, withOwners, judged]) {
      const copy = entryAt(e, 1234, ['expiring']);
      same(copy, { ...e, validityMs: 1234, flags: ['expiring'] });
      assert.notEqual(copy, e);
      assert.equal(e.validityMs, built.validityMs, 'the entry copied is left as it was');
    }
  });

  it('withLiveness gives what Object.assign gives, the liveness last where it is new', () => {
    for (const e of [built, withOwners, judged]) same(withLiveness(e, ALIVE), Object.assign({}, e, { liveness: ALIVE }));
    assert.equal(Object.keys(withLiveness(built, ALIVE)).at(-1), 'liveness');
  });
});
