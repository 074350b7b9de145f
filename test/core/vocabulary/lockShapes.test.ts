// Discovery's lock shapes and patterns: which values look like a lock, and the pattern a key groups under (pure).
import assert from 'node:assert/strict';
import { lockShapeOf, patternOf, UNKNOWN_LIBRARY } from '../../../src/core/vocabulary/lockShapes';
import { present } from '../../support/entries';

describe('lock shapes', () => {
  it('groups keys under their first part and escapes glob characters', () => {
    assert.equal(patternOf('orders:42'), 'orders:*');
    assert.equal(patternOf('job-lock:prod:report'), 'job-lock:*');
    assert.equal(patternOf('my*lock'), 'my\\*lock');
    assert.equal(patternOf('[x]:1'), '\\[x\\]:*');
    assert.equal(patternOf('caf\xe9'), null);
  });

  it('a value is lock-shaped only with a known token shape (and a TTL when it names nobody)', () => {
    const o = (token: string, pttlMs: number) => present('n', token, pttlMs);
    assert.equal(lockShapeOf('a', o('0123456789abcdef0123456789abcdef', 5000)), 'node-redlock, redlock-universal or redis-py');
    assert.equal(lockShapeOf('a', o('0123456789abcdef0123456789abcdef', -1)), null);
    assert.equal(lockShapeOf('a', o('QUJDREVGR0hJSktMTU5PUA==', 5000)), 'redsync');
    assert.equal(lockShapeOf('a', o('hello world', 5000)), null);
    // Shapes no library is certain for: lock-shaped, library unknown; the same without a TTL is not.
    for (const t of ['3f786850e387550fdab836ed7e6dc881de23001b', 'F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6', 'V1StGXR8_Z5jdHi6B-myT0aB', 'worker-7.example:4242:17']) {
      assert.equal(lockShapeOf('a', o(t, 5000)), UNKNOWN_LIBRARY, t);
      assert.equal(lockShapeOf('a', o(t, -1)), null, t);
    }
    // Words and numbers a person writes are no token.
    for (const t of ['session-data-for-user-42', 'aaaaaaaaaaaaaaaaaaaaaaaaa', '12345678901234567890123', 'ThisIsAFairlyLongSentence']) assert.equal(lockShapeOf('a', o(t, 5000)), null, t);
    assert.equal(lockShapeOf('a', o('ADDED:2026-11-25T21:00:00Z@h', -1)), 'ShedLock');
    assert.equal(lockShapeOf('redisson_lock_token:{a}', o('ADDED:2026-11-25T21:00:00Z@h', -1)), null);
  });
});
