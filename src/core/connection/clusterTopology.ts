// Redis Cluster topology as the read paths and lock results need it: which master owns
// which hash slot (from the slot map ioredis keeps), which part of the keyspace a SCAN
// pattern can reach, and a bounded wait until a fresh cluster client can run commands.
// Why each rule exists: docs/deployments.md.
import Redis, { Cluster } from 'ioredis';
import { formatHostPort } from './urls';
import { tlsRefusal } from './tlsRefusals';

export const SLOT_COUNT = 16384;

/** CRC16-CCITT (XMODEM), the checksum Redis Cluster hashes keys with. */
const CRC_TABLE = (() => {
  const t = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i << 8;
    for (let b = 0; b < 8; b++) c = c & 0x8000 ? ((c << 1) ^ 0x1021) & 0xffff : (c << 1) & 0xffff;
    t[i] = c;
  }
  return t;
})();

function crc16(buf: Buffer, from: number, to: number): number {
  let crc = 0;
  for (let i = from; i < to; i++) crc = ((crc << 8) & 0xffff) ^ CRC_TABLE[((crc >> 8) ^ buf[i]) & 0xff];
  return crc;
}

/** The hash slot of a key: only its `{tag}` counts when it has a non-empty one. */
export function keySlot(key: string | Buffer): number {
  const buf = typeof key === 'string' ? Buffer.from(key) : key;
  const open = buf.indexOf(0x7b);
  if (open >= 0) {
    const close = buf.indexOf(0x7d, open + 1);
    if (close > open + 1) return crc16(buf, open + 1, close) % SLOT_COUNT;
  }
  return crc16(buf, 0, buf.length) % SLOT_COUNT;
}

/**
 * The literal text a SCAN MATCH glob starts with (escapes resolved), and whether the
 * whole pattern is literal: an exact key.
 */
export function literalPrefix(pattern: string): { prefix: string; exact: boolean } {
  let prefix = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\' && i + 1 < pattern.length) {
      prefix += pattern[++i];
      continue;
    }
    if (c === '*' || c === '?' || c === '[') return { prefix, exact: false };
    prefix += c;
  }
  return { prefix, exact: true };
}

/**
 * The one slot every key matching `pattern` hashes to, or null when they may spread over
 * every slot. An exact key has one slot; so has a glob whose literal start already holds
 * a complete, non-empty `{tag}` (the first `{` and the first `}` after it decide the tag).
 */
export function patternSlot(pattern: string): number | null {
  const { prefix, exact } = literalPrefix(pattern);
  if (exact) return keySlot(prefix);
  const open = prefix.indexOf('{');
  if (open < 0) return null;
  const close = prefix.indexOf('}', open + 1);
  if (close < 0) return null;
  if (close === open + 1) return null;
  return keySlot(prefix.slice(open, close + 1));
}

interface ClusterInternals {
  slots: Array<string[] | undefined>;
  startupNodes?: Array<{ host?: string; port?: number }>;
  connectionPool?: { getInstanceByKey(key: string): Redis | undefined };
}

const internals = (c: Cluster): ClusterInternals => c as unknown as ClusterInternals;

/** ioredis' slot-map key ("host:port") in the id form status uses (IPv6 in brackets). */
export function masterIdOfKey(key: string): string {
  const colon = key.lastIndexOf(':');
  return formatHostPort({ host: key.slice(0, colon), port: Number(key.slice(colon + 1)) });
}

/** Masters of the slot map in slot order, each with the slot ranges it owns. */
export function slotOwners(cluster: Cluster): Array<{ key: string; ranges: Array<[number, number]> }> {
  const slots = internals(cluster).slots ?? [];
  const byKey = new Map<string, Array<[number, number]>>();
  let runKey: string | undefined;
  let runStart = 0;
  const close = (end: number): void => {
    if (runKey === undefined) return;
    let ranges = byKey.get(runKey);
    if (!ranges) byKey.set(runKey, (ranges = []));
    ranges.push([runStart, end]);
  };
  for (let s = 0; s < SLOT_COUNT; s++) {
    const owner = slots[s]?.[0];
    if (owner === runKey) continue;
    close(s - 1);
    runKey = owner;
    runStart = s;
  }
  close(SLOT_COUNT - 1);
  return [...byKey].map(([key, ranges]) => ({ key, ranges }));
}

/** The master (status id form) that owns `key`'s slot, or undefined before the slot map is known. */
export function ownerOf(cluster: Cluster, key: string | Buffer): string | undefined {
  const owner = internals(cluster).slots?.[keySlot(key)]?.[0];
  return owner === undefined ? undefined : masterIdOfKey(owner);
}

export function seedIds(cluster: Cluster): string[] {
  return (internals(cluster).startupNodes ?? []).map((s) => formatHostPort({ host: s.host ?? '127.0.0.1', port: s.port ?? 6379 }));
}

