import * as assert from 'node:assert/strict';
import { lockSeverity } from '../../src/shared/severity';
import { absent, lockEntry, present, unreachable } from '../support/entries';

const T1 = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const T2 = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';

describe('lockSeverity', () => {
  it('grades the classified entry: held ok, degraded caution, partial / no TTL warning, split error', () => {
    const held = lockEntry('k', [present('a', T1), present('b', T1), present('c', T1)]);
    assert.equal(held.verdict, 'held');
    assert.equal(lockSeverity(held), 'ok');
    const degraded = lockEntry('k', [present('a', T1), present('b', T1), unreachable('c')]);
    assert.ok(degraded.flags.includes('degraded'));
    assert.equal(lockSeverity(degraded), 'caution');
    const partial = lockEntry('k', [present('a', T1), absent('b'), absent('c')]);
    assert.equal(partial.verdict, 'partial');
    assert.equal(lockSeverity(partial), 'warning');
    const noTtl = lockEntry('k', [present('a', T1, -1), present('b', T1, -1), present('c', T1, -1)]);
    assert.ok(noTtl.flags.includes('no-ttl'));
    assert.equal(lockSeverity(noTtl), 'warning');
    const split = lockEntry('k', [present('a', T1), present('b', T2), absent('c')]);
    assert.equal(split.verdict, 'split');
    assert.equal(lockSeverity(split), 'error');
  });
});
