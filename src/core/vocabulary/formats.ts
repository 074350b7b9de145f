// Lock layouts recognised from a bounded raw read of one key on one node
// (docs/formats.md, "What the inspector reads"). Pure, and total: key contents are untrusted, so every
// input yields a Recognised value and nothing throws.
import type { LockFormat } from './types';
import { displayToken } from './tokens';

export type RawValue =
  | { type: 'none' }
  | { type: 'string'; value: Buffer }
  | { type: 'hash'; entries: Array<[Buffer, Buffer]> }
  | { type: 'zset'; members: Buffer[] }
  /** The reader refused: the value is over its bound. */
  | { type: string; tooLarge: true; size: number }
  /** The reader could not tell whether it is within its bounds (e.g. MEMORY denied): the reason. */
  | { type: string; unreadable: string }
  /** list, set, stream, ...: not read. */
  | { type: string };

export interface Recognised {
  state: 'present' | 'absent' | 'unreadable';
  /** Display form; multi-holder layouts join the sorted holder ids with ','. */
  token: string | null;
  format: LockFormat | null;
  holdCount: number | null;
  reason: string | null;
}

/** Longest single token or holder id the inspector shows. */
export const MAX_TOKEN_BYTES = 512;

// Redisson's lock name is `<UUID of the client>:<Java thread id>`; the UUID is matched
// loosely (36 hex digits and dashes). Patterns are ASCII-only and applied to the latin1
// decoding, so any non-ASCII byte simply fails to match.
const HOLDER = /^[0-9a-fA-F-]{36}:[0-9]{1,19}$/;
// Read-write locks may add a suffix to the holder id (the write lock's `:write`).
const RW_HOLDER = /^[0-9a-fA-F-]{36}:[0-9]{1,19}(?::[0-9A-Za-z_-]{1,64})?$/;
// Hold counts are HINCRBY results; Redisson deletes the hash before one reaches 0.
const COUNT = /^[0-9]{1,15}$/;
const COMMA = 0x2c;

export function recognise(raw: RawValue): Recognised {
  try {
    return recogniseUnsafe(raw);
  } catch {
    // Only a malformed RawValue (not a Redis reply) can get here.
    return unreadable('malformed');
  }
}

function recogniseUnsafe(raw: RawValue): Recognised {
  if (raw === null || typeof raw !== 'object') return unreadable('malformed');
  if ('tooLarge' in raw && raw.tooLarge === true) return unreadable('too-large');
  if ('unreadable' in raw && typeof raw.unreadable === 'string') return unreadable(raw.unreadable);
  const r = raw as Record<string, unknown>;
  switch (raw.type) {
    case 'none':
      return { state: 'absent', token: null, format: null, holdCount: null, reason: null };
    case 'string':
      return isBytes(r.value) ? fromString(r.value) : unreadable('malformed');
    case 'hash':
      return Array.isArray(r.entries) ? fromHash(r.entries) : unreadable('malformed');
    case 'zset':
      return Array.isArray(r.members) ? fromZset(r.members) : unreadable('malformed');
    default:
      return unreadable('wrong-type');
  }
}

function fromString(value: Uint8Array): Recognised {
  if (value.length === 0) return unreadable('empty');
  if (value.length > MAX_TOKEN_BYTES) return unreadable('too-large');
  return present(displayToken(Buffer.isBuffer(value) ? value : Buffer.from(value)), 'string', null);
}

function fromHash(entries: unknown[]): Recognised {
  const pairs: Array<[Buffer, Buffer]> = [];
  for (const e of entries) {
    if (!Array.isArray(e) || !isBytes(e[0]) || !isBytes(e[1])) return unreadable('malformed');
    pairs.push([Buffer.from(e[0]), Buffer.from(e[1])]);
  }
  const modeEntry = pairs.find(([f]) => f.toString('latin1') === 'mode');
  const holders = pairs.filter(([f]) => f.toString('latin1') !== 'mode');
  if (holders.length === 0) return unreadable('unrecognised-hash');
  if (!holders.every(([, v]) => COUNT.test(v.toString('latin1')))) return unreadable('unrecognised-hash');
  const holdCount = Math.max(...holders.map(([, v]) => Number(v.toString('latin1'))));
  const fields = holders.map(([f]) => f);

  if (modeEntry === undefined) {
    if (!fields.every((f) => HOLDER.test(f.toString('latin1')))) return unreadable('unrecognised-hash');
    return present(joinSorted(fields), 'redisson-lock', holdCount);
  }
  const mode = modeEntry[1].toString('latin1');
  if (mode !== 'read' && mode !== 'write') return unreadable('unrecognised-hash');
  if (!fields.every((f) => RW_HOLDER.test(f.toString('latin1')))) return unreadable('unrecognised-hash');
  return present(joinSorted(fields), 'redisson-rwlock', holdCount);
}

function fromZset(members: unknown[]): Recognised {
  if (members.length === 0) return unreadable('unrecognised-zset');
  const ids: Buffer[] = [];
  for (const m of members) {
    if (!isBytes(m)) return unreadable('malformed');
    if (m.length > MAX_TOKEN_BYTES) return unreadable('too-large');
    // An id with a comma could not be split back out of the joined token.
    if (m.length === 0 || m.includes(COMMA)) return unreadable('unrecognised-zset');
    ids.push(Buffer.from(m));
  }
  return present(joinSorted(ids), 'semaphore', null);
}

/** Byte-order sort then join with ',' before display, so force-release can split the bytes back. */
function joinSorted(ids: Buffer[]): string {
  const sorted = [...ids].sort(Buffer.compare);
  const parts: Buffer[] = [];
  sorted.forEach((id, i) => {
    if (i > 0) parts.push(Buffer.of(COMMA));
    parts.push(id);
  });
  return displayToken(Buffer.concat(parts));
}

function isBytes(x: unknown): x is Uint8Array {
  return x instanceof Uint8Array;
}

function present(token: string, format: LockFormat, holdCount: number | null): Recognised {
  return { state: 'present', token, format, holdCount, reason: null };
}

function unreadable(reason: string): Recognised {
  return { state: 'unreadable', token: null, format: null, holdCount: null, reason };
}
