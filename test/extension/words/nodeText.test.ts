// A node's words in the Nodes view (src/extension/words/nodeText.ts).
import * as assert from 'node:assert/strict';
import { nodeDescription } from '../../../src/extension/words/nodeText';

describe('node words in the tree', () => {
  it('describes an unreachable node by its error, escaped onto one line', () => {
    assert.equal(nodeDescription(undefined, { node: 'a', reachable: false, latencyMs: null, error: 'NOAUTH\nx', outcome: 'auth' }), 'unreachable: NOAUTH\\nx');
  });
});
