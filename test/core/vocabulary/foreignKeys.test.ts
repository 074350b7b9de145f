// Other libraries' bookkeeping names: the lock each of their bookkeeping keys serves (pure).
import assert from 'node:assert/strict';
import { bookkeepingOf } from '../../../src/core/vocabulary/foreignKeys';

const U = '0f6c2a58-3c1e-4b57-9d7a-5a0d8e1c9b21';

describe('their bookkeeping keys', () => {
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
});
