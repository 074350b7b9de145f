import assert from 'node:assert/strict';
import { linePieces } from '../../src/cli/io';

describe('cli io', () => {
  it('linePieces: the lines joined, a thousand a piece, as outPieces writes them (a newline only after the last piece)', () => {
    for (const n of [0, 1, 999, 1000, 1001, 2500]) {
      const lines = Array.from({ length: n }, (_, i) => `row ${i}${i % 7 === 0 ? '' : ' x'}`);
      const pieces = [...linePieces(lines)];
      assert.equal(pieces.length, Math.ceil(n / 1000), `${n} lines`);
      assert.equal(pieces.join(''), lines.join('\n'), `${n} lines`);
    }
    // An empty line is a line: the table's blank line between locks and nodes stays.
    assert.deepEqual([...linePieces(['a', '', 'b'])], ['a\n\nb']);
  });
});
