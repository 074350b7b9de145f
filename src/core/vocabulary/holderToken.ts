// Reading the holder identity our tokens carry (wire format: docs/formats.md, "Holder
// identity in the token"). Pure and total, no Node built-ins: the webview's bundle uses it
// through src/core/vocabulary/describe.ts. Writing it is bookkeeping/holderIdentity.ts.
import type { Holder, Observation } from './types';
import { foreignStringHolder, redissonClientOf, redissonHolder } from './foreignHolders';

/** A holder with the random per-process id that matches holders to waiters. */
export interface Identity extends Holder {
  id: string;
}

export const MAX_NAME_BYTES = 64;
export const MAX_HOST_BYTES = 64;

// Characters that would break the token's promises: ',' splits multi-holder ids, quotes
// and backslashes would grow the JSON, control and format characters make it unprintable.
const UNSAFE = /[,"\\\p{Cc}\p{Zl}\p{Zp}\p{Cf}\p{Cs}\p{Co}\p{Cn}]/gu;

/** Sanitised and cut at a character boundary to at most `maxBytes` UTF-8 bytes. */
export function boundedText(text: string, maxBytes: number): string {
  let out = '';
  let bytes = 0;
  for (const ch of text.replace(UNSAFE, '')) {
    const n = utf8Length(ch);
    if (bytes + n > maxBytes) break;
    out += ch;
    bytes += n;
  }
  return out;
}

/** UTF-8 length of one code point. */
function utf8Length(ch: string): number {
  const c = ch.codePointAt(0)!;
  return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** base64url to text with the platform's atob (Node and browsers alike); throws on garbage. */
function fromBase64url(text: string): string {
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4);
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return utf8.decode(bytes);
}

const byteLength = (text: string): number => {
  let n = 0;
  for (const ch of text) n += utf8Length(ch);
  return n;
};

const OURS = /^[0-9a-f]{32}\.([0-9a-z]{1,11})\.([A-Za-z0-9_-]{4,600})$/;
const PROC = /^[0-9a-f]{16}$/;

const cache = new Map<string, Identity | null>();
const CACHE_MAX = 4096;

/**
 * The identity a token carries, or null for any other token (node-redlock's, a
 * hand-written one, or ours with garbage in it). Total: tokens are untrusted.
 */
export function decodeIdentity(token: string | null): Identity | null {
  if (token === null || token.length < 40 || token.charCodeAt(32) !== 0x2e) return null;
  const hit = cache.get(token);
  if (hit !== undefined) return hit;
  const found = decodeUncached(token);
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(token, found);
  return found;
}

function decodeUncached(token: string): Identity | null {
  const m = OURS.exec(token);
  if (!m) return null;
  const since = parseInt(m[1], 36);
  if (!Number.isSafeInteger(since)) return null;
  let body: unknown;
  try {
    body = JSON.parse(fromBase64url(m[2]));
  } catch {
    return null;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const b = body as Record<string, unknown>;
  if (typeof b.i !== 'string' || !PROC.test(b.i)) return null;
  if (typeof b.n !== 'string' || byteLength(b.n) > MAX_NAME_BYTES) return null;
  const host = typeof b.h === 'string' && byteLength(b.h) <= MAX_HOST_BYTES ? b.h : null;
  const pid = typeof b.p === 'number' && Number.isSafeInteger(b.p) && b.p >= 0 ? b.p : null;
  return { id: b.i, name: boundedText(b.n, MAX_NAME_BYTES), host: host === null ? null : boundedText(host, MAX_HOST_BYTES), pid, since };
}

/** `billing-worker (pid 4121)` for a token that carries our identity, else null. */
export function holderLabel(token: string): string | null {
  const id = decodeIdentity(token);
  if (id === null) return null;
  return id.pid === null ? id.name : `${id.name} (pid ${id.pid})`;
}

/**
 * The holder shown for one copy (or one permit): ours decoded from the token, a foreign
 * library's from its own convention (foreignHolders.ts), null for every other value.
 */
export function holderOf(token: string | null, format: string | null): Holder | null {
  if (token === null) return null;
  if (format === 'string') {
    const id = decodeIdentity(token);
    if (id !== null) return { name: id.name, host: id.host, pid: id.pid, since: id.since, thread: null, library: 'redlock-inspector' };
    return foreignStringHolder(token);
  }
  if (format === 'redisson-lock' || format === 'redisson-rwlock') return redissonHolder(token);
  // A semaphore permit id: ours carry our identity, others (uuids) say nothing.
  if (format === 'semaphore') {
    const id = decodeIdentity(token);
    return id === null ? null : { name: id.name, host: id.host, pid: id.pid, since: id.since, thread: null, library: 'redlock-inspector' };
  }
  return null;
}

/** The id that matches a holder with its waits: our process id, or Redisson's client uuid. */
export function processIdOf(token: string | null, format: string | null): string | null {
  if (token === null) return null;
  if (format === 'string') return decodeIdentity(token)?.id ?? null;
  if (format === 'redisson-lock') return redissonClientOf(token);
  return null;
}

/** The id behind `token` as the lock's copies hold it (its format decides how it decodes), matched with waits and connections. */
export function processOfCopies(nodes: readonly Observation[], token: string): string | null {
  return processIdOf(token, nodes.find((o) => o.state === 'present' && o.token === token)?.format ?? null);
}
