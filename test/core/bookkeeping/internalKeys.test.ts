import assert from 'node:assert/strict';
import { hashTagOf, internalKey, isInternalKey, parseInternalKey } from '../../../src/core/bookkeeping/internalKeys';

describe('internal keys', () => {
  it('reuse a resource hash tag and wrap a resource without one', () => {
    assert.equal(internalKey('fence', 'orders:{42}'), '__rli:fence:=orders:{42}');
    assert.equal(hashTagOf(internalKey('fence', 'orders:{42}')), '42');
    assert.equal(internalKey('events', 'orders:42'), '__rli:events:{orders:42}');
    assert.equal(hashTagOf(internalKey('events', 'orders:42')), 'orders:42');
  });

  it('decode back to the resource, whatever its braces', () => {
    for (const r of ['x', '{x}', 'a{}b', 'a{b}c', '{', '}', '=x', 'lock:ü']) {
      for (const kind of ['fence', 'waiters', 'events'] as const) {
        const k = internalKey(kind, r);
        assert.ok(isInternalKey(k));
        assert.deepEqual(parseInternalKey(k), { kind, resource: r });
      }
    }
    assert.equal(parseInternalKey('lock:x'), null);
    assert.equal(parseInternalKey('__rli:other:{x}'), null);
  });
});
