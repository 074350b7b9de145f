// Who holds a lock, carried in the token itself so that recording it costs no round trip
// on the acquire path (wire format: docs/formats.md, "Holder identity in the token").
//
//   <32 hex random>.<since, base 36>.<base64url of a small JSON identity>
//
// The random part keeps 128 bits, so our tokens stay as unguessable as before; the rest
// is printable ASCII without ',' and stays far below the inspector's 512-byte token
// bound. Waiter entries use the same encoding (the random part is then per acquire call).
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Holder } from './types';

/** 'full' reveals name, host and pid; 'anonymous' only the name (and the random process id). */
export type IdentityMode = 'full' | 'anonymous';

export interface IdentityOptions {
  /** Shown as the holder's name; default the process title. At most 64 bytes are kept. */
  holderName?: string;
  identity?: IdentityMode;
}

/** A holder with the random per-process id that matches holders to waiters. */
export interface Identity extends Holder {
  id: string;
}

const MAX_NAME_BYTES = 64;
const MAX_HOST_BYTES = 64;
/** Random per-process id: pids repeat across containers (pid 1), this does not. */
export const PROCESS_ID = randomBytes(8).toString('hex');

// Characters that would break the token's promises: ',' splits multi-holder ids, quotes
// and backslashes would grow the JSON, control and format characters make it unprintable.
const UNSAFE = /[,"\\\p{Cc}\p{Zl}\p{Zp}\p{Cf}\p{Cs}\p{Co}\p{Cn}]/gu;

/** Sanitised and cut at a character boundary to at most `maxBytes` UTF-8 bytes. */
export function boundedText(text: string, maxBytes: number): string {
  let out = '';
  let bytes = 0;
  for (const ch of text.replace(UNSAFE, '')) {
    const n = Buffer.byteLength(ch);
    if (bytes + n > maxBytes) break;
    out += ch;
    bytes += n;
  }
  return out;
}

/** The part of the token that is the same for every acquisition of one Redlock. */
export function encodeIdentity(options: IdentityOptions): string {
  const name = boundedText(options.holderName ?? process.title ?? 'node', MAX_NAME_BYTES) || 'node';
  const body: Record<string, unknown> = { i: PROCESS_ID, n: name };
  if (options.identity !== 'anonymous') {
    body.h = boundedText(hostname(), MAX_HOST_BYTES);
    body.p = process.pid;
  }
  return Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
}

/** A token (or waiter id) from its random part, the instant and the encoded identity. */
export function tokenWithIdentity(random: string, sinceMs: number, encoded: string): string {
  return `${random}.${Math.floor(sinceMs).toString(36)}.${encoded}`;
}

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
    body = JSON.parse(Buffer.from(m[2], 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const b = body as Record<string, unknown>;
  if (typeof b.i !== 'string' || !PROC.test(b.i)) return null;
  if (typeof b.n !== 'string' || Buffer.byteLength(b.n) > MAX_NAME_BYTES) return null;
  const host = typeof b.h === 'string' && Buffer.byteLength(b.h) <= MAX_HOST_BYTES ? b.h : null;
  const pid = typeof b.p === 'number' && Number.isSafeInteger(b.p) && b.p >= 0 ? b.p : null;
  return { id: b.i, name: boundedText(b.n, MAX_NAME_BYTES), host: host === null ? null : boundedText(host, MAX_HOST_BYTES), pid, since };
}

/** `billing-worker (pid 4121)` for a token that carries our identity, else null. */
export function holderLabel(token: string): string | null {
  const id = decodeIdentity(token);
  if (id === null) return null;
  return id.pid === null ? id.name : `${id.name} (pid ${id.pid})`;
}

// Redisson names its holder `<uuid of the client>:<thread id>` (see formats.ts).
const REDISSON = /^([0-9a-fA-F-]{36}):([0-9]{1,19})$/;

/**
 * The holder shown for one copy: ours decoded from the token, Redisson's thread, null
 * for every other layout.
 */
export function holderOf(token: string | null, format: string | null): Holder | null {
  if (token === null) return null;
  if (format === 'string') {
    const id = decodeIdentity(token);
    return id === null ? null : { name: id.name, host: id.host, pid: id.pid, since: id.since };
  }
  if (format === 'redisson-lock') {
    const m = REDISSON.exec(token);
    if (!m) return null;
    const thread = Number(m[2]);
    return { name: null, host: null, pid: null, since: null, thread: Number.isSafeInteger(thread) ? thread : null };
  }
  return null;
}

/** The id that matches a holder with its waits: our process id, or Redisson's client uuid. */
export function processIdOf(token: string | null, format: string | null): string | null {
  if (token === null) return null;
  if (format === 'string') return decodeIdentity(token)?.id ?? null;
  if (format === 'redisson-lock') return REDISSON.exec(token)?.[1] ?? null;
  return null;
}