/** The live connection ioredis holds to one master of the slot map, if any. */
export function connectionOf(cluster: Cluster, key: string): Redis | undefined {
  return internals(cluster).connectionPool?.getInstanceByKey(key);
}

const lastNodeErrors = new WeakMap<Cluster, Map<string, string>>();

/** Remembers why each cluster member last failed, so an unreachable master says why. */
export function trackNodeErrors(cluster: Cluster): void {
  if (lastNodeErrors.has(cluster)) return;
  const errors = new Map<string, string>();
  lastNodeErrors.set(cluster, errors);
  cluster.on('node error', (err: Error, key: string) => {
    if (typeof key === 'string') errors.set(key, (err?.message ?? String(err)).split('\n')[0]);
  });
  cluster.on('+node', (_redis: Redis, key: string) => errors.delete(key));
}

export function lastErrorOf(cluster: Cluster, key: string): string | undefined {
  return lastNodeErrors.get(cluster)?.get(key);
}

/** Every seed refused the connection outright: an outage, not a race worth waiting out. */
function allSeedsRefused(cluster: Cluster): boolean {
  const errors = lastNodeErrors.get(cluster);
  if (!errors || errors.size === 0) return false;
  const refused = new Set([...errors].filter(([, e]) => /ECONNREFUSED/.test(e)).map(([k]) => masterIdOfKey(k)));
  const seeds = seedIds(cluster);
  return seeds.length > 0 && seeds.every((s) => refused.has(s));
}

/**
 * Resolves once the cluster has a slot map and every master connection has settled
 * (connected, or failed), or after `ms` whatever the state. Unlike a single node, a
 * cluster's transient errors (a seed that fails, a readiness probe that loses a race)
 * are followed by ioredis' own retries, so an error event is no answer here.
 */
export function waitClusterReady(cluster: Cluster, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  const settled = (): boolean => {
    // A refused TLS handshake, like a refused connection, is an answer: no race to wait out.
    if (cluster.status === 'end' || allSeedsRefused(cluster) || tlsRefusal(cluster) !== undefined) return true;
    if (cluster.status !== 'ready') return false;
    return cluster.nodes('master').every((m) => m.status !== 'wait' && m.status !== 'connecting' && m.status !== 'connect');
  };
  if (settled()) return Promise.resolve();
  return new Promise((resolve) => {
    const events = ['ready', 'end', '+node', 'refresh', 'error'] as const;
    let timer: NodeJS.Timeout | undefined;
    let watched: Redis[] = [];
    const check = (): void => {
      if (!settled() && Date.now() < deadline) {
        watchMasters();
        return;
      }
      clearTimeout(timer);
      for (const e of events) cluster.off(e, check);
      for (const m of watched) {
        m.off('ready', check);
        m.off('end', check);
        m.off('close', check);
      }
      resolve();
    };
    // Member connections report their own progress; each is watched once.
    const watchMasters = (): void => {
      for (const m of cluster.nodes('master')) {
        if (watched.includes(m)) continue;
        watched = [...watched, m];
        m.on('ready', check);
        m.on('end', check);
        m.on('close', check);
      }
    };
    timer = setTimeout(check, Math.max(0, deadline - Date.now()));
    for (const e of events) cluster.on(e, check);
    watchMasters();
  });
}

/**
 * Which masters hold part of the keyspace `patterns` can reach but did not answer. An
 * empty `ranges` (slot map unknown) could own anything. A pattern without a fixed slot
 * reaches every slot, so any silent master leaves its locks unknown.
 */
export function unreadMasters(patterns: readonly string[], members: ReadonlyArray<{ reachable: boolean; ranges: ReadonlyArray<readonly [number, number]> }>): number[] {
  const slots = patterns.map(patternSlot);
  const out: number[] = [];
  members.forEach((m, i) => {
    if (m.reachable) return;
    if (m.ranges.length === 0) return void out.push(i);
    const owns = (slot: number): boolean => m.ranges.some(([a, b]) => slot >= a && slot <= b);
    if (slots.some((s) => s === null || owns(s))) out.push(i);
  });
  return out;
}

/** The exact keys among `patterns` whose owning master is one of `silent` (indexes into members). */
export function exactKeysOn(patterns: readonly string[], members: ReadonlyArray<{ ranges: ReadonlyArray<readonly [number, number]> }>, silent: readonly number[]): string[] {
  const keys: string[] = [];
  for (const p of patterns) {
    const { prefix, exact } = literalPrefix(p);
    if (!exact) continue;
    const slot = keySlot(prefix);
    const owner = members.findIndex((m) => m.ranges.some(([a, b]) => slot >= a && slot <= b));
    // Unknown topology: the key could be on any silent seed's master.
    if ((owner >= 0 && silent.includes(owner)) || (owner < 0 && silent.length > 0)) keys.push(prefix);
  }
  return keys;
}
