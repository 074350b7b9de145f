// Terminal columns a string takes, so tables line up with CJK key names and emoji in
// them: a grapheme cluster is 2 columns when any of its code points is East Asian
// wide/fullwidth or an emoji shown as a picture, 0 when it is only combining or
// zero-width marks, else 1. Text reaching this is already escaped (src/cli/escape.ts),
// so no control character is left to measure.

// East Asian Wide (W) and Fullwidth (F) blocks, per Unicode's EastAsianWidth.txt, coarse
// enough to stay short: Hangul Jamo, CJK radicals to Yi, Hangul syllables, compatibility
// ideographs, vertical and small forms, fullwidth forms, the supplementary ideograph planes.
const WIDE: ReadonlyArray<readonly [number, number]> = [
  [0x1100, 0x115f], [0x231a, 0x231b], [0x2329, 0x232a], [0x2e80, 0x303e], [0x3041, 0x33ff],
  [0x3400, 0x4dbf], [0x4e00, 0x9fff], [0xa000, 0xa4cf], [0xa960, 0xa97f], [0xac00, 0xd7a3],
  [0xf900, 0xfaff], [0xfe10, 0xfe19], [0xfe30, 0xfe6f], [0xff00, 0xff60], [0xffe0, 0xffe6],
  [0x16fe0, 0x16fe4], [0x17000, 0x18cff], [0x1b000, 0x1b2ff], [0x1f200, 0x1f2ff],
  [0x20000, 0x2fffd], [0x30000, 0x3fffd],
];

const PICTURE = /\p{Emoji_Presentation}|\u{fe0f}/u;
const ZERO = /^[\p{Mn}\p{Me}\p{Cf}\u{1160}-\u{11ff}]+$/u;

function isWide(cp: number): boolean {
  for (const [lo, hi] of WIDE) if (cp >= lo && cp <= hi) return true;
  return false;
}

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * Code points of one column each that never join a neighbour into one cluster: printable
 * ASCII, Latin-1 but the soft hyphen, the Latin extensions and spacing modifier letters,
 * general punctuation without its zero-width and direction controls, and the arrows. Our
 * own words are made of these (`held 5/5 · 4.2 s`, `…`, `→`), so most cells need no
 * segmentation: a status of 10,000 locks spent a third of its time segmenting them.
 */
const NARROW = /^[\x20-\x7e\xa0-\xac\xae-\u02ff\u2010-\u2027\u2030-\u205e\u2190-\u21ff]*$/;

/** Columns `text` takes on a terminal. */
export function displayWidth(text: string): number {
  // Every code point in NARROW is one column and one UTF-16 unit.
  if (NARROW.test(text)) return text.length;
  let n = 0;
  for (const { segment } of segmenter.segment(text)) {
    if (ZERO.test(segment)) continue;
    if (PICTURE.test(segment) || isWide(segment.codePointAt(0)!)) n += 2;
    else n += 1;
  }
  return n;
}

/** `text` followed by spaces up to `columns`; text already wider stays as is. */
export function padEnd(text: string, columns: number): string {
  return text + ' '.repeat(Math.max(0, columns - displayWidth(text)));
}

/** `text` cut to at most `columns` columns, ending in `…` when cut. */
export function fitWidth(text: string, columns: number): string {
  if (displayWidth(text) <= columns) return text;
  let out = '';
  for (const { segment } of segmenter.segment(text)) {
    if (displayWidth(out + segment) > columns - 1) break;
    out += segment;
  }
  return out + '…';
}
