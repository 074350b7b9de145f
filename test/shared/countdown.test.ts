// The tree's countdown (src/shared/countdown.ts): entries aged by the time since their read, and
// steps of every second near the end, coarser further away, never more time than is left.
import assert from 'node:assert/strict';
import { agedEntry, agedPttl, LIVE_BELOW_MS, roughTimeLeft, steppedEntry, steppedMs } from '../../src/shared/countdown';
import { heldEntry, lockEntry, present } from '../support/entries';

describe('countdown steps', () => {
  it('keeps the time under 10 s, then floors it to 5 s, 30 s and 1 min steps', () => {
    assert.equal(steppedMs(9_999), 9_999);
    assert.equal(steppedMs(29_700), 25_000);
    assert.equal(steppedMs(59_999), 55_000);
    assert.equal(steppedMs(4 * 60_000 + 29_000), 4 * 60_000);
    assert.equal(steppedMs(4 * 60_000 + 31_000), 4 * 60_000 + 30_000);
    assert.equal(steppedMs(3_725_000), 3_720_000);
    for (let ms = 0; ms < 4_000_000; ms += 997) assert.ok(steppedMs(ms) <= ms, `${ms}`);
  });

  it('a row with 30 s left reads the same for 5 s; a no-TTL copy and its flags stay', () => {
    const now = Date.now();
    const entry = lockEntry('k', [present('a', 't', 29_900), present('b', 't', 29_900), present('c', 't', -1)], {}, { nowMs: now });
    const shown = steppedEntry(entry);
    assert.equal(shown.nodes[2].pttlMs, -1);
    assert.deepEqual(shown.flags, entry.flags);
    assert.equal(shown.nodes[0].pttlMs, 25_000);
    assert.ok(shown.validityMs !== null && shown.validityMs % 5_000 === 0 && shown.validityMs <= entry.validityMs!);
  });

  it('words time far from expiry roughly, floored, and leaves the last 10 s to the live countdown', () => {
    assert.equal(roughTimeLeft(LIVE_BELOW_MS - 1), undefined);
    assert.equal(roughTimeLeft(LIVE_BELOW_MS), '> 10 s');
    assert.equal(roughTimeLeft(29_999), '> 10 s');
    assert.equal(roughTimeLeft(30_000), '> 30 s');
    assert.equal(roughTimeLeft(4 * 60_000 + 59_000), '> 2 min');
    assert.equal(roughTimeLeft(3_600_000 * 5), '> 1 h');
    assert.equal(roughTimeLeft(86_400_000 * 3), '> 1 d');
    // A 30 s lock renewed every 10 s stays between 20 and 30 s: its row never changes.
    assert.equal(new Set([20_000, 24_000, 29_999].map(roughTimeLeft)).size, 1);
  });
});

describe('countdown ageing', () => {
  it('ages validity and PTTLs for the countdown, flagging expiring like the core', () => {
    const e = heldEntry('k', { validityMs: 5000 });
    const aged = agedEntry(e, 3500, 2000);
    assert.equal(aged.validityMs, 1500);
    assert.deepEqual(aged.flags, ['expiring']);
    assert.equal(agedEntry(e, 9000, 2000).validityMs, 0);
    assert.equal(agedEntry(heldEntry('k', { validityMs: null }), 1000, 2000).validityMs, null);
    assert.equal(agedPttl(present('a', 't', 800), 300), 500);
    assert.equal(agedPttl(present('a', 't', -1), 300), -1);
  });
});
