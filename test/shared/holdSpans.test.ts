import assert from 'node:assert/strict';
import { holdSpans, waitSpans } from '../../src/shared/holdSpans';
import type { HistoryEvent } from '../../src/shared/protocol';

const ev = (at: number, kind: HistoryEvent['kind'], token: string | null, over: Partial<HistoryEvent> = {}): HistoryEvent =>
  ({ at, kind, nodes: ['a', 'b', 'c'], token, previousToken: null, from: null, to: null, ...over });

describe('holdSpans', () => {
  it('one span per hold, ended by its release, expiry, loss or the next holder, in any input order', () => {
    const spans = holdSpans([
      ev(50, 'holder-changed', 'C', { previousToken: 'B' }),
      ev(10, 'acquired', 'A', { recordedBy: 'worker (pid 1)' }),
      ev(20, 'released', 'A'),
      ev(30, 'acquired', 'B'),
      ev(35, 'extended', 'B'),
      ev(70, 'expired', 'C'),
      ev(80, 'acquired', 'D'),
      ev(90, 'lost', 'D'),
      ev(95, 'acquired', 'E'),
    ]);
    assert.deepEqual(spans.map((s) => [s.token, s.from, s.to, s.end, s.by]), [
      ['A', 10, 20, 'released', 'worker (pid 1)'],
      ['B', 30, 50, 'taken-over', null],
      ['C', 50, 70, 'expired', null],
      ['D', 80, 90, 'lost', null],
      ['E', 95, null, null, null],
    ]);
  });

  it('a hold first seen by its extension starts there; node and verdict events start nothing', () => {
    const spans = holdSpans([
      ev(5, 'node-unreachable', null),
      ev(6, 'verdict-changed', null, { from: 'held', to: 'unknown' }),
      ev(10, 'extended', 'A'),
      ev(15, 'extended', 'A'),
      ev(20, 'released', 'A'),
      ev(25, 'released', 'Z'),
    ]);
    assert.deepEqual(spans.map((s) => [s.token, s.from, s.to]), [['A', 10, 20]]);
  });

  it('a grant carries its fence; waits run from the first refused attempt to the grant or give-up, recorded ones only', () => {
    const events = [
      ev(100, 'acquired', 'A', { fence: 41, waitMs: 30, recordedBy: 'w (pid 1)' }),
      ev(90, 'failed', null, { waitMs: 50, recordedBy: 'v (pid 2)' }),
      ev(120, 'acquired', 'B'),
      ev(130, 'failed', null),
    ];
    assert.deepEqual(holdSpans(events).map((s) => [s.token, s.fence]), [['A', 41], ['B', null]]);
    assert.deepEqual(waitSpans(events), [
      { from: 40, to: 90, end: 'gave-up', token: null, by: 'v (pid 2)' },
      { from: 70, to: 100, end: 'granted', token: 'A', by: 'w (pid 1)' },
    ]);
  });
});
