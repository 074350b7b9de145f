// What the watcher calls a change: everything but the countdown, with expiries allowed to
// move by the tolerance plus how late either read's instant may have been.
import assert from 'node:assert/strict';
import { JUMP_TOLERANCE_MS, NO_EXPIRY_INSTANT, sameEntry, type Known } from '../../../src/core/read/watchDiff';
import { lockEntry, present } from '../../support/entries';

const entry = lockEntry('lock:a', [present('a', 't'), present('b', 't'), present('c', 't')]);
const known = (expiries: number[], readErrMs: number): Known => ({ expiries, readErrMs, recheckAt: Infinity, kind: 'lock', entry });

describe('watchDiff: sameEntry', () => {
  it('holds an expiry that moved within the tolerance plus both reads\' errors, and no further', () => {
    const before = known([1_000, 1_000, 1_000], 80);
    // A node descheduled in its read script stamped its PTTLs 80 ms late, then read on time.
    const moved = 1_000 - (JUMP_TOLERANCE_MS + 80 + 3);
    assert.equal(sameEntry(before, entry, [moved, 1_000, 1_000], 3), true);
    assert.equal(sameEntry(before, entry, [moved - 1, 1_000, 1_000], 3), false);
    // Two reads on time: only the tolerance.
    assert.equal(sameEntry(known([1_000, 1_000, 1_000], 0), entry, [1_000 + JUMP_TOLERANCE_MS + 1, 1_000, 1_000], 0), false);
  });

  it('never lets a copy gone, or one without expiry, pass as the same', () => {
    assert.equal(sameEntry(known([1_000, 1_000, 1_000], 500), entry, [1_000, -1, 1_000], 500), false);
    assert.equal(sameEntry(known([1_000, 1_000, 1_000], 500), entry, [1_000, NO_EXPIRY_INSTANT, 1_000], 500), false);
    assert.equal(sameEntry(known([1_000, NO_EXPIRY_INSTANT, 1_000], 500), entry, [1_000, NO_EXPIRY_INSTANT, 1_000], 500), true);
  });
});
