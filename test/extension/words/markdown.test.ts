// Markdown escaping for tooltips and tables (src/extension/words/markdown.ts).
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { escapeText } from '../../../src/core/vocabulary/tokens';
import { cell, escapeMarkdown, printable } from '../../../src/extension/words/markdown';

/** Unescaped pipes in one Markdown line. */
const pipes = (line: string): number => line.match(/(?<!\\)\|/g)?.length ?? 0;

describe('markdown escaping', () => {
  it('keeps any text on one line and inside one table cell', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const e = escapeMarkdown(s);
        assert.ok(!/[\n\r\u2028\u2029]/.test(e));
        assert.equal(pipes(e), 0);
        assert.doesNotMatch(e, /(?<!\\)[<>`*_[\]]/);
      }),
    );
  });

  it('shows control and bidi characters as visible escapes', () => {
    assert.equal(printable('a\nb\tc\u202ed'), 'a\\nb\\tc\\u{202e}d');
    // One escaper for every surface: the terminal's and the tooltips' are the same.
    assert.equal(printable('\x1b[2J\u200b'), escapeText('\x1b[2J\u200b'));
    assert.equal(escapeMarkdown('a|b'), 'a\\|b');
    assert.equal(cell(null), '—');
    assert.equal(cell('x'.repeat(100), 10), 'xxxxxxxxx…');
  });
});
