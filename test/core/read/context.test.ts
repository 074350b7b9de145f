import assert from 'node:assert/strict';
import { nodeReads, withKeyTable, type InspectContext } from '../../../src/core/read/context';
import { KeyTable } from '../../../src/core/read/keyTable';

describe('context: the key table a read numbers its keys by', function () {
  const base: InspectContext = { nodes: [], driftFactor: 0.01, commandTimeoutMs: 100 };

  it('independent nodes share one table, kept where the caller brings one (a watch)', () => {
    const fresh = withKeyTable(base);
    assert.ok(fresh.keys instanceof KeyTable);
    assert.equal(nodeReads(fresh).table, nodeReads(fresh).table);
    const kept = new KeyTable();
    assert.equal(withKeyTable({ ...base, keys: kept }).keys, kept);
  });

  it("a cluster's masters each number their own keys: no master holds an array as long as all of them", () => {
    const cluster = withKeyTable({ ...base, ownerOnly: true, keys: new KeyTable() });
    assert.equal(cluster.keys, undefined);
    assert.notEqual(nodeReads(cluster).table, nodeReads(cluster).table);
  });
});
