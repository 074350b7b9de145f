// What a read of the nodes carries from page to page: the node set, its deadlines, and per
// node the keys a scan found and what each key holds. Shared by the scan, the attach
// passes and the watcher, so none of them imports another for a type.
import { Cluster } from 'ioredis';
import { clusterMembers } from '../connection/clusterMembers';
import { unreadMasters } from '../connection/clusterTopology';
import type { RedisNode } from '../connection/nodes';
import type { LockEntry, NodeStatus, Observation, SkippedKey } from '../vocabulary/types';
import { KeyTable } from './keyTable';
import { NodeReads, type KeySink, type Stamp } from './nodeReads';
export { factsOf, UNKNOWN_FACTS, type ScanFacts, type Stamp } from './nodeReads';

/** One key's classification: a lock, or why it is not one. */
export type KeyResult = LockEntry | SkippedKey;

/** What classifyKeys gives, and each later stage gives anew (pipeline.ts). */
export interface Classified {
  locks: LockEntry[];
  lockIds: string[];
  skipped: SkippedKey[];
  skippedIds: string[];
  fencesToRead: number[];
  waitersToRead: number[];
  /** Other libraries' bookkeeping keys: attached to their locks afterwards (bookkeepingRead.ts). */
  bookkeeping: string[];
}

export interface InspectContext {
  nodes: readonly RedisNode[];
  /** Redis Cluster: each key lives on one master, so its entry lists that master only (N = 1). */
  ownerOnly?: boolean;
  /** Redis Cluster: the slot ranges each of `nodes` owns (empty while the slot map is unknown). */
  slotRanges?: ReadonlyArray<Array<[number, number]>>;
  driftFactor: number;
  /** Per call deadline for one SCAN or read batch. */
  commandTimeoutMs: number;
  /**
   * The tokens this read decoded, where a watch keeps them: each lock's copies then share
   * one string (readScripts.ts TokenTable). A one-off read keeps none: looking every copy's
   * token up cost a 5-node snapshot a fifth of its CPU, to save memory it frees at once.
   * Nor does a watch's first tick, whose countdown shares them (watch.ts countFirstReads).
   */
  tokens?: Map<string, string>;
  /**
   * A full read's first token of each key, by its number in `keys`: a copy on another node
   * whose bytes show as that token takes its string, with no string made and no lookup by
   * value (readScripts.ts decodeScanPage). A 100k x 5 watch's first tick made 400,000
   * strings it let go of at its end. Only where the nodes share `keys`.
   */
  tokensByKey?: Array<string | undefined>;
  /**
   * The key ids this read holds, numbered (keyTable.ts): each key's reads on N nodes, its
   * pages' listings and a watch's own maps share one string, and a lock's copies are found
   * by one lookup. A watch keeps its table from tick to tick (watch.ts compacts it); a
   * snapshot shares one between its nodes. Without one, each node's scan numbers its own.
   */
  keys?: KeyTable;
}

/** `s` as `table` holds it, added where it is new: equal strings kept once. `s` itself without a table. */
export function interned(table: Map<string, string> | undefined, s: string): string {
  if (table === undefined) return s;
  const seen = table.get(s);
  if (seen !== undefined) return seen;
  table.set(s, s);
  return s;
}

/**
 * `read` with one table of key ids for every node's scan: a key's copies are found by one
 * lookup. Not on a cluster, where each master holds its own keys: there each scan numbers
 * its own (a shared numbering would give every master an array as long as all of them).
 */
export function withKeyTable(read: InspectContext): InspectContext {
  return read.ownerOnly ? { ...read, keys: undefined } : { ...read, keys: read.keys ?? new KeyTable() };
}

/**
 * `read` with a table of each key's first token (tokensByKey), where its nodes share a key
 * table and keep no table of tokens by value (a one-off read, a watch's first tick).
 */
export function withSharedTokens(read: InspectContext): InspectContext {
  return read.keys !== undefined && read.tokens === undefined && read.nodes.length > 1 ? { ...read, tokensByKey: [] } : read;
}

/** A node's reads, numbered by the read's table (a table of the node's own without one). */
export function nodeReads(ctx: InspectContext, onNew?: KeySink): NodeReads {
  return new NodeReads(ctx.keys ?? new KeyTable(), onNew);
}

export interface NodeScan {
  status: NodeStatus;
  /** latin1 key -> what this node holds and the instant it was read (epoch ms). */
  reads: NodeReads;
  absent: Observation;
  /** Node clock minus local clock: turns the node's read instants into local ones. */
  offsetMs: number;
  /**
   * How far `offsetMs` may be off, either way: half the round trip of the TIME that measured
   * it (a reply that waits on a busy event loop makes that trip long). Copies on two nodes
   * are told apart in time only beyond it (classify.ts ClassifyInput.readErrMs).
   */
  offsetErrMs: number;
  cursors: string[];
  truncated: boolean;
  /** Resources whose event logs the scan's walk of internal keys came across (internalWalk.ts). */
  logged?: ReadonlySet<string>;
}

