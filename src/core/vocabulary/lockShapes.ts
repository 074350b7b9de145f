// Which library a lock-shaped key most likely belongs to, from its layout and value alone
// (docs/formats.md, "Discovery"). Used by discovery, never by classification: a guess names
// candidates, the rows of `status` still show what the key holds. Pure.
import type { Observation } from './types';
import { decodeIdentity } from './holderToken';
import { foreignStringHolder } from './foreignHolders';
import { bookkeepingOf } from './foreignKeys';

// Random tokens as the libraries draw them (read in their sources):
// 16 random bytes as hex: node-redlock (v4, v5, @sesamecare-oss), redlock-universal's
// default; redis-py's uuid1().hex.
const HEX32 = /^[0-9a-f]{32}$/;
// uuid v4 text: redis-semaphore's mutex, pottery.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// 16 random bytes in standard base64 (redsync); 18 in base64 (python-redis-lock).
const REDSYNC = /^[A-Za-z0-9+/]{22}==$/;
const PY_REDIS_LOCK = /^[A-Za-z0-9+/]{24}$/;
// Tokens no known library draws but any lock code would: a short random value with a TTL.
// 20-64 hex or base64 characters (a SHA-1 hex, a nanoid, a url-safe random), a UUID in
// any case, or `host:pid:n`. Only the shape is certain here, never the library.
const RANDOM_HEX = /^[0-9a-fA-F]{20,64}$/;
const RANDOM_B64 = /^[A-Za-z0-9+/_-]{20,64}={0,2}$/;
const UUID_ANY = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const HOST_PID_N = /^[A-Za-z0-9][A-Za-z0-9.-]{0,252}:[0-9]{1,10}:[0-9]{1,20}$/;
const DIGIT = /[0-9]/;
const UPPER = /[A-Z]/;
const LOWER = /[a-z]/;
const HEX_LETTER = /[a-fA-F]/;
/** What discovery calls a lock-shaped key whose library its value does not name. */
export const UNKNOWN_LIBRARY = 'unknown library (a random token with a TTL)';

/** Drawn at random, not written by a person: hex mixing digits and letters, base64 mixing digits and both cases. */
function randomLooking(token: string): boolean {
  // Lengths and separators first: discovery asks this of every value with a TTL it walks.
  if (token.length === 36 && UUID_ANY.test(token)) return true;
  if (token.indexOf(':') > 0) return HOST_PID_N.test(token);
  if (token.length < 20 || token.length > 66) return false;
  if (RANDOM_HEX.test(token)) return DIGIT.test(token) && HEX_LETTER.test(token);
  return RANDOM_B64.test(token) && DIGIT.test(token) && UPPER.test(token) && LOWER.test(token);
}

/**
 * The library (or libraries) a present copy's layout points to, or null when the key is
 * not lock-shaped: a string of a known token shape with a TTL (any TTL for conventions
 * that name their holder), a Redisson hash, or a semaphore zset.
 */
export function lockShapeOf(id: string, o: Observation): string | null {
  if (o.state !== 'present' || o.token === null || id.startsWith('__rli:') || bookkeepingOf(id) !== null) return null;
  if (o.format === 'redisson-lock' || o.format === 'redisson-rwlock') return 'redisson';
  if (o.format === 'semaphore') return decodeIdentity(o.token.split(',')[0]) ? 'redlock-inspector' : 'redis-semaphore';
  if (o.format !== 'string') return null;
  if (decodeIdentity(o.token)) return 'redlock-inspector';
  const named = foreignStringHolder(o.token);
  if (named) return named.library ?? null;
  if (o.pttlMs === null || o.pttlMs < 0) return null;
  const n = o.token.length;
  if (n === 32 && HEX32.test(o.token)) return 'node-redlock, redlock-universal or redis-py';
  if (n === 36 && UUID.test(o.token)) return 'redis-semaphore or pottery';
  if (n === 24 && REDSYNC.test(o.token)) return 'redsync';
  if (n === 24 && PY_REDIS_LOCK.test(o.token)) return 'python-redis-lock';
  if (randomLooking(o.token)) return UNKNOWN_LIBRARY;
  return null;
}

const GLOB_SPECIAL = /[*?[\]\\]/g;
const PRINTABLE = /^[\x21-\x7e]+$/;

/**
 * The pattern a lock key is grouped under: its first `:`-separated part plus `*`
 * (`orders:42` -> `orders:*`), or the name itself when it has no `:`; null for names that
 * are not printable ASCII (they are shown as examples, never offered as patterns).
 */
export function patternOf(id: string): string | null {
  if (!PRINTABLE.test(id)) return null;
  const colon = id.indexOf(':');
  if (colon <= 0) return id.replace(GLOB_SPECIAL, '\\$&');
  return `${id.slice(0, colon + 1).replace(GLOB_SPECIAL, '\\$&')}*`;
}
