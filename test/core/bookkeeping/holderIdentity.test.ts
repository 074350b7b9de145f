// The identity carried in our tokens: bounded, printable, comma-free, decodable, and
// never trusted on the way back in.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { displayToken } from '../../../src/core';
import { decodeIdentity, defaultHolderName, encodeIdentity, holderOf, PROCESS_ID, tokenWithIdentity } from '../../../src/core/bookkeeping/holderIdentity';
import { findCycles } from '../../../src/core/vocabulary/deadlocks';
import { describeAttempt } from '../../../src/core/lock/errors';

const RANDOM = '0123456789abcdef0123456789abcdef';

describe('holder identity in tokens', () => {
  it('round-trips name, host, pid, since and the process id', () => {
    const t = tokenWithIdentity(RANDOM, 1_700_000_000_123, encodeIdentity({ holderName: 'billing-worker' }));
    const id = decodeIdentity(t)!;
    assert.equal(id.name, 'billing-worker');
    assert.equal(id.pid, process.pid);
    assert.equal(typeof id.host, 'string');
    assert.equal(id.since, 1_700_000_000_123);
    assert.equal(id.id, PROCESS_ID);
    assert.deepEqual(holderOf(t, 'string'), { name: 'billing-worker', host: id.host, pid: process.pid, since: 1_700_000_000_123, thread: null, library: 'redlock-inspector' });
    // One permit of a semaphore (an owner) is decoded the same way.
    assert.deepEqual(holderOf(t, 'semaphore'), holderOf(t, 'string'));
  });

  it('a refusal names our holder instead of a token prefix', () => {
    const t = tokenWithIdentity(RANDOM, 5, encodeIdentity({ holderName: 'billing-worker' }));
    assert.equal(describeAttempt({ node: 'n1', outcome: 'held-by-other', heldBy: t }), `n1 held by billing-worker (pid ${process.pid})`);
    assert.equal(describeAttempt({ node: 'n1', outcome: 'held-by-other', heldBy: 'f'.repeat(32) }), `n1 held by ${'f'.repeat(12)}…`);
  });

  it('names the holder after the package or the script by default, never the node binary', () => {
    assert.equal(defaultHolderName({ npm_package_name: 'billing' }, ['node', '/srv/billing/dist/worker.js']), 'billing');
    assert.equal(defaultHolderName({}, ['node', '/srv/billing/dist/billing-worker.js']), 'billing-worker');
    assert.equal(defaultHolderName({}, ['node', '/srv/billing/index.mjs']), 'billing');
    assert.equal(defaultHolderName({}, ['node']), 'node');
    const t = tokenWithIdentity(RANDOM, 5, encodeIdentity({}));
    assert.equal(decodeIdentity(t)!.name, defaultHolderName());
    assert.notEqual(decodeIdentity(t)!.name, process.title);
  });

  it('anonymous keeps only the name', () => {
    const t = tokenWithIdentity(RANDOM, 5, encodeIdentity({ holderName: 'n', identity: 'anonymous' }));
    assert.deepEqual(holderOf(t, 'string'), { name: 'n', host: null, pid: null, since: 5, thread: null, library: 'redlock-inspector' });
  });

  it('any name stays bounded, printable and comma-free', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (name) => {
        const t = tokenWithIdentity(RANDOM, Date.now(), encodeIdentity({ holderName: name }));
        assert.ok(Buffer.byteLength(t) < 400, `${Buffer.byteLength(t)} bytes`);
        assert.ok(!t.includes(','));
        assert.equal(displayToken(t), t);
        const id = decodeIdentity(t)!;
        assert.ok(Buffer.byteLength(id.name!) <= 64);
        assert.ok(!/[,"\\\p{Cc}]/u.test(id.name!));
      }),
    );
  });

  it('other tokens and garbage carry no identity', () => {
    for (const t of [RANDOM, 'tok', `${RANDOM}.zz.!!!!`, `${RANDOM}.1.${Buffer.from('[1]').toString('base64url')}`, `${RANDOM}.1.${Buffer.from('{"i":"x","n":"a"}').toString('base64url')}`, `${RANDOM}.1.${Buffer.from('{"i":"0123456789abcdef","n":7}').toString('base64url')}`]) {
      assert.equal(decodeIdentity(t), null, t);
    }
    assert.deepEqual(holderOf('01234567-89ab-cdef-0123-456789abcdef:53', 'redisson-lock'), { name: null, host: null, pid: null, since: null, thread: 53, library: 'redisson' });
    assert.equal(holderOf('a:1,b:2', 'redisson-rwlock'), null);
  });
});

describe('wait-for cycles', () => {
  it('finds two- and three-process cycles, never a chain or a self-wait', () => {
    const cycles = findCycles([
      { key: 'x', holder: 'A', waiters: ['B'] },
      { key: 'y', holder: 'B', waiters: ['A'] },
      { key: 'p', holder: 'C', waiters: ['D'] },
      { key: 'q', holder: 'D', waiters: ['E'] },
      { key: 'r', holder: 'E', waiters: ['C', 'F'] },
      { key: 'chain', holder: 'F', waiters: ['G'] },
      { key: 'self', holder: 'G', waiters: ['G'] },
    ]);
    assert.deepEqual(Object.fromEntries(cycles), { x: ['x', 'y'], y: ['x', 'y'], p: ['p', 'q', 'r'], q: ['p', 'q', 'r'], r: ['p', 'q', 'r'] });
  });
});
