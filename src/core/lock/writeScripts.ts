// Lua for the lock writes: EVAL on a connection's first use, EVALSHA after, through
// callScript on the hot and contended paths and ioredis defineCommand elsewhere. Every
// compare reads with pcall so a key of another type is "not ours", never a script error
// that hides the other keys.
import type Redis from 'ioredis';
import { Cluster } from 'ioredis';
import { knownCapabilities } from '../connection/capabilities';
import { callScript, defineOnce, rawScript } from '../connection/lua';
export { callScript, rawScript } from '../connection/lua';
export type { RawScript } from '../connection/lua';

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
 * Several callers' writes to one node, in the order they were made (writeBatch.ts): per
 * write three ARGV, its kind, its argument and its token, and its keys in KEYS in the same
 * order. 'g': SET NX PX of one key (argument: the PX), answering 1 granted, 0 refused.
 * 'i': INCR of one key (a fence counter), answering the new value or the node's error for
 * that write alone. 'r': RELEASE of the next n keys (argument: n), answering the number
 * deleted.
 */
const WRITE_EACH = `
local out, k = {}, 0
for j = 1, #ARGV, 3 do
  local kind, arg, token = ARGV[j], ARGV[j + 1], ARGV[j + 2]
  if kind == 'g' then
    k = k + 1
    out[#out + 1] = redis.call('SET', KEYS[k], token, 'PX', arg, 'NX') and 1 or 0
  elseif kind == 'i' then
    k = k + 1
    out[#out + 1] = redis.pcall('INCR', KEYS[k])
  else
    local c = 0
    for i = k + 1, k + tonumber(arg) do
      if redis.pcall('GET', KEYS[i]) == token then
        redis.call('DEL', KEYS[i])
        c = c + 1
      end
    end
    k = k + tonumber(arg)
    out[#out + 1] = c
  end
end
return out`;

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

/** Every lock-write script of this module, by name (the proofs test tells them from reads). */
export const SCRIPTS = {
  rliAcquire: ACQUIRE,
  rliRelease: RELEASE,
  rliWriteEach: WRITE_EACH,
  rliExtend: EXTEND,
  rliForceRelease: FORCE_RELEASE,
  rliRestoreExpiry: RESTORE_EXPIRY,
} as const;

type Arg = string | Buffer | number;
/** The scripts whose late landing is harmless go through ioredis defineCommand. */
export interface LockCommands {
  rliRestoreExpiry(numKeys: number, ...args: Arg[]): Promise<number>;
  rliForceRelease(numKeys: number, ...args: Arg[]): Promise<number>;
}

const RELEASE_SCRIPT = rawScript(RELEASE);
export const WRITE_EACH_SCRIPT = rawScript(WRITE_EACH);
const ACQUIRE_SCRIPT = rawScript(ACQUIRE);
const EXTEND_SCRIPT = rawScript(EXTEND);

/**
 * Compare-and-delete on one node. A NOSCRIPT is resent: deleting our own token is right
 * whenever it lands (tokens are never reused).
 */
export function releaseKeysOn(client: Redis | Cluster, keys: ReadonlyArray<string | Buffer>, token: string | Buffer): Promise<number> {
  const known = knownCapabilities(client);
  // A server without scripts but with a native compare-and-delete (Valkey 9, Redis 8.4):
  // the server compares and deletes in one command per key (see writeSupport.ts).
  if (known?.capabilities.scripts === false && known.compareAndDeleteCommand && !(client instanceof Cluster)) {
    const cmd = known.compareAndDeleteCommand;
    return Promise.all(keys.map((k) => client.call(...nativeCompareAndDelete(cmd, k, token)) as Promise<number>)).then((r) => r.reduce((a, b) => a + Number(b), 0));
  }
  return callScript<number>(client, RELEASE_SCRIPT, keys.length, [...keys, token], true);
}

/** The native compare-and-delete of one key: Valkey 9 `DELIFEQ key token`, Redis 8.4 `DELEX key IFEQ token`; each replies 1 deleted, 0 not. */
export function nativeCompareAndDelete(cmd: 'DELIFEQ' | 'DELEX', key: string | Buffer, token: string | Buffer): [string, ...Array<string | Buffer>] {
  return cmd === 'DELIFEQ' ? ['DELIFEQ', key, token] : ['DELEX', key, 'IFEQ', token];
}

/** All-or-nothing grant of several keys on one node (ACQUIRE): never resent out of order. */
export function acquireKeysOn(client: Redis | Cluster, keys: ReadonlyArray<string | Buffer>, token: string, px: string): Promise<number | [number, Buffer]> {
  return callScript(client, ACQUIRE_SCRIPT, keys.length, [...keys, token, px], false);
}

/**
 * Compare-and-PEXPIRE (EXTEND). Resent after a flushed script cache: failing it would
 * cost the holder its lock, while a late one only matters if this extend also failed its
 * quorum and its undo ran first.
 */
export function extendKeysOn(client: Redis | Cluster, keys: ReadonlyArray<string | Buffer>, token: string | Buffer, px: string): Promise<number | [number, Buffer] | number[]> {
  return callScript(client, EXTEND_SCRIPT, keys.length, [...keys, token, px], true);
}

const LATE_HARMLESS = { rliForceRelease: { lua: FORCE_RELEASE }, rliRestoreExpiry: { lua: RESTORE_EXPIRY } };

/** Our commands on `client`, defined once per client (a client the caller passed in included). */
export function lockCommands(client: Redis | Cluster): LockCommands {
  return defineOnce<LockCommands>(client, LATE_HARMLESS);
}
