import assert from 'node:assert/strict';
import { KeyTable } from '../../../src/core/read/keyTable';
import { factsOf, NodeReads, type Stamp } from '../../../src/core/read/nodeReads';
import { present as copy } from '../../support/entries';

const stamp = (at: number): Stamp => ({ at, err: 0 });

describe('nodeReads', function () {
  it("behaves as a map of the node's own over the numbers the nodes share", () => {
    const t = new KeyTable();
    const a = new NodeReads(t);
    const b = new NodeReads(t);
    // b is handed keys a numbered first, at numbers past its own end.
    for (let i = 0; i < 2000; i++) a.set(`k${i}`, copy('a', `t${i}`), stamp(i), undefined);
    const k = b.set('k1999', copy('b', 'other'), stamp(5), undefined);
    assert.equal(k, t.find('k1999'));
    b.set('only-b', copy('b', 'x'), stamp(6), undefined);
    assert.equal(a.size, 2000);
    assert.equal(b.size, 2);
    assert.equal(b.obsOf('k1999')?.token, 'other');
    assert.equal(b.obsOf('k5'), undefined);
    assert.equal(b.numberOf('k5'), -1, 'numbered in the table, not held here');
    assert.equal(b.numberOf('k5', t.find('k5')!), -1, 'by the shared number: numbered, not held here');
    assert.equal(b.numberOf('k1999', k), k);
    assert.equal(b.numberOf('nowhere', -1), -1, 'a key no table numbered');
    assert.equal(b.numberOf('nowhere', 1_000_000), -1, 'a number past every read');
    assert.equal(b.stampOf('k5'), undefined);
    assert.equal(a.obsOf('only-b'), undefined);
    assert.equal(a.obsAt(t.find('k7')!)?.token, 't7');
    assert.equal(a.stampAt(t.find('k7')!).at, 7);
    assert.equal(b.has('only-b'), true);
    b.set('only-b', copy('b', 'y'), stamp(7), undefined);
    assert.equal(b.size, 2, 'replacing a copy does not count it twice');
    assert.equal(b.delete('only-b'), true);
    assert.equal(b.delete('only-b'), false);
    assert.equal(b.delete('never'), false);
    assert.equal(b.size, 1);
    const seen: string[] = [];
    // Deleting the key being visited, as a Map allows.
    a.forEach((o, id, n) => {
      assert.equal(n, t.find(id));
      if (Number(o.token!.slice(1)) % 2 === 0) a.delete(id);
      else seen.push(id);
    });
    assert.equal(seen.length, 1000);
    assert.equal(a.size, 1000);
    assert.equal(a.obsOf('k2'), undefined);
    assert.equal(a.obsOf('k3')?.token, 't3');
    a.clear();
    assert.equal(a.size, 0);
    assert.equal(a.obsOf('k3'), undefined);
  });

  it("keeps each key's scan facts until taken or dropped, and a copy replaced keeps its number", () => {
    const t = new KeyTable();
    const r = new NodeReads(t);
    const k = r.set('lock:a', copy('n', 'a'), stamp(1), factsOf(7, true));
    r.set('lock:b', copy('n', 'b'), stamp(1), undefined);
    assert.deepEqual(r.factsAt(k), { fence: 7, noWaiters: true });
    assert.equal(r.factsAt(t.find('lock:b')!), undefined);
    r.setFactsAt(k, factsOf(undefined, true));
    assert.equal(r.factsAt(k)?.fence, undefined);
    const later = stamp(2);
    const counted = copy('n', 'a', 900);
    r.setAt(k, counted, later);
    assert.equal(r.obsOf('lock:a'), counted);
    assert.equal(r.stampOf('lock:a'), later);
    r.dropFacts();
    assert.equal(r.factsAt(k), undefined);
    assert.equal(r.size, 2);
    // A key set again after the facts were dropped: its facts start anew.
    r.set('lock:a', copy('n', 'a2'), stamp(3), factsOf(null, false));
    assert.deepEqual(r.factsAt(k), { fence: null, noWaiters: false });
  });
});
