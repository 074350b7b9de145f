import assert from 'node:assert/strict';
import { displayWidth, fitWidth, padEnd } from '../../src/cli/displayWidth';

describe('cli: displayWidth', () => {
  it('measures terminal columns', () => {
    assert.equal(displayWidth('lock:a'), 6);
    assert.equal(displayWidth('漢字'), 4);
    assert.equal(displayWidth('e\u0301'), 1);
    assert.equal(displayWidth('🙂'), 2);
    assert.equal(displayWidth('👩\u200d💻'), 2);
    assert.equal(displayWidth('❤\ufe0f'), 2);
    assert.equal(displayWidth('ｆｕｌｌ'), 8);
    assert.equal(displayWidth('é'), 1);
    assert.equal(displayWidth('held 5/5 · 4.2 s → 漢'), 21);
  });

  it('counts a string of one-column characters by its length exactly where segmenting it would', () => {
    // A combining mark after a character forces the segmenting path and adds no column, so
    // each character is measured both ways. Every range the length-only path takes, and
    // its edges: the soft hyphen, the combining marks, the zero-width and direction
    // controls, and what follows the arrows.
    const ranges: Array<[number, number]> = [[0x20, 0x7e], [0xa0, 0x36f], [0x2000, 0x2070], [0x2180, 0x2200]];
    let checked = 0;
    for (const [lo, hi] of ranges) {
      for (let cp = lo; cp <= hi; cp++) {
        const ch = String.fromCodePoint(cp);
        const segmented = displayWidth(`${ch}\u0301`);
        assert.equal(displayWidth(ch), segmented, `U+${cp.toString(16).padStart(4, '0')}`);
        assert.equal(displayWidth(`ab${ch}cd`), 4 + segmented, `U+${cp.toString(16).padStart(4, '0')} between letters`);
        checked++;
      }
    }
    assert.ok(checked > 1000);
    assert.equal(displayWidth('a\u00adb'), 2, 'a soft hyphen takes no column');
    assert.equal(displayWidth('a\u200bb'), 2, 'nor a zero-width space');
  });

  it('pads and cuts by columns', () => {
    assert.equal(padEnd('· ok', 6), '· ok  ');
    assert.equal(padEnd('漢字', 6), '漢字  ');
    assert.equal(fitWidth('held 5/5 · 4.2 s', 10), 'held 5/5 …');
  });
});
