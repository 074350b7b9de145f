import assert from 'node:assert/strict';
import { deriveHolders, holdersOf } from '../../../src/core/vocabulary/holderCounts';
import { classify } from '../../../src/core/vocabulary/classify';
import type { LockEntry } from '../../../src/core/vocabulary/types';
import { absent, present, unreachable } from '../../support/entries';

describe('holderCounts: a lock\'s holders from its copies', () => {
  it('counts the present copies by token, a copy without one as \'\', and takes any token as data', () => {
    const nodes = [present('a', 'x'), present('b', '__proto__'), present('c', 'x'), absent('d'), unreachable('e'), { ...present('f', 'y'), token: null }];
    const holders = holdersOf(nodes);
    // JSON.parse makes `__proto__` an own key, as the record holds it.
    assert.deepEqual({ ...holders }, JSON.parse('{"x":2,"__proto__":1,"":1}'));
    assert.equal(Object.getPrototypeOf(holders), null);
    assert.deepEqual(Object.keys(holders).sort(), ['', '__proto__', 'x']);
    // The same record classify() gives.
    assert.deepEqual(holders, classify({ observations: nodes, readAtMs: nodes.map(() => 0), nowMs: 0, driftFactor: 0.01, expiringThresholdMs: 2000 })!.holders);
  });

  it('a derived record follows the copies, and reads as data: JSON in its place, spreads, keys', () => {
    const e = deriveHolders({ key: 'k', verdict: 'split', flags: [], validityMs: null, quorum: 2 } as unknown as LockEntry);
    e.fence = null;
    e.fenceRisk = false;
    e.nodes = [present('a', 's'), present('b', 't'), present('c', 's')];
    assert.deepEqual({ ...e.holders }, { s: 2, t: 1 });
    assert.deepEqual(Object.keys(e), ['key', 'verdict', 'flags', 'validityMs', 'quorum', 'holders', 'fence', 'fenceRisk', 'nodes']);
    assert.match(JSON.stringify(e), /"quorum":2,"holders":\{"s":2,"t":1\},"fence":null/);
    const spread = { ...e };
    assert.equal(Object.getOwnPropertyDescriptor(spread, 'holders')!.get, undefined, 'a spread copies the record as data');
    assert.deepEqual(spread, { ...e });
    e.nodes = [present('a', 's')];
    assert.deepEqual({ ...e.holders }, { s: 1 });
  });
});
