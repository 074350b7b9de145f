// Key filters: Redis globs, or a substring without wildcards (src/shared/glob.ts).
import * as assert from 'node:assert/strict';
import { globToRegExp, keyMatcher } from '../../src/shared/glob';

describe('key filter globs', () => {
  it('filters with Redis globs, or by substring without wildcards', () => {
    assert.ok(globToRegExp('lock:*:a?c').test('lock:x:abc'));
    assert.ok(globToRegExp('l[a-c]ck').test('lbck'));
    assert.ok(!globToRegExp('l[^o]ck').test('lock'));
    assert.ok(globToRegExp('a.b(c)').test('a.b(c)'));
    assert.ok(keyMatcher('split')('lock:split:payments'));
    assert.ok(keyMatcher('')('anything'));
  });
});
