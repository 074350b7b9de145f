import assert from 'node:assert/strict';
import { entryDue, waitState } from '../../../src/core/bookkeeping/waiters';

describe('waiter entry refresh', () => {
  it('is due on the first refusal, then once per period, so a live entry never lapses', () => {
    const w = waitState('member', ['lock:a'], 10, 5, 50);
    assert.equal(w.periodMs, 65);
    assert.equal(entryDue(w, 1000), true);
    w.listed = true;
    w.writtenAt = 1000;
    assert.equal(entryDue(w, 1000 + 64), false);
    assert.equal(entryDue(w, 1000 + 65), true);
    // The entry is believed for two periods: rewritten at one period, it never lapses.
    assert.equal(Number(w.lifeText), 2 * w.periodMs);
  });
});
