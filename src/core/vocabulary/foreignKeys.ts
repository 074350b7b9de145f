// Keys other lock libraries write beside a lock (docs/formats.md, "Their bookkeeping"):
// they belong to a lock and are never a lock of their own. Pure: the name alone says
// which lock a key serves. Layouts read in the libraries' sources:
//   Redisson prefixName(p, name): `p:{name}`, or `p:name` when name has a `{` of its own
//     redisson_lock_queue:{name}       fair lock: list of waiting `<uuid>:<threadId>`
//     redisson_lock_timeout:{name}     fair lock: zset waiter -> deadline (epoch ms)
//     redisson_lock_token:{name}       fenced lock: the fence counter
//     redisson_unlock_latch:{name}:<id> unlock notification, short-lived
//   Redisson suffixName(name, s): `{name}:s`, or `name:s` when name has a `{`
//     {name}:<uuid>:<threadId>:rwlock_timeout[:<n>]   read lock: one per reader and hold
//   python-redis-lock: `lock-signal:<name>` beside its lock `lock:<name>`

export type BookkeepingKind = 'fair-queue' | 'fair-timeout' | 'fence' | 'unlock-latch' | 'rw-timeout' | 'signal';

export interface Bookkeeping {
  kind: BookkeepingKind;
  library: 'redisson' | 'python-redis-lock';
  /** The lock keys it may serve, most likely first (Redisson's `{x}` is `x` or `{x}`). */
  owners: string[];
}

const PREFIXED: ReadonlyArray<[string, BookkeepingKind]> = [
  ['redisson_lock_queue:', 'fair-queue'],
  ['redisson_lock_timeout:', 'fair-timeout'],
  ['redisson_lock_token:', 'fence'],
  ['redisson_unlock_latch:', 'unlock-latch'],
];
const RW_TIMEOUT = /^(.+):[0-9a-fA-F-]{36}:[0-9]{1,19}:rwlock_timeout(?::[0-9]{1,10})?$/;
const SIGNAL = 'lock-signal:';

/** Redisson's names behind a prefixed or suffixed `{x}` part: `x` (wrapped) or `{x}` (its own tag). */
function redissonNames(part: string): string[] {
  if (part.length > 2 && part.startsWith('{') && part.endsWith('}') && part.indexOf('{', 1) < 0) return [part.slice(1, -1), part];
  return part.includes('{') ? [part] : [];
}

/** What `id` (a key's latin1 form) is the bookkeeping of, or null for any other key. */
export function bookkeepingOf(id: string): Bookkeeping | null {
  const c = id.charCodeAt(0);
  if (c === 0x72 /* r */ && id.startsWith('redisson_')) {
    for (const [prefix, kind] of PREFIXED) {
      if (!id.startsWith(prefix)) continue;
      let rest = id.slice(prefix.length);
      if (kind === 'unlock-latch') {
        const cut = rest.lastIndexOf(':');
        if (cut <= 0) return null;
        rest = rest.slice(0, cut);
      }
      const owners = redissonNames(rest);
      return owners.length ? { kind, library: 'redisson', owners } : null;
    }
    return null;
  }
  if (c === 0x6c /* l */ && id.startsWith(SIGNAL) && id.length > SIGNAL.length) {
    return { kind: 'signal', library: 'python-redis-lock', owners: [`lock:${id.slice(SIGNAL.length)}`] };
  }
  if (id.includes(':rwlock_timeout')) {
    const m = RW_TIMEOUT.exec(id);
    if (!m) return null;
    const owners = redissonNames(m[1]);
    return owners.length ? { kind: 'rw-timeout', library: 'redisson', owners } : null;
  }
  return null;
}

/** Redisson's prefixName(p, name): `p:{name}`, or `p:name` when the name has a `{` of its own. */
const prefixed = (prefix: string, name: string): string => (name.includes('{') ? `${prefix}${name}` : `${prefix}{${name}}`);

/**
 * The bookkeeping keys a Redisson lock named `id` (latin1) may have beside it, by name: its
 * fair-lock timeout zset and queue and its fence counter. Read by name when the patterns
 * miss them (`orders:*` never matches `redisson_lock_timeout:{orders:7}`).
 */
export function redissonBookkeepingOf(id: string): string[] {
  return [prefixed('redisson_lock_timeout:', id), prefixed('redisson_lock_queue:', id), prefixed('redisson_lock_token:', id)];
}
