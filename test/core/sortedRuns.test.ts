import assert from 'node:assert/strict';
import fc from 'fast-check';
import { SortedRuns } from '../../src/core/sortedRuns';

/** What a Map of reads then a full sort gives: each id once, the last value added, byte order. */
function reference(pages: Array<Array<[string, number]>>): { ids: string[]; values: number[] } {
  const last = new Map<string, number>();
  for (const page of pages) for (const [id, v] of page) last.set(id, v);
  const ids = [...last.keys()].sort();
  return { ids, values: ids.map((id) => last.get(id)!) };
}

// Latin1 ids: every code unit is one byte, high bytes included.
const id = fc.string({ unit: fc.integer({ min: 0, max: 255 }).map((c) => String.fromCharCode(c)), maxLength: 6 });

describe('SortedRuns', () => {
  it('merges pages into byte order, each id once with the value added last', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.tuple(id, fc.integer()), { maxLength: 40 }), { maxLength: 40 }), (pages) => {
        const runs = new SortedRuns<number>();
        for (const page of pages) runs.add(page.map((e) => e[0]), page.map((e) => e[1]));
        assert.deepEqual(runs.take(), reference(pages));
      }),
    );
  });

  it('orders by bytes, not by locale: upper case and high bytes', () => {
    const runs = new SortedRuns<string>();
    runs.add(['b', '\xff', 'B'], ['b', 'ff', 'B']);
    runs.add(['a', '\x00'], ['a', '00']);
    assert.deepEqual(runs.take().ids, ['\x00', 'B', 'a', 'b', '\xff']);
  });

  it('a key scanned twice keeps its later read, whichever page it was on', () => {
    const runs = new SortedRuns<string>();
    runs.add(['k', 'x'], ['first', 'x']);
    for (let i = 0; i < 5; i++) runs.add([`p${i}`], [`p${i}`]);
    runs.add(['k'], ['second']);
    const all = runs.take();
    assert.equal(all.values[all.ids.indexOf('k')], 'second');
    assert.equal(all.ids.filter((x) => x === 'k').length, 1);
  });
});
