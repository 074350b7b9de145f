// Lasting history: with `events: true` the core appends what happened to each resource
// to a capped list per resource and node (docs/formats.md, "Event logs"). Writes are
// queued beside the lock commands, never awaited by them; quit() waits for them. The
// inspector reads the newest entries of every node, read-only and bounded, and merges
// them by the client's clock.
import type Redis from 'ioredis';
import type { Cluster } from 'ioredis';
import { decodeIdentity } from '../vocabulary/holderToken';
import type { Resource } from '../vocabulary/resource';
import { internalKeyOf } from './internalKeys';
import { callReadScript, defineOnce, readScript } from '../connection/lua';
import { readEventsPlain, withoutScripts } from './plainReads';
import type { EventDetail, EventType, LockEvent } from '../vocabulary/lockEvents';
export type { EventDetail, EventType, LockEvent } from '../vocabulary/lockEvents';
const TYPES: readonly string[] = ['acquired', 'extended', 'released', 'lost', 'failed'];

export interface EventOptions {
  /** Entries kept per resource and node; default 100. */
  max?: number;
  /** A log not written for this long disappears; default 24 h. */
  ttlMs?: number;
}

export const DEFAULT_MAX_EVENTS = 100;
export const DEFAULT_EVENTS_TTL_MS = 24 * 3600_000;
/** Entries read per node, whatever a log holds. */
export const READ_EVENTS = 200;
/** Longest entry read; a longer one is unreadable (its size comes back instead). */
export const MAX_EVENT_BYTES = 2048;
const MAX_REASON = 300;

/**
 * LPUSH, cap, expire, for every queued entry at once. KEYS: one log per entry (a log may
 * repeat); ARGV: max, ttl, then the entries. A key of another type is left alone.
 */
const PUSH = `
local max, ttl = tonumber(ARGV[1]) - 1, ARGV[2]
for i = 1, #KEYS do
  local r = redis.pcall('LPUSH', KEYS[i], ARGV[i + 2])
  if type(r) == 'number' then
    if r > max + 1 then redis.call('LTRIM', KEYS[i], 0, max) end
    redis.call('PEXPIRE', KEYS[i], ttl)
  end
end
return 1`;

/** Newest ARGV[1] entries; longer than ARGV[2] bytes come back as their size; -1 another type. */
const READ = `#!lua flags=no-writes
local r = redis.pcall('LRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
if type(r) ~= 'table' or r.err then return -1 end
for i = 1, #r do
  if #r[i] > tonumber(ARGV[2]) then r[i] = #r[i] end
end
return r`;

interface EventCommands {
  rliEventPush(numKeys: number, ...args: string[]): Promise<number>;
}

const EVENT_SCRIPTS = { rliEventPush: { lua: PUSH } };
const READ_SCRIPT = readScript(READ);

function commands(client: Redis | Cluster): EventCommands {
  return defineOnce<EventCommands>(client, EVENT_SCRIPTS);
}

