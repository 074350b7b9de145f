// Holder conventions other lock libraries write into their values (docs/formats.md, "Their
// holders"). Each decoder accepts only the exact shape its library writes and returns null
// for anything else: a value that merely resembles a convention is never decoded. Pure and
// total: values are untrusted.
import type { Holder } from './types';

const MAX_FIELD = 64;

const holder = (fields: Partial<Holder>, library: string): Holder => ({ name: null, host: null, pid: null, since: null, thread: null, library, ...fields });

// Redisson's field `<uuid of the client>:<Java thread id>`; a write lock adds `:write`.
const REDISSON = /^([0-9a-fA-F-]{36}):([0-9]{1,19})(?::write)?$/;
// DistributedLock.Redis (.NET): `<MachineName>_<process id>_<Guid "N" form>`.
const DISTRIBUTED_LOCK = /^([^\s_][^\s]{0,63})_([0-9]{1,10})_([0-9a-f]{32})$/;
// ShedLock's RedisLockProvider: `ADDED:<ISO-8601 instant>@<hostname>`.
const SHEDLOCK = /^ADDED:([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z)@([^\s@]{1,64})$/;
// redlock-universal's createLockValueWithMetadata: `<nodeId>:<epoch ms>:<16 hex>`.
const REDLOCK_UNIVERSAL = /^([^\s:]{1,64}):([0-9]{13}):([0-9a-f]{16})$/;

export function redissonHolder(field: string): Holder | null {
  const m = REDISSON.exec(field);
  if (!m) return null;
  const thread = Number(m[2]);
  return holder({ thread: Number.isSafeInteger(thread) ? thread : null }, 'redisson');
}

/** The client uuid of a Redisson holder field (it matches holders with fair-lock waiters). */
export function redissonClientOf(field: string): string | null {
  return REDISSON.exec(field)?.[1] ?? null;
}

/** A plain string value's holder under the conventions above, or null. */
export function foreignStringHolder(value: string): Holder | null {
  if (value.length > 200) return null;
  // Each convention's separator is looked for before its pattern runs: nearly every value
  // read (random tokens, cached data) has none of them, and this runs once per key read.
  let m = value.indexOf('_') > 0 ? DISTRIBUTED_LOCK.exec(value) : null;
  if (m) {
    const pid = Number(m[2]);
    return holder({ host: m[1], pid: Number.isSafeInteger(pid) ? pid : null }, 'DistributedLock');
  }
  m = value.startsWith('ADDED:') ? SHEDLOCK.exec(value) : null;
  if (m) {
    const since = Date.parse(m[1]);
    if (Number.isFinite(since)) return holder({ host: m[2], since }, 'ShedLock');
    return null;
  }
  m = value.length >= 32 && value.indexOf(':') > 0 ? REDLOCK_UNIVERSAL.exec(value) : null;
  if (m) {
    const since = Number(m[2]);
    if (m[1].length <= MAX_FIELD && Number.isSafeInteger(since)) return holder({ name: m[1], since }, 'redlock-universal');
  }
  return null;
}
