// Keys and tokens are arbitrary bytes chosen by whoever wrote the lock: they must never
// become markup. MarkdownString.appendText escapes neither `|` nor newlines inside a
// table, so tooltips escape every cell themselves.

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/** Control and invisible/bidi characters as visible escapes (`\n`, `\u202e`): one line, no tricks. */
export function printable(text: string): string {
  return text.replace(CONTROL, (c) => {
    switch (c) {
      case '\n':
        return '\\n';
      case '\r':
        return '\\r';
      case '\t':
        return '\\t';
      default:
        return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
    }
  });
}

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
