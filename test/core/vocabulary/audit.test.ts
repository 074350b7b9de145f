// The audit rules over recorded and observed lock histories: overlaps, late actions, fence order, horizons (pure).
import assert from 'node:assert/strict';
import { OBSERVED_EVIDENCE, auditHistory, auditObserved, historyHorizon, type LockEvent } from '../../../src/core/vocabulary';
import { ev } from '../../support/events';

const NOW = 1_000_000;
const audit = (events: LockEvent[], nowMs = NOW) => auditHistory('orders:42', events, { nowMs });
const kinds = (events: LockEvent[], nowMs = NOW): string[] => audit(events, nowMs).map((f) => f.kind);

describe('audit rules (pure)', () => {
  it('clean handovers, extensions and a release at the same ms as the next grant: no finding', () => {
    const events = [
      ev('acquired', 1000, 'A', { validityMs: 990 }),
      ev('extended', 1500, 'A', { validityMs: 990 }),
      ev('released', 2000, 'A'),
      ev('acquired', 2000, 'B', { validityMs: 990 }),
      ev('released', 2500, 'B'),
      ev('acquired', 2600, 'C', { validityMs: 990, fence: 3 }),
      ev('released', 2700, 'C'),
      ev('acquired', 2800, 'D', { validityMs: 990, fence: 4 }),
      ev('released', 2900, 'D'),
    ];
    assert.deepEqual(kinds(events.reverse()), []);
  });

  it('a hold that lived and ended within the ms of the next grant is no overlap, whatever order the log lists them in', () => {
    // As the log reads them, newest first: B's grant, A's release, A's grant, all in one ms.
    const newestFirst = [ev('acquired', 2000, 'B', { validityMs: 96 }), ev('released', 2000, 'A'), ev('acquired', 2000, 'A', { validityMs: 4947 })];
    assert.deepEqual(kinds(newestFirst, 2050), []);
    assert.deepEqual(kinds([...newestFirst].reverse(), 2050), []);
    // Both still holding after that ms: an overlap, in either order.
    const both = [ev('acquired', 2000, 'B', { validityMs: 96 }), ev('acquired', 2000, 'A', { validityMs: 4947 })];
    assert.deepEqual(kinds(both, 2050), ['overlap']);
    assert.deepEqual(kinds([...both].reverse(), 2050), ['overlap']);
  });

  it('overlap: a grant while the first holder still held its lease, with both grants as evidence', () => {
    const [f, ...rest] = audit([ev('acquired', 1000, 'A', { validityMs: 9990 }), ev('acquired', 3000, 'B', { validityMs: 9990 }), ev('released', 4000, 'B'), ev('released', 5000, 'A')]);
    assert.equal(rest.length, 0);
    assert.equal(f.kind, 'overlap');
    assert.equal(f.at, 3000);
    assert.deepEqual(f.holders.map((h) => h.token), ['A', 'B']);
    assert.deepEqual(f.evidence.map((e) => `${e.type} ${e.token}`), ['acquired A', 'acquired B']);
  });

  it('no overlap once the first lease ran out, nor within the clock tolerance', () => {
    assert.deepEqual(kinds([ev('acquired', 1000, 'A', { validityMs: 1000 }), ev('acquired', 2001, 'B', { validityMs: 1000 }), ev('released', 2500, 'B')]), ['expired-unreleased']);
    assert.deepEqual(kinds([ev('acquired', 1000, 'A', { validityMs: 1000 }), ev('released', 2010, 'A'), ev('acquired', 1990, 'B', { validityMs: 1000 }), ev('released', 2500, 'B')]), []);
  });

  it('an extension counts from when it was made: a grant after a lapsed lease is no overlap, the late extend is past-lease', () => {
    const events = [ev('acquired', 1000, 'A', { validityMs: 500 }), ev('acquired', 1600, 'B', { validityMs: 5000 }), ev('extended', 1700, 'A', { validityMs: 500 })];
    assert.deepEqual(kinds(events, 1800), ['past-lease']);
  });

  it('past-lease: a release that found its lock gone, and how late an action came', () => {
    const [f] = audit([ev('acquired', 1000, 'A', { validityMs: 300 }), ev('acquired', 1400, 'B', { validityMs: 5000 }), ev('released', 1500, 'B'), ev('released', 2000, 'A', { held: false })]);
    assert.equal(f.kind, 'past-lease');
    assert.equal(f.at, 2000);
    assert.match(f.detail, /700 ms after its lease had ended/);
    assert.deepEqual(f.evidence.map((e) => `${e.type} ${e.token}`), ['acquired A', 'released A']);
  });

  it('fence-order: a fence not above an earlier one', () => {
    const findings = audit([ev('acquired', 1000, 'A', { validityMs: 100, fence: 7 }), ev('released', 1050, 'A'), ev('acquired', 1200, 'B', { validityMs: 100, fence: 7 }), ev('released', 1250, 'B'), ev('acquired', 1300, 'C', { validityMs: 100, fence: 8 }), ev('released', 1350, 'C')]);
    assert.deepEqual(findings.map((f) => `${f.kind} ${f.holders.map((h) => h.token).join('>')}`), ['fence-order A>B']);
  });

  it('lost-unnoticed: the loss came long after the lease ran out; expired-unreleased: never released', () => {
    const findings = audit([ev('acquired', 1000, 'A', { validityMs: 500 }), ev('lost', 4000, 'A'), ev('acquired', 5000, 'B', { validityMs: 500 })], 9000);
    assert.deepEqual(findings.map((f) => `${f.kind} ${f.at}`), ['lost-unnoticed 1500', 'expired-unreleased 5500']);
    assert.match(findings[0].detail, /2500 ms before its holder noticed/);
  });

  it('events without a validity (older recorders) prove nothing: no overlap is claimed', () => {
    assert.deepEqual(kinds([ev('acquired', 1000, 'A'), ev('acquired', 1200, 'B'), ev('released', 1300, 'B')]), []);
  });

  it('the window: findings before `fromMs` are left out, leases still shaped by older events', () => {
    const events = [ev('acquired', 1000, 'A', { validityMs: 100 }), ev('acquired', 5000, 'B', { validityMs: 9000 }), ev('acquired', 6000, 'C', { validityMs: 100 }), ev('released', 6050, 'C')];
    assert.deepEqual(auditHistory('k', events, { nowMs: 20_000, fromMs: 4000 }).map((f) => f.kind), ['overlap', 'expired-unreleased']);
  });
});

