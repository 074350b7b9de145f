// Other libraries' bookkeeping names, holder conventions and discovery's patterns: pure.
import assert from 'node:assert/strict';
import { bookkeepingOf, foreignStringHolder, lockShapeOf, patternOf, UNKNOWN_LIBRARY } from '../../../src/core/vocabulary';
import type { Observation } from '../../../src/core/vocabulary';

const U = '0f6c2a58-3c1e-4b57-9d7a-5a0d8e1c9b21';

describe('their bookkeeping, holders and shapes', () => {
  it('names the lock each Redisson and python-redis-lock bookkeeping key serves', () => {
    assert.deepEqual(bookkeepingOf('redisson_lock_queue:{myLock}'), { kind: 'fair-queue', library: 'redisson', owners: ['myLock', '{myLock}'] });
    assert.deepEqual(bookkeepingOf('redisson_lock_timeout:{a:b}')?.owners, ['a:b', '{a:b}']);
    // A name with a tag of its own is not wrapped: it is the lock's name as is.
    assert.deepEqual(bookkeepingOf('redisson_lock_token:orders{7}')?.owners, ['orders{7}']);
    assert.deepEqual(bookkeepingOf('redisson_unlock_latch:{myLock}:9f2c')?.owners, ['myLock', '{myLock}']);
    assert.deepEqual(bookkeepingOf(`{rw}:${U}:12:rwlock_timeout:3`), { kind: 'rw-timeout', library: 'redisson', owners: ['rw', '{rw}'] });
    assert.deepEqual(bookkeepingOf('lock-signal:report'), { kind: 'signal', library: 'python-redis-lock', owners: ['lock:report'] });
    for (const k of ['redisson_lock_token:plain', 'myLock', 'lock:report', 'redisson_other:{x}', `x:${U}:1:rwlock_timeout`, 'lock-signal:']) assert.equal(bookkeepingOf(k), null, k);
  });

  it('decodes only exact conventions', () => {
    assert.equal(foreignStringHolder('WEB 01_42_0123456789abcdef0123456789abcdef'), null);
    assert.equal(foreignStringHolder('WEB-01_42_0123456789ABCDEF0123456789ABCDEF'), null);
    assert.equal(foreignStringHolder('ADDED:2026-13-45T99:99:99Z@h'), null);
    assert.equal(foreignStringHolder('node:123:0123456789abcdef'), null);
    assert.equal(foreignStringHolder('a:b:c'), null);
  });

  it('groups keys under their first part and escapes glob characters', () => {
    assert.equal(patternOf('orders:42'), 'orders:*');
    assert.equal(patternOf('job-lock:prod:report'), 'job-lock:*');
    assert.equal(patternOf('my*lock'), 'my\\*lock');
    assert.equal(patternOf('[x]:1'), '\\[x\\]:*');
    assert.equal(patternOf('caf\xe9'), null);
  });

  it('a value is lock-shaped only with a known token shape (and a TTL when it names nobody)', () => {
    const o = (token: string, pttlMs: number, format: Observation['format'] = 'string'): Observation => ({ node: 'n', state: 'present', token, pttlMs, type: 'string', format, holdCount: null, reason: null });
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
