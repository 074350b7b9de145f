import assert from 'node:assert/strict';
import { safeJson, safeJsonPieces } from '../../src/cli/escape';
import type { LockEntry } from '../../src/core/vocabulary/types';
import { absent, lockEntry, present, unreachable } from '../support/entries';

const UNSAFE = 'k\x7f\x85\u2028\u2029\u202e\u200b\ud800\u{1f642}\u{e0001}"\\\n';

/** A snapshot-like document: the arrays safeJsonPieces writes element by element, and the rest. */
function documentOf(locks: number): Record<string, unknown> {
  return {
    quorum: 2,
    nodes: [{ node: 'a', reachable: true, error: null }, { node: `b${UNSAFE}`, reachable: false, error: UNSAFE }],
    locks: Array.from({ length: locks }, (_, i) =>
      lockEntry(`lock:${i}:${UNSAFE}`, [present('a', `t${i}${UNSAFE}`), i % 3 === 0 ? absent('b') : unreachable('b', UNSAFE), present('c', `t${i}${UNSAFE}`, -1)])),
    skipped: [{ key: UNSAFE, reason: 'orphaned', of: 'x' }],
    truncated: false,
    at: 1_700_000_000_000,
  };
}

describe('cli/escape', () => {
  it('safeJsonPieces writes, piece by piece, the very text safeJson writes', () => {
    const odd: Array<Record<string, unknown>> = [
      {},
      { a: [] },
      { a: undefined, b: () => 1, c: Symbol('s') },
      { a: undefined, b: [1, [2, [3, {}]], { c: [] }], d: null },
      { first: [undefined, () => 1, null, new Date(0), { toJSON: () => 'j' }], last: undefined },
      { nested: { deeper: { list: [1, 2], text: UNSAFE } }, at: new Date(0) },
      JSON.parse('{"__proto__": [1, 2], "holders": {"__proto__": 2}}') as Record<string, unknown>,
      documentOf(0),
      documentOf(1),
      documentOf(250),
    ];
    for (const doc of odd) {
      // 12 is JSON.stringify's 10; -1 is no indentation, as there.
      for (const indent of [undefined, 0, 1, 2, 4, 12, -1]) {
        assert.equal([...safeJsonPieces(doc, indent)].join(''), safeJson(doc, indent), `${JSON.stringify(doc)} at ${indent}`);
      }
    }
  });

  it('a document JSON.stringify would write some other way goes out whole', () => {
    const withToJson = { locks: [1, 2], toJSON: () => ({ other: true }) };
    assert.deepEqual([...safeJsonPieces(withToJson, 2)], [safeJson(withToJson, 2)]);
    assert.deepEqual([...safeJsonPieces([1, 2, 3])], ['[1,2,3]']);
  });

  it('a large array goes out in pieces of a hundred elements, none a copy of the whole', () => {
    const doc = documentOf(3_000);
    const whole = safeJson(doc);
    const pieces = [...safeJsonPieces(doc)];
    const longest = Math.max(...(doc.locks as LockEntry[]).map((l) => safeJson(l).length));
    assert.ok(pieces.length >= 30, `${pieces.length} pieces`);
    for (const p of pieces) assert.ok(p.length <= 100 * (longest + 1) + 1_000, `a piece of ${p.length} characters`);
    assert.equal(pieces.join(''), whole);
  });

});
