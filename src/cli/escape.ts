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

function escapeUnsafe(json: string): string {
  return json.replace(JSON_UNSAFE, (ch) => {
    if (ch.length === 1) return u4(ch.charCodeAt(0));
    return u4(ch.charCodeAt(0)) + u4(ch.charCodeAt(1));
  });
}

/** JSON text whose every non-printing character is a `\u` escape. */
export function safeJson(value: unknown, indent?: number): string {
  return escapeUnsafe(JSON.stringify(value, null, indent));
}

/** Elements of an array written by one JSON.stringify call: a piece of about 150 KB of locks. */
const PIECE_ELEMENTS = 100;

/**
 * `safeJson(doc, indent)` in pieces whose concatenation is that same text: the arrays among
 * a plain object's own properties (a snapshot's `locks` and `skipped`) are written a hundred
 * elements at a time. A watch of 100,000 locks on 5 nodes printed its first document as one
 * 143 MB string, then a Buffer of it: 770 MB of peak RSS for a watch whose state is 140 MB
 * (docs/decisions.md, "Large documents in pieces").
 */
export function* safeJsonPieces(doc: object, indent?: number): Generator<string> {
  // What JSON.stringify would do differently: a toJSON of the document's own, or not a plain record.
  if (Array.isArray(doc) || typeof (doc as { toJSON?: unknown }).toJSON === 'function') {
    yield safeJson(doc, indent);
    return;
  }
  // JSON.stringify's gap: up to 10 spaces. Its text has no raw newline inside a string, so
  // a small value is indented one level deeper by indenting each of its lines.
  const gap = ' '.repeat(Math.max(0, Math.min(10, Math.floor(indent ?? 0))));
  const open = gap === '' ? '' : '\n' + gap;
  const colon = gap === '' ? ':' : ': ';
  // An array's elements as JSON.stringify writes them at the document's second level: those
  // of [[...elements]] between its first two brackets and its last two, in one native call.
  const before = gap === '' ? 2 : `[\n${gap}[\n${gap}${gap}`.length;
  const after = gap === '' ? 2 : `\n${gap}]\n]`.length;
  let piece = '';
  let first = true;
  for (const key of Object.keys(doc)) {
    const value = (doc as Record<string, unknown>)[key];
    const head = `${first ? '{' : ','}${open}${JSON.stringify(key)}${colon}`;
    if (!Array.isArray(value) || value.length === 0 || typeof (value as { toJSON?: unknown }).toJSON === 'function') {
      const json = JSON.stringify(value, null, gap);
      // Left out, as JSON.stringify leaves out undefined, functions and symbols.
      if (json === undefined) continue;
      piece += head + (gap === '' ? json : json.replaceAll('\n', open));
      first = false;
      continue;
    }
    first = false;
    piece += head + '[' + (gap === '' ? '' : open + gap);
    for (let i = 0; i < value.length; i += PIECE_ELEMENTS) {
      const json = JSON.stringify([value.slice(i, i + PIECE_ELEMENTS)], null, gap);
      yield escapeUnsafe(piece + (i === 0 ? '' : ',' + (gap === '' ? '' : open + gap)) + json.slice(before, json.length - after));
      piece = '';
    }
    piece += (gap === '' ? '' : open) + ']';
  }
  yield escapeUnsafe(piece + (first ? '{}' : (gap === '' ? '' : '\n') + '}'));
}

