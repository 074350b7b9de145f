import assert from 'node:assert/strict';
import { KeyTable, NodeReads } from '../../../src/core/read/keyTable';

describe('keyTable', function () {
  it('numbers each id once, and hands back the string it first kept', () => {
    const t = new KeyTable();
    const first = ['lock', 'a'].join(':');
    assert.equal(t.number(first), 0);
    assert.equal(t.number('lock:b'), 1);
    assert.equal(t.number(['lock', 'a'].join(':')), 0);
    assert.equal(t.find('lock:c'), undefined);
    assert.equal(t.size, 2);
    assert.equal(t.id('lock:a'), first);
    assert.equal(t.nameOf(1), 'lock:b');
  });

  it("a node's reads behave as a map of its own over the shared numbers", () => {
    const t = new KeyTable();
    const a = new NodeReads<{ v: number }>(t);
    const b = new NodeReads<{ v: number }>(t);
    // b sees keys a numbered first, at numbers past its own end.
    for (let i = 0; i < 2000; i++) a.set(`k${i}`, { v: i });
    b.set('k1999', { v: -1 });
    b.set('only-b', { v: -2 });
    assert.equal(a.size, 2000);
    assert.equal(b.size, 2);
    assert.equal(b.get('k1999')?.v, -1);
    assert.equal(b.get('k5'), undefined);
    assert.equal(a.get('only-b'), undefined);
    assert.equal(a.at(t.find('k7')!)?.v, 7);
    assert.equal(b.has('only-b'), true);
    b.set('only-b', { v: -3 });
    assert.equal(b.size, 2, 'replacing a slot does not count it twice');
    assert.equal(b.delete('only-b'), true);
    assert.equal(b.delete('only-b'), false);
    assert.equal(b.delete('never'), false);
    assert.equal(b.size, 1);
    const seen: string[] = [];
    // Deleting the slot being visited, as a Map allows.
    a.forEach((slot, id) => {
      if (slot.v % 2 === 0) a.delete(id);
      else seen.push(id);
    });
    assert.equal(seen.length, 1000);
    assert.equal(a.size, 1000);
    assert.equal(a.get('k2'), undefined);
    assert.equal(a.get('k3')?.v, 3);
    a.clear();
    assert.equal(a.size, 0);
    assert.equal(a.get('k3'), undefined);
  });

  it('compacting drops the ids no reads hold and renumbers every reads given, slots intact', () => {
    const t = new KeyTable();
    const a = new NodeReads<string>(t);
    const b = new NodeReads<string>(t);
    for (let i = 0; i < 10; i++) a.set(`k${i}`, `a${i}`);
    for (let i = 5; i < 15; i++) b.set(`k${i}`, `b${i}`);
    for (let i = 0; i < 8; i++) a.delete(`k${i}`);
    for (let i = 5; i < 12; i++) b.delete(`k${i}`);
    t.compact([a, b]);
    // Held: k8, k9 (a), k12-k14 (b).
    assert.deepEqual([...t.ids()], ['k8', 'k9', 'k12', 'k13', 'k14']);
    assert.equal(t.find('k3'), undefined);
    assert.equal(a.get('k8'), 'a8');
    assert.equal(a.get('k9'), 'a9');
    assert.equal(b.get('k13'), 'b13');
    assert.equal(b.at(t.find('k14')!), 'b14');
    assert.equal(a.get('k12'), undefined);
    assert.equal(a.size, 2);
    assert.equal(b.size, 3);
    const visited: string[] = [];
    b.forEach((slot, id) => visited.push(`${id}=${slot}`));
    assert.deepEqual(visited, ['k12=b12', 'k13=b13', 'k14=b14']);
    // New ids number on from the compacted table.
    assert.equal(t.number('new'), 5);
    a.set('new', 'a-new');
    assert.equal(a.get('new'), 'a-new');
  });
});
