// Untrusted text for a terminal. The one escaper (escapeText) lives in the vocabulary, so
// every surface shows the same escapes; JSON output has its own, below.
import { escapeText } from '../core/vocabulary';
export { escapeText };

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

