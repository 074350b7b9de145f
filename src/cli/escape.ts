// Key names, tokens and node error texts are untrusted bytes. Before any of them reaches a
// terminal, everything that could move the cursor, start an escape sequence, reorder text
// (bidi overrides) or break a line is shown as a visible escape instead.

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

// JSON.stringify escapes C0 controls and lone surrogates, but writes DEL, C1 (0x9b is a
// CSI on 8-bit terminals), bidi overrides and U+2028/2029 raw. `\uXXXX` escapes keep the
// parsed value identical while `cat`-ing the document stays safe. Structural newlines of
// indented output are C0 and are therefore left out of this set.
const JSON_UNSAFE = /[\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}]/gu;

function u4(code: number): string {
  return '\\u' + code.toString(16).padStart(4, '0');
}

/** JSON text whose every non-printing character is a `\u` escape. */
export function safeJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(JSON_UNSAFE, (ch) => {
    if (ch.length === 1) return u4(ch.charCodeAt(0));
    return u4(ch.charCodeAt(0)) + u4(ch.charCodeAt(1));
  });
}

