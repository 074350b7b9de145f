// The order locks are listed in on every surface (src/shared/lockOrder.ts).
import * as assert from 'node:assert/strict';
import { compareLocks, isAnomaly, sortLocks } from '../../src/shared/lockOrder';
import { heldEntry } from '../support/entries';

describe('lock order', () => {
  it('never swaps two calm locks whose time left changes (watchdog renewals)', () => {
    const rw = (ms: number) => heldEntry('lock:redisson-rw:catalog', { validityMs: ms });
    const ri = (ms: number) => heldEntry('lock:redisson:inventory', { validityMs: ms });
    const orders = [[rw(29_000), ri(21_000)], [rw(21_000), ri(29_000)], [ri(25_000), rw(24_000)]].map((ls) => sortLocks(ls).map((e) => e.key));
    for (const o of orders) assert.deepEqual(o, orders[0]);
  });

  it('orders anomalies first (split, partial, unknown, no TTL), then by key, never by time left', () => {
    const locks = [
      heldEntry('held-long', { validityMs: 9000 }),
      heldEntry('no-ttl', { flags: ['no-ttl'], validityMs: null }),
      heldEntry('held-short', { validityMs: 1000, flags: ['expiring'] }),
      heldEntry('unknown', { verdict: 'unknown', validityMs: null }),
      heldEntry('split', { verdict: 'split', validityMs: null }),
      heldEntry('partial', { verdict: 'partial', validityMs: null }),
      heldEntry('a-held', { validityMs: 20_000 }),
    ];
    assert.deepEqual(sortLocks(locks).map((e) => e.key), ['split', 'partial', 'unknown', 'no-ttl', 'a-held', 'held-long', 'held-short']);
    assert.equal(compareLocks(locks[0], locks[0]), 0);
    assert.ok(isAnomaly(locks[1]) && !isAnomaly(locks[0]));
  });
});
