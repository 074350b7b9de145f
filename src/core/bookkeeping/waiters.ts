// Waiters: a client whose acquire retries is listed, per resource and per node, in a
// sorted set scored by the instant its entry stops being believable (docs/formats.md,
// "Waiter sets"). The writes ride on scripts the acquire path sends anyway: the failed
// attempt's release adds the entry, the next attempt's grant removes it. Nothing is
// written while a lock is uncontended.
import type Redis from 'ioredis';
import type { Cluster } from 'ioredis';
import { decodeIdentity } from '../vocabulary/holderToken';
import { internalKeyOf } from './internalKeys';
export { internalKeyOf } from './internalKeys';
import { callReadScript, callScript, rawScript, readScript } from '../connection/lua';
import { readWaitingPlain, withoutScripts } from './plainReads';
import type { Resource } from '../vocabulary/resource';
import type { Waiter } from '../vocabulary/types';

/** Entries kept per waiter set: the oldest deadlines go first beyond it. */
export const MAX_WAITERS = 256;
const MAX_WAITERS_TEXT = String(MAX_WAITERS);
/** Entries the inspector reads per set and node. */
export const READ_WAITERS = 64;
const MAX_MEMBER_BYTES = 512;

// Lua numbers print large integers in exponent form; '%.0f' keeps epoch ms exact.
const NODE_NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/**
 * SET NX on every lock key (all or nothing, as rliAcquire); a grant also takes this waiter
 * off the waiter sets, so the new holder is never its own waiter. A refusal leaves the
 * entry alone (readers never see it blink out); the release that follows refreshes it.
 * With ARGV[5] = '1' a refusal lists the waiter itself (as RELEASE_WAIT adds it: score
 * now + ARGV[6], key ttl ARGV[7], cap ARGV[8]): a first attempt that is known to meet a
 * holder is refused and listed in one command instead of two rounds.
 * KEYS: locks then waiter sets; ARGV: token, px, lock count, member[, list, life, key ttl,
 * cap]. 0 when granted, else {index, holder}.
 */
const WAIT_ACQUIRE = `
local nl = tonumber(ARGV[3])
for i = 1, nl do
  local v = redis.call('GET', KEYS[i])
  if v then
    if ARGV[5] == '1' then
      ${NODE_NOW}
      for j = nl + 1, #KEYS do
        local w = KEYS[j]
        redis.pcall('ZADD', w, string.format('%.0f', now + tonumber(ARGV[6])), ARGV[4])
        redis.pcall('PEXPIRE', w, ARGV[7])
        redis.pcall('ZREMRANGEBYSCORE', w, '-inf', string.format('%.0f', now))
        local c = redis.pcall('ZCARD', w)
        if type(c) == 'number' and c > tonumber(ARGV[8]) then redis.pcall('ZREMRANGEBYRANK', w, 0, c - tonumber(ARGV[8]) - 1) end
      end
    end
    return {i, v}
  end
end
for i = 1, nl do
  redis.call('SET', KEYS[i], ARGV[1], 'PX', ARGV[2])
end
for i = nl + 1, #KEYS do redis.pcall('ZREM', KEYS[i], ARGV[4]) end
return 0`;

/**
 * The failed attempt's compare-and-delete, plus the waiter entry: added (ARGV[6] = '1')
 * with score now + ARGV[4], or removed. Expired entries are pruned on every write, the set
 * is capped and its key expires on its own (ARGV[5]) so nothing outlives a dead process.
 * KEYS: locks then waiter sets; ARGV: token, lock count, member, life ms, key ttl ms, add,
 * cap. Returns the number of lock keys deleted.
 */
const RELEASE_WAIT = `
local nl = tonumber(ARGV[2])
local n = 0
for i = 1, nl do
  if redis.pcall('GET', KEYS[i]) == ARGV[1] then
    redis.call('DEL', KEYS[i])
    n = n + 1
  end
end
${NODE_NOW}
local cap = tonumber(ARGV[7])
for i = nl + 1, #KEYS do
  local w = KEYS[i]
  if ARGV[6] == '1' then
    redis.pcall('ZADD', w, string.format('%.0f', now + tonumber(ARGV[4])), ARGV[3])
    redis.pcall('PEXPIRE', w, ARGV[5])
  else
    redis.pcall('ZREM', w, ARGV[3])
    -- A new expiry tells a watching inspector that the set changed.
    redis.pcall('PEXPIRE', w, ARGV[5])
  end
  redis.pcall('ZREMRANGEBYSCORE', w, '-inf', string.format('%.0f', now))
  local c = redis.pcall('ZCARD', w)
  if type(c) == 'number' and c > cap then redis.pcall('ZREMRANGEBYRANK', w, 0, c - cap - 1) end
end
return n`;

/**
 * Read-only: the live entries (score after the node's now) of each waiter set, at most
 * ARGV[1] per set; a member over ARGV[2] bytes comes back as its size, a key of another
 * type as -1.
 */
const READ_WAITING = `#!lua flags=no-writes
-- A server that refuses TIME (renamed, or a role without it): the client's clock, ARGV[3].
local t = redis.pcall('TIME')
local now
if t.err then now = tonumber(ARGV[3]) else now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) end
local out = {}
for i = 1, #KEYS do
  local r = redis.pcall('ZRANGEBYSCORE', KEYS[i], string.format('%.0f', now), '+inf', 'LIMIT', 0, tonumber(ARGV[1]))
  if type(r) ~= 'table' or r.err then
    out[i] = -1
  else
    for j = 1, #r do
      if #r[j] > tonumber(ARGV[2]) then r[j] = #r[j] end
    end
    out[i] = r
  end
end
return out`;

