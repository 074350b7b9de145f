// Lua for the lock writes, always as EVALSHA with an EVAL fallback on NOSCRIPT: through
// ioredis defineCommand, except release on the hot path (releaseKeysOn). Every compare
// reads with pcall so a key of another type is "not ours", never a script error that
// hides the other keys.
import { createHash } from 'node:crypto';
import type Redis from 'ioredis';
import type { Cluster } from 'ioredis';

/** All-or-nothing on one node: returns 0 when every key was set, else {index, holder}. */
const ACQUIRE = `
for i = 1, #KEYS do
  local v = redis.call('GET', KEYS[i])
  if v then return {i, v} end
end
for i = 1, #KEYS do
  redis.call('SET', KEYS[i], ARGV[1], 'PX', ARGV[2])
end
return 0`;

/** Compare-and-delete: the number of keys that held the token and were deleted. */
const RELEASE = `
local n = 0
for i = 1, #KEYS do
  if redis.pcall('GET', KEYS[i]) == ARGV[1] then
    redis.call('DEL', KEYS[i])
    n = n + 1
  end
end
return n`;

/**
 * Compare-and-PEXPIRE, all or nothing: {1, then per key the absolute expiry before and
 * after (PEXPIRETIME; -1 none, -3 unknown on Redis < 7)} extended, 0 absent, {0, holder}
 * held by another, -1 wrong type. The expiries let a failed extend undo itself.
 */
const EXTEND = `
for i = 1, #KEYS do
  local v = redis.pcall('GET', KEYS[i])
  if v ~= ARGV[1] then
    if type(v) == 'string' then return {0, v} end
    if type(v) == 'table' and v.err then return -1 end
    return 0
  end
end
local out = {1}
for i = 1, #KEYS do
  local before = redis.pcall('PEXPIRETIME', KEYS[i])
  redis.call('PEXPIRE', KEYS[i], ARGV[2])
  local after = redis.pcall('PEXPIRETIME', KEYS[i])
  if type(before) ~= 'number' or type(after) ~= 'number' then before, after = -3, -3 end
  out[2 * i] = before
  out[2 * i + 1] = after
end
return out`;

/**
 * Undoes an extend that failed its quorum, per key (ARGV[1] token, then pairs of expiry
 * before, expiry set): back to the old absolute expiry (PEXPIREAT) or none (PERSIST), only
 * where the token still matches and the expiry is still the one that extend set, so a
 * holder that extended in between keeps its lease. Returns the number of keys restored.
 */
const RESTORE_EXPIRY = `
local n = 0
for i = 1, #KEYS do
  local before, set = tonumber(ARGV[2 * i]), tonumber(ARGV[2 * i + 1])
  if before ~= -3 and redis.pcall('GET', KEYS[i]) == ARGV[1] and redis.call('PEXPIRETIME', KEYS[i]) == set then
    if before == -1 then redis.call('PERSIST', KEYS[i]) else redis.call('PEXPIREAT', KEYS[i], before) end
    n = n + 1
  end
end
return n`;

/**
 * Force-release one key only if it still holds what was observed: for strings the whole
 * value (ARGV[1]); for hashes (Redisson, without the 'mode' field) and zsets (semaphores)
 * exactly the holder set ARGV[2..]. 1 deleted, 0 absent, -1 changed.
 */
const FORCE_RELEASE = `
local t = redis.call('TYPE', KEYS[1])['ok']
if t == 'none' then return 0 end
local want = #ARGV - 1
if t == 'string' then
  if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
elseif t == 'hash' then
  local n = redis.call('HLEN', KEYS[1])
  if redis.call('HEXISTS', KEYS[1], 'mode') == 1 then n = n - 1 end
  if n ~= want or want > 10000 then return -1 end
  for i = 2, #ARGV do
    if ARGV[i] == 'mode' or redis.call('HEXISTS', KEYS[1], ARGV[i]) == 0 then return -1 end
  end
elseif t == 'zset' then
  if redis.call('ZCARD', KEYS[1]) ~= want or want > 10000 then return -1 end
  for i = 2, #ARGV do
    if not redis.call('ZSCORE', KEYS[1], ARGV[i]) then return -1 end
  end
else
  return -1
end
redis.call('DEL', KEYS[1])
return 1`;

export const SCRIPTS = {
  rliAcquire: ACQUIRE,
  rliRelease: RELEASE,
  rliExtend: EXTEND,
  rliForceRelease: FORCE_RELEASE,
  rliRestoreExpiry: RESTORE_EXPIRY,
} as const;

type Arg = string | Buffer | number;
export interface LockCommands {
  rliAcquire(numKeys: number, ...args: Arg[]): Promise<number | [number, Buffer]>;
  rliRelease(numKeys: number, ...args: Arg[]): Promise<number>;
  rliExtend(numKeys: number, ...args: Arg[]): Promise<number | [number, Buffer] | number[]>;
  rliRestoreExpiry(numKeys: number, ...args: Arg[]): Promise<number>;
  rliForceRelease(numKeys: number, ...args: Arg[]): Promise<number>;
}

const RELEASE_SHA = createHash('sha1').update(RELEASE).digest('hex');

/**
 * Compare-and-delete without ioredis' Script wrapper (a command subclass, a closure and
 * a promise per call: measurable on the hot path). EVAL once when the node lacks it.
 */
export function releaseKeysOn(client: Redis | Cluster, keys: ReadonlyArray<string | Buffer>, token: string | Buffer): Promise<number> {
  return (client.evalsha(RELEASE_SHA, keys.length, ...keys, token) as Promise<number>).catch((e: unknown) => {
    if (!(e instanceof Error) || !e.message.startsWith('NOSCRIPT')) throw e;
    return client.eval(RELEASE, keys.length, ...keys, token) as Promise<number>;
  });
}

const defined = new WeakSet<object>();

/** Defines our commands once per client (a client the caller passed in included). */
export function lockCommands(client: Redis | Cluster): LockCommands {
  if (!defined.has(client)) {
    for (const [name, lua] of Object.entries(SCRIPTS)) client.defineCommand(name, { lua });
    defined.add(client);
  }
  return client as unknown as LockCommands;
}
