// Hold and wait times over recorded events: percentiles, leases' ends, stats over a window (pure).
import assert from 'node:assert/strict';
import { holdTimes, lockStats, percentiles } from '../../../src/core/vocabulary/lockStats';
import { leasesOf } from '../../../src/core/vocabulary/leases';
import { ev } from '../../support/events';

describe('hold and wait times (pure)', () => {
  it('percentiles by nearest rank, and an empty set', () => {
    assert.deepEqual(percentiles([]), { p50: null, p95: null, p99: null, max: null, count: 0 });
    const v = Array.from({ length: 100 }, (_, i) => i + 1);
    assert.deepEqual(percentiles(v), { p50: 50, p95: 95, p99: 99, max: 100, count: 100 });
  });

  it('a hold ends at its release, or at its lease end when it ran out or was released late', () => {
    const events = [
      ev('acquired', 1000, 'A', { validityMs: 900 }), ev('released', 1200, 'A'),
      ev('acquired', 2000, 'B', { validityMs: 300 }), ev('released', 2900, 'B', { held: false }),
      ev('acquired', 3000, 'C', { validityMs: 400 }),
      ev('acquired', 5000, 'D', { validityMs: 9000 }),
    ];
    assert.deepEqual(leasesOf(events, 6000).map((l) => l.end), ['released', 'released-late', 'expired', 'open']);
    assert.deepEqual(holdTimes(events, 6000, 10_000), [200, 300, 400]);
  });

  it('stats over a window: waits of granted and given-up calls, acquisitions and failures per minute', () => {
    const events = [
      ev('acquired', 10_000, 'A', { validityMs: 900, waitMs: 120 }), ev('released', 10_100, 'A'),
      ev('failed', 20_000, 'B', { waitMs: 3000, reason: 'held' }),
      ev('failed', 30_000, 'A', { operation: 'extend' }),
      ev('acquired', 40_000, 'C', { validityMs: 900 }), ev('released', 40_500, 'C'),
    ];
    const s = lockStats(events, 60_000, 60_000);
    assert.equal(s.windowMs, 60_000);
    assert.deepEqual(s.holdMs, { p50: 100, p95: 500, p99: 500, max: 500, count: 2 });
    assert.deepEqual(s.waitMs, { p50: 120, p95: 3000, p99: 3000, max: 3000, count: 2 });
    assert.equal(s.acquisitionsPerMin, 2);
    assert.equal(s.failuresPerMin, 1);
  });
});
