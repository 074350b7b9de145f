// Keys and tokens are arbitrary bytes chosen by whoever wrote the lock: they must never
// become markup. MarkdownString.appendText escapes neither `|` nor newlines inside a
// table, so tooltips escape every cell themselves.
import { escapeText } from '../../core/vocabulary';

/** Control and invisible/bidi characters as visible escapes (`\n`, `\u{202e}`): one line, no tricks; the vocabulary's one escaper. */
export const printable = escapeText;

/** Cuts long text on a code point boundary, marking the cut. */
export function truncate(text: string, max: number): string {
  const points = Array.from(text);
  return points.length <= max ? text : points.slice(0, Math.max(1, max - 1)).join('') + '…';
}

// CommonMark lets any ASCII punctuation be backslash-escaped; escaping all of it is
// simpler to trust than choosing which ones matter (`|` in GFM tables included).
const PUNCTUATION = /[!-/:-@[-`{-~]/g;

/** Plain text safe inside Markdown, including one table cell: one line, no markup, no HTML. */
export function escapeMarkdown(text: string): string {
  return printable(text).replace(PUNCTUATION, (c) => `\\${c}`);
}

/** A table cell from untrusted text, shortened first so an escape is never cut in half. */
export function cell(text: string | null | undefined, max = 80): string {
  if (text === null || text === undefined || text === '') return '—';
  return escapeMarkdown(truncate(text, max));
}
