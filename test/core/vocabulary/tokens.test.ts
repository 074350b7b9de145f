import assert from 'node:assert/strict';
import fc from 'fast-check';
import { globForKey } from '../../../src/core/vocabulary';
import { displayTokenRange, showsAs } from '../../../src/core/vocabulary/tokens';

describe('tokens', () => {
  it('globForKey matches exactly the key', () => {
    assert.equal(globForKey(Buffer.from('lock:[a]*?\\x')), 'lock:\\[a\\]\\*\\?\\\\x');
    // Invalid UTF-8: each non-ASCII byte is any one byte; the caller keeps the exact key.
    assert.equal(globForKey(Buffer.from([0x6c, 0xff, 0x2a])), 'l?\\*');
  });

  // A copy on another node takes the first copy's token string when showsAs says its bytes
  // show as it: a wrong yes would show one node's token for another's bytes.
  it('showsAs says yes only where displayTokenRange gives that string, and for every printable token', () => {
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 12 }),
      fc.string({ maxLength: 12 }).map((s) => new Uint8Array(Buffer.from(s, 'latin1'))),
      fc.string({ maxLength: 12 }).map((s) => new Uint8Array(Buffer.from('hex:' + s, 'utf8'))),
      fc.string({ unit: 'grapheme', maxLength: 6 }).map((s) => new Uint8Array(Buffer.from(s, 'utf8'))),
    );
    fc.assert(
      fc.property(bytes, bytes, fc.nat(3), (a, b, pad) => {
        // The token's bytes inside a larger reply, as a packed page holds them.
        const buf = Buffer.concat([Buffer.alloc(pad, 0x41), a, Buffer.alloc(pad, 0x42)]);
        const [start, end] = [pad, pad + a.length];
        const shown = displayTokenRange(buf, start, end);
        for (const candidate of [shown, displayTokenRange(Buffer.from(b), 0, b.length), Buffer.from(b).toString('latin1')]) {
          if (showsAs(candidate, buf, start, end)) assert.equal(candidate, shown);
        }
        const printable = a.every((c) => c >= 0x20 && c <= 0x7e) && !Buffer.from(a).toString('latin1').startsWith('hex:');
        assert.equal(showsAs(shown, buf, start, end), printable);
      }),
      { numRuns: 2000 },
    );
    assert.equal(showsAs('hex:0102', Buffer.from('hex:0102'), 0, 8), false);
    assert.equal(showsAs('token-7', Buffer.from('token-7'), 0, 7), true);
    assert.equal(showsAs('token-7', Buffer.from('token-8'), 0, 7), false);
  });
});
