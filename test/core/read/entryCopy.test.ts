import assert from 'node:assert/strict';
import { newEntry, withLiveness, withNodes } from '../../../src/core/read/entryCopy';
import { classifyCopies } from '../../../src/core/vocabulary/classify';
import type { Liveness, LockEntry, Observation } from '../../../src/core/vocabulary/types';
import { lockEntry, present } from '../../support/entries';

const nodes = [present('a', 't', 9000), present('b', 't', 8000), present('c', 'u', 7000)];

function built(copies: Observation[] = nodes): LockEntry {
  const c = classifyCopies({ observations: copies, readAtMs: copies.map(() => 0), nowMs: 0, driftFactor: 0.01, expiringThresholdMs: 2000 })!;
  return newEntry('k', c, null, false, copies, null, undefined);
}

describe('entryCopy: entries the read pipeline builds, and their copies', () => {
  it('builds the entry the builders classify, its holders derived, in the document\'s order', () => {
    const e = built();
    assert.deepEqual({ ...e }, { ...lockEntry('k', nodes), holder: null, waiters: [] });
    assert.equal(typeof Object.getOwnPropertyDescriptor(e, 'holders')!.get, 'function');
    assert.deepEqual(Object.keys(e), ['key', 'verdict', 'flags', 'validityMs', 'quorum', 'holders', 'fence', 'fenceRisk', 'nodes', 'holder', 'waiters']);
  });

  it('copies keep the holders derived, from the copies they are given', () => {
    const liveness: Liveness = { verdict: 'unknown', reason: 'r', evidence: [] } as unknown as Liveness;
    const e = built();
    const judged = withLiveness(e, liveness);
    const counted = withNodes(judged, [present('a', 't', 10), present('b', 't', 10), present('c', 't', 10)]);
    for (const x of [judged, counted]) assert.equal(typeof Object.getOwnPropertyDescriptor(x, 'holders')!.get, 'function');
    assert.deepEqual({ ...judged.holders }, { t: 2, u: 1 });
    assert.deepEqual({ ...counted.holders }, { t: 3 });
    assert.deepEqual({ ...judged, liveness: undefined }, { ...e, liveness: undefined });
    assert.equal(counted.liveness, liveness);
    assert.equal(counted.validityMs, e.validityMs);
    assert.deepEqual(Object.keys(counted), ['key', 'verdict', 'flags', 'validityMs', 'quorum', 'holders', 'fence', 'fenceRisk', 'nodes', 'holder', 'waiters', 'liveness']);
  });
});
