// Display and parse forms of tokens and key names (docs/vocabulary.md, "Token").
// Tokens and keys are untrusted bytes: nothing here trusts their content.

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
// Control, format, surrogate, private-use and unassigned code points are not "printable".
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}]/u;
const HEX_FORM = /^hex:((?:[0-9a-fA-F]{2})*)$/;

function utf8OrNull(bytes: Uint8Array): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

function isPrintableAscii(raw: Uint8Array, start = 0, end = raw.length): boolean {
  for (let i = start; i < end; i++) if (raw[i] < 0x20 || raw[i] > 0x7e) return false;
  return true;
}

function isPrintableAsciiText(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

const startsWithHex = (raw: Uint8Array, start = 0, end = raw.length): boolean =>
  end - start >= 4 && raw[start] === 0x68 && raw[start + 1] === 0x65 && raw[start + 2] === 0x78 && raw[start + 3] === 0x3a;

/** Printable UTF-8 as is, anything else `hex:<lowercase hex>`. */
export function displayToken(raw: Buffer | string): string {
  if (typeof raw === 'string') raw = Buffer.from(raw, 'utf8');
  return displayTokenRange(raw, 0, raw.length);
}

/**
 * Whether displayTokenRange(buf, start, end) is `shown`, told from the bytes alone: true only
 * where the bytes take the printable path (so no string need be made to find out).
 */
export function showsAs(shown: string, buf: Uint8Array, start: number, end: number): boolean {
  if (shown.length !== end - start || startsWithHex(buf, start, end)) return false;
  for (let i = 0; i < shown.length; i++) {
    const b = buf[start + i];
    if (b !== shown.charCodeAt(i) || b < 0x20 || b > 0x7e) return false;
  }
  return true;
}

/** displayToken of buf[start, end): the common printable token is taken with no view of its bytes. */
export function displayTokenRange(buf: Buffer, start: number, end: number): string {
  // Fast path for the common case (hex, base64, UUID tokens); a snapshot shows 100k+ of them.
  if (isPrintableAscii(buf, start, end) && !startsWithHex(buf, start, end)) return buf.toString('latin1', start, end);
  const raw = start === 0 && end === buf.length ? buf : buf.subarray(start, end);
  const text = utf8OrNull(raw);
  if (text !== null && !NON_PRINTABLE.test(text) && !HEX_FORM.test(text)) return text;
  return 'hex:' + raw.toString('hex');
}

// Control characters and invisible format characters (bidi overrides and isolates,
// zero-width ones) make two different names print alike.
const LOOKALIKE = /[\p{Cc}\p{Cf}]/u;

/**
 * Key names keep valid UTF-8 without control or format characters; anything else (an ESC
 * byte, a bidi override, invalid UTF-8) becomes `hex:`, so what is shown, pasted back as
 * an argument, names exactly that key: an escaped form would be ambiguous (a real ESC
 * and the text `\x1b` would print alike), and backslash escaping would change the
 * meaning of every name that holds a backslash. See docs/decisions.md.
 */
export function displayKey(raw: Buffer | string): string {
  if (typeof raw === 'string') {
    // The common case, a plain name passed to acquire, costs no Buffer.
    if (isPrintableAsciiText(raw) && !raw.startsWith('hex:')) return raw;
    raw = Buffer.from(raw, 'utf8');
  }
  if (isPrintableAscii(raw) && !startsWithHex(raw)) return raw.toString('latin1');
  const text = utf8OrNull(raw);
  if (text !== null && !LOOKALIKE.test(text) && !HEX_FORM.test(text)) return text;
  return 'hex:' + raw.toString('hex');
}

/** Accepts both display forms: `hex:<hex>` decodes, anything else is UTF-8. */
export function parseTokenArg(shown: string): Buffer {
  const m = HEX_FORM.exec(shown);
  return m ? Buffer.from(m[1], 'hex') : Buffer.from(shown, 'utf8');
}

export const parseKeyArg = parseTokenArg;

/** A null-prototype record: keys such as `__proto__` are plain data. */
export function dataRecord<V>(): Record<string, V> {
  return Object.create(null) as Record<string, V>;
}

/** Redis glob (SCAN MATCH) that matches exactly this key name. */
export function globForKey(key: Buffer): string {
  const text = utf8OrNull(key);
  if (text !== null) return text.replace(/[*?[\]\\]/g, (c) => '\\' + c);
  // Invalid UTF-8 cannot travel in a string pattern byte for byte: each non-ASCII byte
  // becomes `?` (any one byte) and the caller keeps only the entry whose key is exact.
  let out = '';
  for (const b of key) {
    if (b >= 0x80) out += '?';
    else {
      const c = String.fromCharCode(b);
      out += /[*?[\]\\]/.test(c) ? '\\' + c : c;
    }
  }
  return out;
}

// escapeText lives in its own file, free of Node types, so the webview escapes with it too.
export { escapeText } from './escapeText';
