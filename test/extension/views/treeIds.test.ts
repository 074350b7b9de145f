// Tree item ids (src/extension/views/treeIds.ts).
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { elementId } from '../../../src/extension/views/treeIds';

describe('tree ids', () => {
  it('builds injective tree ids for arbitrary keys', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), fc.string(), (a, b, c, d) => {
        if (a === c && b === d) return;
        assert.notEqual(elementId('copy', a, b), elementId('copy', c, d));
      }),
    );
    assert.notEqual(elementId('lock', 'a,b'), elementId('copy', 'a', 'b'));
  });
});
