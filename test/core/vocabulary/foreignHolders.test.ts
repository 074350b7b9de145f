// Other libraries' holder conventions in a string value: only exact ones are decoded (pure).
import assert from 'node:assert/strict';
import { foreignStringHolder } from '../../../src/core/vocabulary/foreignHolders';

describe('their holder conventions', () => {
  it('decodes only exact conventions', () => {
    assert.equal(foreignStringHolder('WEB 01_42_0123456789abcdef0123456789abcdef'), null);
    assert.equal(foreignStringHolder('WEB-01_42_0123456789ABCDEF0123456789ABCDEF'), null);
    assert.equal(foreignStringHolder('ADDED:2026-13-45T99:99:99Z@h'), null);
    assert.equal(foreignStringHolder('node:123:0123456789abcdef'), null);
    assert.equal(foreignStringHolder('a:b:c'), null);
  });
});
