import assert from 'node:assert/strict';
import {
  MARK_FAILED, MARK_LOST, MARK_SPLIT, MAX_HOLDS_PER_ROW, allLocksRows, lockRow, rowText,
} from '../../src/shared/allLocksRows';
import { isAllLocksHostMessage, isAllLocksWebviewMessage } from '../../src/shared/allLocksProtocol';
import type { HistoryEvent } from '../../src/shared/protocol';

const NOW = 10_000_000;
const ev = (at: number, kind: HistoryEvent['kind'], token: string | null, over: Partial<HistoryEvent> = {}): HistoryEvent =>
  ({ at, kind, nodes: [], token, previousToken: null, from: null, to: null, ...over });

describe('allLocksRows', () => {
  it('one lock: its holds in token colours, its waits from the first refused attempt, its marks', () => {
    const r = lockRow({
      key: 'orders:lock',
      events: [
        ev(NOW - 5000, 'acquired', 'A', { recordedBy: 'w (pid 1)' }),
        ev(NOW - 4000, 'released', 'A'),
        ev(NOW - 3500, 'acquired', 'B', { waitMs: 700 }),
        ev(NOW - 3000, 'failed', null, { waitMs: 400, reason: 'timeout' }),
        ev(NOW - 2000, 'lost', 'B'),
        ev(NOW - 1000, 'acquired', 'A'),
      ],
    }, NOW);
    assert.deepEqual(r.holds, [NOW - 5000, NOW - 4000, 0, 1, NOW - 3500, NOW - 2000, 1, 3, NOW - 1000, -1, 0, 0]);
    assert.deepEqual(r.waits, [NOW - 4200, NOW - 3500, NOW - 3400, NOW - 3000]);
    assert.deepEqual(r.marks, [NOW - 3000, MARK_FAILED, NOW - 2000, MARK_LOST]);
    assert.equal(r.contended, 2);
    assert.equal(r.lost, 1);
    assert.equal(r.holdCount, 3);
    assert.equal(r.longestMs, 1500);
  });

  it('only the window: a hold that ended before it is left out, one across its start counts from there', () => {
    const r = lockRow({ key: 'k', events: [ev(NOW - 7200_000, 'acquired', 'A'), ev(NOW - 7000_000, 'released', 'A'), ev(NOW - 3700_000, 'acquired', 'B')] }, NOW);
    assert.equal(r.holdCount, 1);
    assert.equal(r.longestMs, 3600_000);
  });

  it('worst first: lost, then split, then contended, then held longest; quiet locks are left out', () => {
    const rows = allLocksRows([
      { key: 'long', events: [ev(NOW - 60_000, 'acquired', 'A')] },
      { key: 'short', events: [ev(NOW - 1000, 'acquired', 'A')] },
      { key: 'contended', events: [ev(NOW - 1000, 'acquired', 'A', { waitMs: 20 })] },
      { key: 'split-now', events: [ev(NOW - 1000, 'acquired', 'A')], verdict: 'split' },
      { key: 'split-seen', events: [ev(NOW - 500, 'split-detected', null)] },
      { key: 'lost', events: [ev(NOW - 2000, 'acquired', 'A'), ev(NOW - 1000, 'lost', 'A')] },
      { key: 'quiet', events: [ev(NOW - 7200_000, 'acquired', 'A'), ev(NOW - 7100_000, 'released', 'A')] },
    ], NOW);
    assert.deepEqual(rows.map((r) => r.key), ['lost', 'split-now', 'split-seen', 'contended', 'long', 'short']);
    assert.deepEqual(rows[2].marks, [NOW - 500, MARK_SPLIT]);
  });

  it('stays bounded: rows and holds per row keep the worst and the newest', () => {
    const events: HistoryEvent[] = [];
    for (let i = 0; i < 2000; i++) events.push(ev(NOW - 3000_000 + i * 1000, 'acquired', `t${i}`), ev(NOW - 3000_000 + i * 1000 + 500, 'released', `t${i}`));
    const r = lockRow({ key: 'busy', events }, NOW);
    assert.equal(r.holds.length, 4 * MAX_HOLDS_PER_ROW);
    assert.equal(r.holds[r.holds.length - 4], NOW - 3000_000 + 1999 * 1000);
    const many = Array.from({ length: 30 }, (_, i) => ({ key: `k${i}`, events: [ev(NOW - 1000 - i, 'acquired', 'A')] }));
    assert.equal(allLocksRows(many, NOW, undefined, 10).length, 10);
  });

  it('words a row with its key escaped (no control character reaches a screen reader or a terminal)', () => {
    const r = lockRow({ key: 'job:\u001b[31m\u202e', events: [ev(NOW - 1000, 'acquired', 'A', { waitMs: 5 }), ev(NOW - 500, 'lost', 'A')] }, NOW);
    assert.equal(rowText(r), 'job:\\x1b[31m\\u{202e}: lost 1×, contended 1×, 1 hold, longest 500 ms');
  });

  it('the protocol takes well-formed rows and refuses anything else', () => {
    const row = lockRow({ key: 'k', events: [ev(NOW - 1000, 'acquired', 'A')] }, NOW);
    const ok = { type: 'rows', version: 1, sentAt: NOW, windowMs: 3600_000, rows: [row], logs: 1, cut: false };
    assert.ok(isAllLocksHostMessage(ok));
    assert.ok(!isAllLocksHostMessage({ ...ok, rows: [{ ...row, holds: ['1'] }] }));
    assert.ok(!isAllLocksHostMessage({ ...ok, cut: 'no' }));
    assert.ok(isAllLocksWebviewMessage({ type: 'open', key: 'k' }));
    assert.ok(!isAllLocksWebviewMessage({ type: 'open', key: 7 }));
    assert.ok(!isAllLocksWebviewMessage({ type: 'run', key: 'k' }));
  });
});