/** The reads behind a lock's copy `i`: on a cluster the one master's that lists the key, else node i's. */
function readsOf(scans: readonly NodeScan[], i: number, id: string, ownerOnly: boolean): NodeReads | undefined {
  return ownerOnly ? scans.find((s) => s.reads.has(id))?.reads : scans[i]?.reads;
}

/** When a lock's copy `i` was read (readsOf), if it was. */
export function copyStamp(scans: readonly NodeScan[], i: number, id: string, ownerOnly: boolean): Stamp | undefined {
  return readsOf(scans, i, id, ownerOnly)?.stampOf(id);
}

/** Where each copy of one lock is held (copiesOf): the node's reads and the key's number there, -1 where it holds none. */
export interface Copies {
  reads: Array<NodeReads | undefined>;
  ks: number[];
}

/**
 * Each of a lock's `n` copies (readsOf) into `into`: the walks of a lock that follow one
 * another share one lookup (a Map lookup by key per copy and walk was a tenth of a
 * 100k-lock watch's first tick), and where the scans share a key table, one for all copies.
 */
export function copiesOf(scans: readonly NodeScan[], id: string, ownerOnly: boolean, n: number, into: Copies): void {
  into.reads.length = n;
  into.ks.length = n;
  const table = ownerOnly ? undefined : sharedTable(scans);
  const shared = sharedNumber(table, id);
  for (let i = 0; i < n; i++) {
    const reads = table !== undefined ? scans[i]?.reads : readsOf(scans, i, id, ownerOnly);
    into.reads[i] = reads;
    into.ks[i] = reads === undefined ? -1 : reads.numberOf(id, shared);
  }
}

/**
 * Each of `ids`' number in the key table `scans` share (-1 where none), for
 * NodeReads.numberOf: one lookup per key instead of one per key and node. Undefined where
 * each scan numbers its own (a cluster).
 */
export function sharedNumbers(scans: readonly NodeScan[], ids: readonly string[]): number[] | undefined {
  const table = sharedTable(scans);
  return table === undefined ? undefined : ids.map((id) => sharedNumber(table, id)!);
}

/** `id`'s number in the table the scans share (-1 where none), or undefined without one: NodeReads.numberOf's `shared`. */
export function sharedNumber(table: KeyTable | undefined, id: string): number | undefined {
  return table === undefined ? undefined : (table.find(id) ?? -1);
}

/** The key table every scan of `scans` numbers its reads by, if they share one (KeyTable.find, NodeReads.obsAt). */
export function sharedTable(scans: readonly NodeScan[]): KeyTable | undefined {
  const table = scans[0]?.reads.table;
  for (let i = 1; i < scans.length; i++) if (scans[i].reads.table !== table) return undefined;
  return table;
}

/**
 * A node whose keys were read: it answered and could serve the read. One that answered but
 * cannot run the read as configured (`unsupported`) stays reachable, and its copies are
 * unknown, never "absent".
 */
export function readable(status: NodeStatus): boolean {
  return status.reachable && status.outcome !== 'unsupported';
}

/** What read paths see of a node set: a cluster as its masters, anything else as configured. */
export function readContextOf(nodes: readonly RedisNode[], driftFactor: number, readTimeoutMs: number, shareTokens = false): InspectContext {
  const cluster = nodes[0].client instanceof Cluster ? nodes[0].client : undefined;
  const members = cluster ? clusterMembers(cluster) : undefined;
  return {
    nodes: members ? members.map((m) => m.node) : nodes,
    ownerOnly: members !== undefined,
    slotRanges: members?.map((m) => m.ranges),
    driftFactor,
    commandTimeoutMs: readTimeoutMs,
    // One node, or a cluster's masters: a key has one copy, so there is nothing to share.
    tokens: shareTokens && nodes.length > 1 && members === undefined ? new Map() : undefined,
  };
}

/**
 * Redis Cluster: the masters among `seen` (a snapshot's or a watch status's nodes) that did
 * not answer and own part of the keyspace `patterns` can reach; [] elsewhere.
 */
export function unreadOf(nodes: readonly RedisNode[], seen: ReadonlyArray<{ node: string; reachable: boolean }>, patterns: readonly string[]): string[] {
  const client = nodes[0].client;
  if (!(client instanceof Cluster)) return [];
  const ranges = new Map(clusterMembers(client).map((m) => [m.node.id, m.ranges]));
  const members = seen.map((n) => ({ reachable: n.reachable, ranges: ranges.get(n.node) ?? [] }));
  return unreadMasters(patterns, members).map((i) => seen[i].node);
}
