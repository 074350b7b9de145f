import assert from 'node:assert/strict';
import { globForKey } from '../../../src/core/vocabulary';

describe('tokens', () => {
  it('globForKey matches exactly the key', () => {
    assert.equal(globForKey(Buffer.from('lock:[a]*?\\x')), 'lock:\\[a\\]\\*\\?\\\\x');
    // Invalid UTF-8: each non-ASCII byte is any one byte; the caller keeps the exact key.
    assert.equal(globForKey(Buffer.from([0x6c, 0xff, 0x2a])), 'l?\\*');
  });
});