/** The stored form: compact JSON, bounded. */
export function encodeEvent(at: number, type: EventType, token: string, detail: EventDetail = {}): string {
  const body: Record<string, unknown> = { at, type, token };
  if (detail.reason !== undefined) body.reason = detail.reason.slice(0, MAX_REASON);
  if (detail.ttlMs !== undefined) body.ttlMs = detail.ttlMs;
  if (detail.validityMs !== undefined) body.validityMs = Math.floor(detail.validityMs);
  if (detail.fence !== undefined) body.fence = detail.fence;
  if (detail.waitMs !== undefined) body.waitMs = Math.round(detail.waitMs);
  if (detail.held !== undefined) body.held = detail.held;
  if (detail.operation !== undefined) body.operation = detail.operation;
  if (detail.forced === true) body.forced = true;
  return JSON.stringify(body);
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

const unreadable = (reason: string): LockEvent => ({ at: null, type: 'unreadable', holder: null, token: null, reason });

/** Total: entries are untrusted bytes. */
export function decodeEvent(raw: Buffer | number): LockEvent {
  if (typeof raw === 'number') return unreadable('too-large');
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return unreadable('malformed');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return unreadable('malformed');
  const b = body as Record<string, unknown>;
  if (typeof b.at !== 'number' || !Number.isSafeInteger(b.at) || b.at < 0) return unreadable('malformed');
  if (typeof b.type !== 'string' || !TYPES.includes(b.type)) return unreadable('malformed');
  if (typeof b.token !== 'string' || b.token.length === 0 || b.token.length > 512) return unreadable('malformed');
  const id = decodeIdentity(b.token);
  const event: LockEvent = {
    at: b.at,
    type: b.type as EventType,
    holder: id === null ? null : { name: id.name, host: id.host, pid: id.pid, since: id.since },
    token: b.token,
  };
  if (typeof b.reason === 'string') event.reason = b.reason.slice(0, MAX_REASON);
  // Entries are untrusted: a field of the wrong shape is left out, never passed on.
  if (isCount(b.ttlMs) && b.ttlMs > 0) event.ttlMs = b.ttlMs;
  if (isCount(b.validityMs)) event.validityMs = b.validityMs;
  if (isCount(b.fence) && b.fence > 0) event.fence = b.fence;
  if (isCount(b.waitMs)) event.waitMs = b.waitMs;
  if (typeof b.held === 'boolean') event.held = b.held;
  if (b.operation === 'extend') event.operation = 'extend';
  if (b.forced === true) event.forced = true;
  return event;
}

/**
 * The nodes' writes, queued without blocking the lock calls and sent once per event-loop
 * turn as one script call per node (per log on a cluster, whose scripts see one slot);
 * flush() waits for them.
 */
export class EventRecorder {
  private readonly pending = new Set<Promise<unknown>>();
  private readonly max: string;
  private readonly ttl: string;
  private keys: string[] = [];
  private entries: string[] = [];
  private scheduled = false;

  constructor(
    private readonly clients: () => ReadonlyArray<{ client: Redis | Cluster; isCluster: boolean }>,
    options: EventOptions,
    private readonly timeoutMs: number,
  ) {
    this.max = String(Math.max(1, Math.floor(options.max ?? DEFAULT_MAX_EVENTS)));
    this.ttl = String(Math.max(1, Math.floor(options.ttlMs ?? DEFAULT_EVENTS_TTL_MS)));
  }

  record(type: EventType, resources: readonly Resource[], token: string, detail?: EventDetail): void {
    const entry = encodeEvent(Date.now(), type, token, detail);
    for (const r of resources) {
      const key = internalKeyOf('events', r);
      if (key === null) continue;
      this.keys.push(key);
      this.entries.push(entry);
    }
    if (!this.scheduled && this.keys.length > 0) {
      this.scheduled = true;
      setImmediate(() => this.send());
    }
  }

  private send(): void {
    this.scheduled = false;
    const keys = this.keys;
    const entries = this.entries;
    this.keys = [];
    this.entries = [];
    if (keys.length === 0) return;
    const calls: Array<Promise<unknown>> = [];
    for (const { client, isCluster } of this.clients()) {
      const c = commands(client);
      if (isCluster) keys.forEach((k, i) => calls.push(c.rliEventPush(1, k, this.max, this.ttl, entries[i])));
      else calls.push(c.rliEventPush(keys.length, ...keys, this.max, this.ttl, ...entries));
    }
    let timer: NodeJS.Timeout | undefined;
    // A history entry is best effort: a node that does not answer in time loses it.
    const p = Promise.race([Promise.allSettled(calls), new Promise((resolve) => (timer = setTimeout(resolve, this.timeoutMs)))]).finally(() => {
      clearTimeout(timer);
      this.pending.delete(p);
    });
    this.pending.add(p);
  }

  async flush(): Promise<void> {
    if (this.scheduled) this.send();
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }
}

/** One node's newest entries of a resource's log, decoded; rejects when the node fails. */
export async function readEvents(client: Redis | Cluster, resource: Resource, max = READ_EVENTS): Promise<LockEvent[]> {
  const key = internalKeyOf('events', resource);
  if (key === null) return [];
  const r = (await withoutScripts(client))
    ? await readEventsPlain(client as Redis, key, max, MAX_EVENT_BYTES)
    : await callReadScript<unknown>(client, READ_SCRIPT, 1, [key, String(max), String(MAX_EVENT_BYTES)], true);
  if (!Array.isArray(r)) return [unreadable('wrong-type')];
  return r.map((x) => decodeEvent(Buffer.isBuffer(x) ? x : Number(x)));
}

/** Every node's events, de-duplicated (the same write lands on each node), newest first. */
export function mergeEvents(perNode: ReadonlyArray<readonly LockEvent[]>): LockEvent[] {
  const seen = new Map<string, LockEvent>();
  let bad: LockEvent[] = [];
  for (const events of perNode) {
    const counts = new Map<string, number>();
    // Garbage cannot be matched across nodes: the node with the most of it is shown.
    const badHere: LockEvent[] = [];
    for (const e of events) {
      if (e.at === null) {
        badHere.push(e);
        continue;
      }
      // Identical entries on one node are distinct events; across nodes they are copies.
      const base = `${e.at} ${e.type} ${e.token}`;
      const n = (counts.get(base) ?? 0) + 1;
      counts.set(base, n);
      const id = `${base} ${n}`;
      if (!seen.has(id)) seen.set(id, e);
    }
    if (badHere.length > bad.length) bad = badHere;
  }
  const good = [...seen.values()].sort((a, b) => b.at! - a.at!);
  return [...good, ...bad];
}