const READ_WAITING_SCRIPT = readScript(READ_WAITING);

const WAIT_ACQUIRE_SCRIPT = rawScript(WAIT_ACQUIRE);
const RELEASE_WAIT_SCRIPT = rawScript(RELEASE_WAIT);

/** One acquire call while it waits: its entry and how long the entry is believed. */
export interface WaitState {
  /** The waiter id (holder encoding, see holderIdentity.ts). */
  member: string;
  /** Waiter sets of the resources that have one. */
  keys: string[];
  lifeText: string;
  keyTtlText: string;
  /** The entry was written by a failed attempt: the next attempt takes it off. */
  listed: boolean;
  /** Monotonic ms of the last write of the entry, and how often it must be rewritten. */
  writtenAt: number;
  periodMs: number;
}

/**
 * Whether a refused attempt must (re)write the entry: first refusal, or half its life gone.
 * Rewriting it on every attempt cost a script per node per retry under contention.
 */
export function entryDue(w: WaitState, nowMs: number): boolean {
  return !w.listed || nowMs - w.writtenAt >= w.periodMs;
}

/**
 * Entry life: an alive waiter rewrites its entry every delay + jitter + attempt deadline;
 * twice that survives one slow round, and the key lives three times as long.
 */
export function waitState(member: string, resources: Resource[], delayMs: number, jitterMs: number, deadlineMs: number): WaitState {
  const period = delayMs + jitterMs + deadlineMs;
  const keys: string[] = [];
  for (const r of resources) {
    const k = internalKeyOf('waiters', r);
    if (k !== null) keys.push(k);
  }
  return { member, keys, lifeText: String(Math.ceil(2 * period)), keyTtlText: String(Math.ceil(3 * period)), listed: false, writtenAt: 0, periodMs: period };
}

/** `list`: a refusal also lists the waiter (a first attempt known to meet a holder). */
export function waitAcquireOn(client: Redis | Cluster, locks: Resource[], token: string, px: string, w: WaitState, list = false): Promise<number | [number, Buffer]> {
  const args = [...locks, ...w.keys, token, px, String(locks.length), w.member];
  if (list) args.push('1', w.lifeText, w.keyTtlText, MAX_WAITERS_TEXT);
  // A grant: never resent out of order (callScript).
  return callScript(client, WAIT_ACQUIRE_SCRIPT, locks.length + w.keys.length, args, false);
}

export function releaseWaitOn(client: Redis | Cluster, locks: Resource[], token: string | Buffer, w: WaitState, add: boolean): Promise<number> {
  // Adding an entry late would list a waiter that gave up: never resent out of order.
  return callScript(client, RELEASE_WAIT_SCRIPT, locks.length + w.keys.length, [
    ...locks,
    ...w.keys,
    token,
    String(locks.length),
    w.member,
    w.lifeText,
    w.keyTtlText,
    add ? '1' : '0',
    MAX_WAITERS_TEXT,
  ], false);
}

/** What one node lists for one waiter set: raw members, or why it could not be read. */
export type WaitingRead = { members: Buffer[]; tooLarge: number } | { wrongType: true };

/** Live members of each waiter set on one node (one read-only script). */
export async function readWaiting(client: Redis | Cluster, keys: string[]): Promise<WaitingRead[]> {
  if (keys.length === 0) return [];
  const flat = (await withoutScripts(client))
    ? await readWaitingPlain(client as Redis, keys, READ_WAITERS, MAX_MEMBER_BYTES)
    : await callReadScript<unknown[]>(client, READ_WAITING_SCRIPT, keys.length, [...keys, String(READ_WAITERS), String(MAX_MEMBER_BYTES), String(Date.now())], true);
  return keys.map((_, i): WaitingRead => {
    const r = flat[i];
    if (!Array.isArray(r)) return { wrongType: true };
    const members: Buffer[] = [];
    let tooLarge = 0;
    for (const m of r) {
      if (Buffer.isBuffer(m)) members.push(m);
      else tooLarge++;
    }
    return { members, tooLarge };
  });
}

/** A waiter as shown, plus the process id deadlock detection matches on. */
export interface WaiterSeen {
  waiter: Waiter & { reason?: string };
  processId: string | null;
}

const UNREADABLE: Waiter = { name: null, host: null, pid: null, since: null };

/** Merges what every node lists: one entry per member, oldest first; garbage is unreadable. */
export function mergeWaiters(reads: ReadonlyArray<WaitingRead | undefined>): WaiterSeen[] {
  const seen = new Map<string, WaiterSeen>();
  let unreadable = 0;
  for (const r of reads) {
    if (!r) continue;
    if ('wrongType' in r) {
      unreadable = Math.max(unreadable, 1);
      continue;
    }
    let bad = r.tooLarge;
    for (const m of r.members) {
      const text = m.toString('latin1');
      if (seen.has(text)) continue;
      const id = decodeIdentity(text);
      if (id === null) {
        bad++;
        continue;
      }
      seen.set(text, { waiter: { name: id.name, host: id.host, pid: id.pid, since: id.since }, processId: id.id });
    }
    unreadable = Math.max(unreadable, bad);
  }
  const out = [...seen.values()].sort((a, b) => (a.waiter.since ?? 0) - (b.waiter.since ?? 0));
  // Garbage entries are not matched across nodes: the node listing most of them counts.
  for (let i = 0; i < unreadable; i++) out.push({ waiter: { ...UNREADABLE, reason: 'unreadable' }, processId: null });
  return out;
}