describe('historyHorizon: from when logs cut at their cap are whole', () => {
  // Three nodes, logs cut at 3 entries. Node c was down while A released, so its cut log
  // reaches back further: A's grant, with no release on any log that reaches that far.
  const a = [ev('released', 5000, 'C'), ev('acquired', 4000, 'C', { validityMs: 990 }), ev('released', 3000, 'B')];
  const b = [ev('released', 5000, 'C'), ev('acquired', 4000, 'C', { validityMs: 990 }), ev('released', 3000, 'B')];
  const c = [ev('released', 5000, 'C'), ev('acquired', 4000, 'C', { validityMs: 990 }), ev('acquired', 1000, 'A', { validityMs: 990 })];

  it('a hole in the part only one cut log reaches is not told as a finding', () => {
    const merged = [...a, ev('acquired', 2000, 'B', { validityMs: 990 }), ...c.slice(2)];
    assert.deepEqual(kinds(merged, 9000), ['expired-unreleased'], 'without the horizon: A seems never released');
    const horizon = historyHorizon([a, b, c], 2);
    assert.equal(horizon, 3000);
    assert.deepEqual(auditHistory('orders:42', merged, { nowMs: 9000, horizonMs: horizon }).map((f) => f.kind), []);
  });

  it('a log shorter than the longest was not cut and bounds nothing: a node that restarted empty hides no finding', () => {
    const full = [ev('released', 5000, 'A'), ev('acquired', 3000, 'B', { validityMs: 9990 }), ev('acquired', 1000, 'A', { validityMs: 9990 })];
    const wiped = [ev('released', 5000, 'A'), ev('acquired', 3000, 'B', { validityMs: 9990 })];
    const horizon = historyHorizon([full, wiped, wiped], 2);
    assert.equal(horizon, -Infinity);
    assert.deepEqual(auditHistory('orders:42', full, { nowMs: 9000, horizonMs: horizon }).map((f) => f.kind), ['overlap']);
  });

  it('no log read: nothing to bound; fewer than a quorum of logs: nothing known whole', () => {
    assert.equal(historyHorizon([null, [], null], 2), null);
    assert.equal(historyHorizon([a, null, null], 2), Infinity);
  });
});

describe('auditObserved (what a watch saw, no holder recorded)', () => {
  const seen = (at: number, kind: string, token: string | null, nodes: string[], previousToken: string | null = null) => ({ at, kind, token, previousToken, nodes });
  const N = ['a', 'b', 'c', 'd', 'e'];

  it('a clean foreign handover, released or taken over between reads: no finding', () => {
    const findings = auditObserved('orders:42', [
      seen(1000, 'acquired', 'A', N),
      seen(2000, 'holder-changed', 'B', N, 'A'),
      seen(3000, 'released', 'B', N),
      seen(4000, 'acquired', 'C', ['a', 'b', 'c']),
      seen(4000, 'acquired', 'D', ['d', 'e']),
    ], { quorum: 3 });
    assert.deepEqual(findings, []);
  });

  it('copies left to run out with no release seen, and two quorums at one read, each saying it was observed', () => {
    const findings = auditObserved('orders:42', [
      seen(1000, 'acquired', 'A', ['a', 'b', 'c']),
      // One read sees a second quorum appear (nodes that lost their data, say) while A still holds its own.
      seen(2000, 'acquired', 'B', ['d', 'e']),
      seen(2000, 'holder-changed', 'B', ['c'], 'A'),
      seen(3000, 'acquired', 'X', ['f', 'g']),
      seen(5000, 'expired', 'A', ['a', 'b']),
      // B released on some nodes and left to expire on others: a release was seen, no finding.
      seen(6000, 'released', 'B', ['c', 'd']),
      seen(7000, 'expired', 'B', ['e']),
    ], { quorum: 3 });
    assert.deepEqual(findings.map((f) => [f.kind, f.at, f.holders.map((h) => h.token)]), [['expired-unreleased', 5000, ['A']]]);
    const overlap = auditObserved('k', [seen(1000, 'acquired', 'A', ['a', 'b', 'c']), seen(2000, 'acquired', 'B', ['d', 'e', 'f'])], { quorum: 3 });
    assert.deepEqual(overlap.map((f) => [f.kind, f.at, f.holders.map((h) => h.token)]), [['overlap', 2000, ['A', 'B']]]);
    for (const f of [...findings, ...overlap]) {
      assert.equal(f.observed, true);
      assert.deepEqual(f.evidence, []);
      assert.ok(f.detail.endsWith(`(${OBSERVED_EVIDENCE})`), f.detail);
    }
  });
});
