import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MAX_TOKEN_BYTES, recognise, type RawValue } from '../../../src/core/vocabulary/formats';
import { parseTokenArg } from '../../../src/core/vocabulary/tokens';

const b = (s: string): Buffer => Buffer.from(s, 'utf8');
const str = (s: string | Buffer): RawValue => ({ type: 'string', value: typeof s === 'string' ? b(s) : s });
const hash = (...entries: Array<[string, string]>): RawValue => ({
  type: 'hash',
  entries: entries.map(([f, v]) => [b(f), b(v)]),
});
const zset = (...members: Array<string | Buffer>): RawValue => ({
  type: 'zset',
  members: members.map((m) => (typeof m === 'string' ? b(m) : m)),
});

const U1 = '0b5d2d6e-4a53-4bd5-9a6c-7a1fcd6c0a11';
const U2 = 'f3c1a9e2-1111-4c2e-8f00-2b8de0c3d9a7';

describe('recognise', () => {
  it('absent key', () => {
    assert.deepEqual(recognise({ type: 'none' }), {
      state: 'absent', token: null, format: null, holdCount: null, reason: null,
    });
  });

  it('plain string tokens of every library', () => {
    for (const token of [
      '2a1f0c6e9b8d4f3a5c7e1b0d9f8a6c4e', // node-redlock, redlock-universal
      'Vt9v0XoJm6wYqR3kz1s8AQ==', // redsync
      '0c3f7d2e-9b1a-4c5d-8e6f-1a2b3c4d5e6f', // redis-semaphore mutex
      'my-worker-42', // hand-written SET NX PX
    ]) {
      assert.deepEqual(recognise(str(token)), {
        state: 'present', token, format: 'string', holdCount: null, reason: null,
      });
    }
  });

  it('string bounds: empty and over MAX_TOKEN_BYTES are unreadable', () => {
    assert.equal(recognise(str('x'.repeat(MAX_TOKEN_BYTES))).state, 'present');
    assert.deepEqual(recognise(str('x'.repeat(MAX_TOKEN_BYTES + 1))), {
      state: 'unreadable', token: null, format: null, holdCount: null, reason: 'too-large',
    });
    assert.equal(recognise(str('')).reason, 'empty');
  });

  it('binary values show as hex:', () => {
    assert.equal(recognise(str(Buffer.from([0xff, 0x00, 0x10]))).token, 'hex:ff0010');
    assert.equal(recognise(str('hex:41')).token, 'hex:6865783a3431');
  });

  it('hostile strings: markup stays text, control characters become hex', () => {
    assert.equal(recognise(str('<img src=x onerror=alert(1)>')).token, '<img src=x onerror=alert(1)>');
    const ansi = '\u001b[31mred\u001b[0m';
    assert.equal(recognise(str(ansi)).token, 'hex:' + b(ansi).toString('hex'));
    assert.equal(recognise(str('a\nb')).token, 'hex:610a62');
    assert.equal(recognise(str('\u202eevil')).token, 'hex:' + b('\u202eevil').toString('hex'));
  });

  it('Redisson RLock: field <uuid>:<threadId> -> hold count', () => {
    assert.deepEqual(recognise(hash([`${U1}:1`, '1'])), {
      state: 'present', token: `${U1}:1`, format: 'redisson-lock', holdCount: 1, reason: null,
    });
    const reentrant = recognise(hash([`${U1}:57`, '3']));
    assert.equal(reentrant.holdCount, 3);
    const two = recognise(hash([`${U2}:9`, '1'], [`${U1}:12`, '2']));
    assert.equal(two.token, `${U1}:12,${U2}:9`);
    assert.equal(two.holdCount, 2);
  });

  it('Redisson read-write lock: mode plus holder fields', () => {
    assert.deepEqual(recognise(hash(['mode', 'write'], [`${U1}:7:write`, '1'])), {
      state: 'present', token: `${U1}:7:write`, format: 'redisson-rwlock', holdCount: 1, reason: null,
    });
    const readers = recognise(hash([`${U2}:3`, '2'], ['mode', 'read'], [`${U1}:5`, '1']));
    assert.equal(readers.format, 'redisson-rwlock');
    assert.equal(readers.token, `${U1}:5,${U2}:3`);
    assert.equal(readers.holdCount, 2);
  });

  it('redis-semaphore: zset of holder ids', () => {
    const ids = ['b2f0', 'a9e1', 'c0d3'];
    assert.deepEqual(recognise(zset(...ids)), {
      state: 'present', token: 'a9e1,b2f0,c0d3', format: 'semaphore', holdCount: null, reason: null,
    });
  });

  it('multi-holder tokens are joined from raw bytes, sorted by byte order', () => {
    const t = recognise(zset(Buffer.from([0xff]), 'é', 'Z', Buffer.from([0x00])));
    assert.equal(t.token, 'hex:' + Buffer.from([0x00, 0x2c, 0x5a, 0x2c, 0xc3, 0xa9, 0x2c, 0xff]).toString('hex'));
    const parts = parseTokenArg(t.token as string).toString('latin1').split(',');
    assert.equal(parts.length, 4);
  });

  it('other hashes and zsets are unrecognised', () => {
    const cases: RawValue[] = [
      hash(['owner', 'me']),
      hash([`${U1}:1`, 'one']),
      hash([`${U1}:1`, '-1']),
      hash([`${U1}:x`, '1']),
      hash([`${U1}:1:write`, '1']), // a suffix only with mode
      hash(['mode', 'write']),
      hash(['mode', 'exclusive'], [`${U1}:1`, '1']),
      hash(),
    ];
    for (const raw of cases) assert.equal(recognise(raw).reason, 'unrecognised-hash', JSON.stringify(raw));
    assert.equal(recognise(zset()).reason, 'unrecognised-zset');
    assert.equal(recognise(zset('a,b')).reason, 'unrecognised-zset');
    assert.equal(recognise(zset('')).reason, 'unrecognised-zset');
    assert.equal(recognise(zset('x'.repeat(MAX_TOKEN_BYTES + 1))).reason, 'too-large');
  });

  it('too large, and types the inspector does not read', () => {
    assert.equal(recognise({ type: 'hash', tooLarge: true, size: 1e6 }).reason, 'too-large');
    for (const type of ['list', 'set', 'stream', 'ReJSON-RL']) {
      assert.deepEqual(recognise({ type }), {
        state: 'unreadable', token: null, format: null, holdCount: null, reason: 'wrong-type',
      });
    }
  });

  it('never throws, whatever it is given', () => {
    const bytes = fc.uint8Array({ maxLength: 40 }).map((u) => Buffer.from(u));
    const raw = fc.oneof(
      fc.constant({ type: 'none' }),
      fc.record({ type: fc.constant('string'), value: fc.oneof(bytes, fc.uint8Array({ maxLength: 600 })) }),
      fc.record({ type: fc.constant('hash'), entries: fc.array(fc.tuple(bytes, bytes), { maxLength: 5 }) }),
      fc.record({
        type: fc.constant('hash'),
        entries: fc.array(
          fc.tuple(fc.constantFrom(`${U1}:1`, 'mode', `${U2}:2:write`, 'read'), fc.constantFrom('1', 'read', 'write', '7')).map(
            ([f, v]) => [b(f), b(v)],
          ),
          { maxLength: 4 },
        ),
      }),
      fc.record({ type: fc.constant('zset'), members: fc.array(bytes, { maxLength: 5 }) }),
      fc.record({ type: fc.string(), tooLarge: fc.constant(true), size: fc.nat() }),
      fc.record({ type: fc.string() }),
      fc.record({ type: fc.constantFrom('string', 'hash', 'zset'), value: fc.anything(), entries: fc.anything(), members: fc.anything() }),
      fc.anything(),
    );
    fc.assert(
      fc.property(raw, (r) => {
        const got = recognise(r as RawValue);
        assert.ok(['present', 'absent', 'unreadable'].includes(got.state));
        assert.equal(got.state === 'present', got.token !== null && got.format !== null);
      }),
      { numRuns: 3000 },
    );
  });
});
