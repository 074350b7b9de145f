// Key names, tokens and node error texts are untrusted bytes. Before any of them reaches a
// terminal, a tooltip or a panel, everything that could move the cursor, start an escape
// sequence, reorder text (bidi overrides) or break a line is shown as a visible escape.
// Cc: C0, DEL and C1 controls (ESC, CSI 0x9b, newline...). Cf: format characters, including
// the bidi embeddings/overrides/isolates U+202A-202E, U+2066-2069 and zero-width ones.
// Zl/Zp: U+2028/2029, which some terminals and editors treat as line breaks. Cs: lone
// surrogates, which would otherwise be written as U+FFFD and hide what the key holds.
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** One line of terminal-safe text: `\x1b`, `\n`, `\u{202e}` instead of the raw characters. */
export function escapeText(text: string): string {
  return text.replace(UNSAFE, (ch) => {
    const named = NAMED[ch];
    if (named) return named;
    const cp = ch.codePointAt(0)!;
    return cp < 0x100 ? `\\x${cp.toString(16).padStart(2, '0')}` : `\\u{${cp.toString(16)}}`;
  });
}
