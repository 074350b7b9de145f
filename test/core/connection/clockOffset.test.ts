import assert from 'node:assert/strict';
import { agedError, betterSample, CLOCK_DRIFT_RATE, offsetAt, type ClockSample } from '../../../src/core/connection/clockOffset';

const sample = (offsetMs: number, errMs: number, atMs: number): ClockSample => ({ offsetMs, errMs, atMs });

describe('clock offset: the best measurement a connection had', () => {
  it('keeps a precise offset over a later one measured across a slow round trip', () => {
    const quick = sample(3, 0.2, 1_000);
    // 300 ms round trip: the true offset lies within 150 ms of this one, and within 0.2 ms of the kept one.
    const slow = sample(140, 150, 2_000);
    assert.equal(betterSample(quick, slow), quick);
    assert.deepEqual(offsetAt(quick, 2_000), { offsetMs: 3, errMs: 0.2 + 1_000 * CLOCK_DRIFT_RATE });
  });

  it('takes a new measurement once it is as precise as the kept one has grown with age', () => {
    const kept = sample(3, 0.2, 0);
    // Ten seconds on, the kept one may be off by 5.2 ms.
    assert.equal(agedError(kept, 10_000), 0.2 + 10_000 * CLOCK_DRIFT_RATE);
    const fresh = sample(3.5, 4, 10_000);
    assert.equal(betterSample(kept, fresh), fresh);
    assert.equal(betterSample(kept, sample(3.5, 6, 10_000)), kept);
  });

  it('takes a measurement that the kept one cannot agree with: a clock stepped, or another server answers', () => {
    const kept = sample(3, 0.2, 0);
    const stepped = sample(1_003, 40, 1_000);
    assert.equal(betterSample(kept, stepped), stepped);
    assert.equal(betterSample(null, stepped), stepped);
  });
});
