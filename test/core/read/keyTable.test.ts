import assert from 'node:assert/strict';
import { KeyTable } from '../../../src/core/read/keyTable';
import { NodeReads } from '../../../src/core/read/nodeReads';
import { present as copy } from '../../support/entries';

describe('keyTable', function () {
  it('numbers each id once, and hands back the string it first kept', () => {
    const t = new KeyTable();
    const first = ['lock', 'a'].join(':');
    assert.equal(t.number(first), 0);
    assert.equal(t.number('lock:b'), 1);
    assert.equal(t.number(['lock', 'a'].join(':')), 0);
    assert.equal(t.find('lock:c'), undefined);
    assert.equal(t.size, 2);
    assert.equal(t.nameOf(t.number('lock:a')), first);
    assert.equal(t.nameOf(1), 'lock:b');
  });

  it('finds a key by its bytes as by its latin1 id, binary names included, through every growth', () => {
    const t = new KeyTable();
    const names: Buffer[] = [];
    for (let i = 0; i < 5000; i++) names.push(Buffer.concat([Buffer.from(`lock:${i}:`), Buffer.from([0xff, i & 0xff, 0x00, 0x80])]));
    for (let i = 0; i < names.length; i++) assert.equal(t.numberOfBytes(names[i]), i);
    assert.equal(t.size, 5000);
    for (let i = 0; i < names.length; i++) {
      const id = names[i].toString('latin1');
      assert.equal(t.find(id), i);
      assert.equal(t.number(id), i);
      assert.equal(t.numberOfBytes(Buffer.from(names[i])), i, 'another Buffer of the same bytes');
      assert.equal(t.nameOf(i), id);
    }
    // A name one byte longer or shorter, or differing in its last byte, is another key.
    assert.equal(t.find(names[7].toString('latin1') + 'x'), undefined);
    assert.equal(t.find(names[7].subarray(0, names[7].length - 1).toString('latin1')), undefined);
    assert.equal(t.numberOfBytes(Buffer.from('')), 5000);
    assert.equal(t.find(''), 5000);
  });

  it('compacting drops the ids no reads hold and renumbers every reads given, copies intact', () => {
    const t = new KeyTable();
    const a = new NodeReads(t);
    const b = new NodeReads(t);
    const at = { at: 1, err: 0 };
    for (let i = 0; i < 10; i++) a.set(`k${i}`, copy('a', `a${i}`), at, undefined);
    for (let i = 5; i < 15; i++) b.set(`k${i}`, copy('b', `b${i}`), at, undefined);
    for (let i = 0; i < 8; i++) a.delete(`k${i}`);
    for (let i = 5; i < 12; i++) b.delete(`k${i}`);
    t.compact([a, b]);
    // Held: k8, k9 (a), k12-k14 (b).
    assert.deepEqual([...t.ids()], ['k8', 'k9', 'k12', 'k13', 'k14']);
    assert.equal(t.find('k3'), undefined);
    assert.equal(a.obsOf('k8')?.token, 'a8');
    assert.equal(a.obsOf('k9')?.token, 'a9');
    assert.equal(b.obsOf('k13')?.token, 'b13');
    assert.equal(b.obsAt(t.find('k14')!)?.token, 'b14');
    assert.equal(b.stampOf('k14'), at);
    assert.equal(a.obsOf('k12'), undefined);
    assert.equal(a.size, 2);
    assert.equal(b.size, 3);
    const visited: string[] = [];
    b.forEach((o, id) => visited.push(`${id}=${o.token}`));
    assert.deepEqual(visited, ['k12=b12', 'k13=b13', 'k14=b14']);
    // New ids number on from the compacted table.
    assert.equal(t.number('new'), 5);
    a.set('new', copy('a', 'a-new'), at, undefined);
    assert.equal(a.obsOf('new')?.token, 'a-new');
  });
});
