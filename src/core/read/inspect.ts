// Snapshots: SCAN every node (never KEYS) within a key cap and a time budget, read each
// key once per node with one read-only script per batch, then classify. Read paths never
// write: only TYPE/PTTL/STRLEN/GET/HLEN/HKEYS/HSTRLEN/HGET/ZCARD/ZRANGE run, in a
// `no-writes` script.
import { isInternalKey } from '../bookkeeping/internalKeys';
import { holderFields } from './holdersRead';
import { pageCounter } from './fenceRead';
import { bookkeepingOf } from '../vocabulary/foreignKeys';
import { performance } from 'node:perf_hooks';
import { clockNow, withDeadline } from '../connection/deadline';
import { probeClock } from '../connection/clockOffset';
import { classifyCopies, NO_FLAGS, skipReason, type ClassifyInput, type CopiesVerdict } from '../vocabulary/classify';
import { newEntry } from './entryCopy';
import { factsOf, nodeReads, readable, sharedNumber, sharedNumbers, sharedTable, UNKNOWN_FACTS, type Classified, type InspectContext, type KeyResult, type NodeScan, type Stamp } from './context';
export type { InspectContext, NodeScan } from './context';
import type { KeySink, NodeReads } from './nodeReads';
import { sendableKey, type KeyTable } from './keyTable';
import { DEFAULT_PATTERNS } from '../vocabulary/inspectTypes';
import { downStatus, RedisNode } from '../connection/nodes';
import { capabilitiesOf, scriptsRefused } from '../connection/capabilities';
import { readObservationsPlain } from './plainRead';
import type Redis from 'ioredis';
import { absentOn, decodeScanPage, PageReply, ReadBatch, readInternalOf, readObservations, requestScanPage, scanPageHead, type SharedTokens } from './readScripts';
import { InternalWalk } from './internalWalk';
import { pageSizerOf, SCAN_COUNT } from './pageSizer';
import { displayKey } from '../vocabulary/tokens';
import { exactKeysOn, unreadMasters } from '../connection/clusterTopology';
import type { Liveness, LockEntry, Observation, SkippedKey } from '../vocabulary/types';

export { DEFAULT_PATTERNS };
const READ_BATCH = 1000;
/** Cursor of a pattern whose scan finished ('0' is a scan not yet started). */
const DONE = 'done';
const PRINTABLE_ASCII_NAME = /^[\x20-\x7e]*$/;

/** How late a read's stamp `at` may be: the time from sending the call to it (see Stamp.err). */
export function stampError(at: number, sentAt: number): number {
  return Math.max(0, Math.round(at - sentAt));
}

export function validatePatterns(patterns: string[]): void {
  if (patterns.length === 0) throw new RangeError('no key pattern given');
  for (const p of patterns) if (p.length === 0) throw new RangeError('empty key pattern');
}

/**
 * Reads `keys` on one node into its reads, READ_BATCH a call: each a name's bytes, or a key
 * id (latin1) the reads already number.
 */
export async function readBatch(ctx: InspectContext, node: RedisNode, keys: ReadonlyArray<Buffer | string>, scan: NodeScan): Promise<void> {
  for (let i = 0; i < keys.length; i += READ_BATCH) {
    const chunk = keys.slice(i, i + READ_BATCH);
    const sent = clockNow();
    let stamp!: Stamp;
    const batches = node.clusterMember
      ? await withDeadline(readEachKey(node, chunk.map(keyBytes), scan.absent, ctx.tokens), ctx.commandTimeoutMs, true)
      : scriptsRefused(node.client)
      ? [await withDeadline(readObservationsPlain(node.client as Redis, chunk.map(keyBytes), node.id, scan.absent, ctx.tokens), ctx.commandTimeoutMs, true)]
      : [await withDeadline(readObservations(node.client, chunk.map(keyArg), node.id, scan.absent, ctx.tokens), ctx.commandTimeoutMs, true)];
    for (let j = 0; j < chunk.length; j++) {
      const batch = batches.length === 1 ? batches[0] : batches[j];
      if (j === 0 || batches.length > 1) {
        const at = batch.nodeTimeMs - scan.offsetMs;
        stamp = { at, err: stampError(at, sent) };
      }
      const key = chunk[j];
      const obs = batch.observations[batches.length === 1 ? j : 0];
      if (typeof key === 'string') scan.reads.set(key, obs, stamp, undefined);
      else scan.reads.setBytes(key, obs, stamp, undefined);
    }
  }
}

/** A key id's bytes (ids are latin1: one character per byte). */
const keyBytes = (k: Buffer | string): Buffer => (typeof k === 'string' ? Buffer.from(k, 'latin1') : k);

/** A key as a command argument: an id as sendableKey gives it (no Buffer for an ASCII one). */
const keyArg = (k: Buffer | string): Buffer | string => (typeof k === 'string' ? sendableKey(k) : k);

/** A cluster refuses scripts over keys of several slots: one script call per key, pipelined. */
function readEachKey(node: RedisNode, keys: Buffer[], absent: Observation, tokens?: Map<string, string>): Promise<ReadBatch[]> {
  return Promise.all(keys.map((k) => readObservations(node.client, [k], node.id, absent, tokens)));
}

/**
 * SCANs one node.
 * Without `internals` (a discovery: names and values only) no internal key is walked and
 * no copy's holder decoded.
 * `onRead` is given each key as soon as it is read, once: a page's keys while the node
 * works on the next page, where work done after the scan would leave the node idle.
 */
export async function scanNode(ctx: InspectContext, node: RedisNode, patterns: string[], startCursors: string[], maxKeys: number, deadline: number, internals = true, onRead?: KeySink): Promise<NodeScan> {
  const scan: NodeScan = {
    status: { node: node.id, reachable: false, latencyMs: null, error: null, outcome: 'unreachable' },
    // Every read of this scan, its pages' and those by name, lands in its reads: they give `onRead` each new key.
    reads: nodeReads(ctx, onRead),
    absent: absentOn(node.id),
    offsetMs: 0,
    offsetErrMs: 0,
    cursors: startCursors.slice(),
    truncated: false,
  };
  const shared: SharedTokens | undefined = ctx.tokensByKey !== undefined && ctx.keys !== undefined ? { table: scan.reads.table, byKey: ctx.tokensByKey } : undefined;
  try {
    // A node that just (re)connected is read once the server it reaches is known and distinct.
    if (!node.identified) await withDeadline(node.gate(ctx.commandTimeoutMs), ctx.commandTimeoutMs);
    // What this server can do, once per connection: decides how every read below is sent.
    const caps = await withDeadline(capabilitiesOf(node.client, ctx.commandTimeoutMs), ctx.commandTimeoutMs);
    if (caps.server !== null || !node.clusterMember) Object.assign(scan.status, { server: caps.server, version: caps.version, capabilities: caps.capabilities });
    // No script runs here: pages are listed with plain SCAN and read with plain commands,
    // their fences and waiters read apart, as a cluster member's are.
    const plain = scriptsRefused(node.client);
    scan.status.readPath = plain ? 'commands' : 'scripts';
    // TIME doubles as the health probe: its round trip is the latency, its answer the offset.
    // Without TIME, PING measures the latency and the offset is taken as 0 (unknown).
    const clock = probeClock(node, caps.capabilities.time !== false, ctx.commandTimeoutMs);
    // The node's key count paces the walk of internal keys (InternalWalk.pace); O(1).
    const size = node.clusterMember ? Promise.resolve(null) : node.client.dbsize().catch(() => null);
    const { rttMs, offset } = await clock;
    // Without TIME the node's copies are stamped by our clock: no offset, nothing to be off.
    if (offset !== null) ({ offsetMs: scan.offsetMs, errMs: scan.offsetErrMs } = offset);
    scan.status.latencyMs = Math.round(rttMs * 100) / 100;
    scan.status.reachable = true;
    scan.status.outcome = 'ok';
    node.latencyMs = scan.status.latencyMs;
    const pendingReads: Promise<void>[] = [];
    let scanned = 0;
    // Cut only once more than maxKeys keys were listed: a node with exactly maxKeys is read in full.
    const outOfBudget = (): boolean => scanned > maxKeys || performance.now() > deadline;
    // Standalone pages: the internal keys are walked beside the patterns; a page read
    // before that walk is complete waits for it (its keys' counters are not known yet).
    // Without internals (discovery: names and values only) the walk is done before it starts.
    const walk = internals ? new InternalWalk() : InternalWalk.none();
    const keysOnNode = await withDeadline(size, ctx.commandTimeoutMs);
    let pages = 0;
    /** Keys a page call left unread (read apart, see below). */
    const late: string[] = [];
    /** Pages that arrived while the walk ran: their counters are known once it is complete. */
    const waiting: Array<[string[], number[]]> = [];
    const settle = ([ids, ks]: [string[], number[]]): void => {
      for (let i = 0; i < ids.length; i++) walk.fill(ids[i], scan.reads, ks[i]);
    };
    for (let p = 0; p < patterns.length && !scan.truncated; p++) {
      let cursor = scan.cursors[p];
      if (cursor === DONE) continue;
      if (outOfBudget()) {
        scan.truncated = true;
        break;
      }
      if (node.clusterMember || plain) {
        while (cursor !== DONE) {
          const [next, keys] = await withDeadline(node.client.scanBuffer(cursor, 'MATCH', patterns[p], 'COUNT', SCAN_COUNT), ctx.commandTimeoutMs, true);
          cursor = String(next) === '0' ? DONE : String(next);
          scan.cursors[p] = cursor;
          const fresh = keys.filter((k) => !scan.reads.has(k.toString('latin1')));
          scanned += keys.length;
          // Overlap: the batch is read while the next SCAN goes out.
          if (fresh.length) pendingReads.push(readBatch(ctx, node, fresh, scan));
          if (cursor !== DONE && outOfBudget()) scan.truncated = true;
          if (scan.truncated) break;
        }
        continue;
      }
      const client = node.client as Redis;
      let sentAt = clockNow();
      const sizer = pageSizerOf(node);
      let inFlight: Promise<PageReply> | undefined = requestScanPage(client, cursor, patterns[p], sizer.count, walk.cursor, walk.count);
      while (inFlight) {
        const flat = await withDeadline(inFlight, ctx.commandTimeoutMs, true);
        const head = scanPageHead(flat);
        cursor = head.cursor === '0' ? DONE : head.cursor;
        scan.cursors[p] = cursor;
        scanned += head.keyCount;
        if (head.internalCursor !== null) walk.add(head.internalCursor, head.internals);
        pages++;
        // The pages left before the key cap cuts the scan, at this rate of keys per page.
        if (keysOnNode !== null && !walk.complete) walk.pace(keysOnNode, (maxKeys - scanned) / (scanned / pages));
        inFlight = undefined;
        const at = head.nodeTimeMs - scan.offsetMs;
        const stamp: Stamp = { at, err: stampError(at, sentAt) };
        if (cursor !== DONE) {
          if (outOfBudget()) scan.truncated = true;
          else {
            // Sent before this page's keys are decoded: the node works on the next page
            // while this one is taken in here (decoding is most of the client's time).
            sentAt = clockNow();
            inFlight = requestScanPage(client, cursor, patterns[p], sizer.next(head.keyCount, head.readCount), walk.cursor, walk.count);
          }
        }
        const page = decodeScanPage(flat, node.id, scan.absent, ctx.tokens, internals, shared);
        const n = page.observations.length;
        const ids: string[] = new Array(n);
        const ks: number[] = new Array(n);
        const { src, starts, ends } = page;
        for (let i = 0; i < n; i++) {
          // The numbers are handed on with the ids: no lookup by name per key afterwards.
          ks[i] = page.ks !== undefined
            ? scan.reads.setNumbered(page.ks[i], page.observations[i], stamp, UNKNOWN_FACTS)
            : scan.reads.setRange(Buffer.isBuffer(src) ? src : src[i], starts[i], ends[i], page.observations[i], stamp, UNKNOWN_FACTS);
          ids[i] = scan.reads.table.nameOf(ks[i]);
        }
        const read: [string[], number[]] = [ids, ks];
        if (walk.cursor !== null) {
          // The page's counters are settled when the walk completes.
          waiting.push(read);
        } else if (!walk.complete) {
          // Given up: each page is looked up by name as it arrives.
          for (const w of [...waiting.splice(0), read]) if (w[0].length) pendingReads.push(lookUpInternal(ctx, client, scan.reads, w));
        } else {
          for (const w of waiting.splice(0)) settle(w);
          settle(read);
        }
        // The call's budget ran out (fat keys, or its time on a busy node): the rest in
        // calls of their own, given what the walk found beside them once it is complete.
        if (page.unread.length) {
          pendingReads.push(readBatch(ctx, node, page.unread, scan));
          for (const k of page.unread) late.push(k.toString('latin1'));
        }
      }
    }
    scan.logged = walk.logged;
    if (walk.complete) for (const w of waiting.splice(0)) settle(w);
    // The walk did not finish (a cut scan, a short pattern walk): those pages' keys are
    // looked up by name, one call per page, as each page did before the walk existed.
    for (const w of waiting) if (w[0].length) pendingReads.push(lookUpInternal(ctx, node.client as Redis, scan.reads, w));
    await Promise.all(pendingReads);
    // Keys read apart take what the complete walk found beside them, as their pages' did.
    if (walk.complete) {
      for (const id of late) {
        const k = scan.reads.numberOf(id);
        if (k >= 0) walk.fill(id, scan.reads, k);
      }
    }
  } catch (e) {
    Object.assign(scan.status, downStatus(e, node));
    scan.reads.clear();
  }
  return scan;
}

/** Sets the fence counters and waiter-set presence of a page's keys read by name (see readInternalOf). */
async function lookUpInternal(ctx: InspectContext, client: Redis, reads: NodeReads, [ids, ks]: [string[], number[]]): Promise<void> {
  const keys = ids.map((id) => Buffer.from(id, 'latin1'));
  const { fences, noWaiters } = await withDeadline(readInternalOf(client, keys), ctx.commandTimeoutMs, true);
  // The node would not say: counters and waiters are read apart after classification.
  if (fences === undefined) return;
  for (let i = 0; i < ids.length; i++) reads.setFactsAt(ks[i], factsOf(fences ? pageCounter(fences[i]) : null, noWaiters));
}

/**
 * Reads keys by name on every readable node, `keysOf` saying which on each; a node whose
 * read fails is down for this read, and nothing it said before counts.
 */
export async function readOnEachNode(ctx: InspectContext, scans: NodeScan[], keysOf: (scan: NodeScan) => ReadonlyArray<Buffer | string>): Promise<void> {
  await Promise.all(
    scans.map(async (scan, i) => {
      if (!readable(scan.status)) return;
      try {
        await readBatch(ctx, ctx.nodes[i], keysOf(scan), scan);
      } catch (e) {
        Object.assign(scan.status, downStatus(e, ctx.nodes[i]));
        scan.reads.clear();
      }
    }),
  );
}

/** Nodes that did not come across a key read it directly, so "absent" means absent. */
export function fillGaps(ctx: InspectContext, scans: NodeScan[], union: Set<string>): Promise<void> {
  // An index over an array, not for..of over the set: no iterator result per key and node.
  const ids = Array.from(union);
  const numbers = sharedNumbers(scans, ids);
  return readOnEachNode(ctx, scans, (scan) => {
    const missing: string[] = [];
    for (let i = 0; i < ids.length; i++) if (scan.reads.numberOf(ids[i], numbers?.[i]) < 0) missing.push(ids[i]);
    return missing;
  });
}

function unreachableOn(scan: NodeScan): Observation {
  return Object.freeze({ node: scan.status.node, state: 'unreachable', token: null, pttlMs: null, type: null, format: null, holdCount: null, reason: scan.status.error ?? 'unreachable', holder: null });
}

/** What classifying one key gives: a lock or a skipped key (a lock has a verdict). */

const isLock = (r: KeyResult): r is LockEntry => (r as LockEntry).verdict !== undefined;

/** Per-call state of classifyKey: shared by every key of one classification. */
interface ClassifyScratch {
  unreachable: Array<Observation | null>;
  /** The key table the scans share (context.ts sharedTable): a key's copies by one lookup. */
  table: KeyTable | undefined;
  /** classifyCopies() only reads these during the call: one scratch array each serves every key. */
  readAtMs: number[];
  readErrMs: number[];
  /** Set by classifyKey: whether every fence counter of its lock was read with its page. */
  fencesKnown: boolean;
  /** Set by classifyKey: whether the page of every copy found no waiter set beside it. */
  noWaiters: boolean;
  /** classifyCopies() only reads its input during the call, and classifyKey its answer at once: one object each serves every key. */
  input: ClassifyInput;
  verdict: CopiesVerdict;
  /** The liveness stage's judgement of a held lock whose token names no holder, where known before it runs (pipeline.ts). */
  atBuild: BuiltLiveness | undefined;
}

/** See ClassifyScratch.atBuild: `key` is the lock's display name, `token` its quorum token. */
export type BuiltLiveness = (key: string, token: string, noTtl: boolean) => Liveness | undefined;

function scratchOf(scans: NodeScan[], nowMs: number, driftFactor: number, expiringThresholdMs: number, atBuild: BuiltLiveness | undefined): ClassifyScratch {
  const readAtMs = new Array<number>(scans.length);
  const readErrMs = new Array<number>(scans.length).fill(0);
  const input: ClassifyInput = { observations: [], readAtMs, readErrMs, nowMs, driftFactor, expiringThresholdMs };
  return { unreachable: scans.map((scan) => (readable(scan.status) ? null : unreachableOn(scan))), table: sharedTable(scans), readAtMs, readErrMs, fencesKnown: false, noWaiters: false, input, verdict: { verdict: 'held', flags: NO_FLAGS, validityMs: null, quorum: 0, quorumToken: null }, atBuild };
}

/** Classifies one key (not an internal one) from what each node holds. */
function classifyKey(ctx: InspectContext, scans: NodeScan[], id: string, nowMs: number, scratch: ClassifyScratch): KeyResult {
  const { unreachable, readAtMs, readErrMs } = scratch;
  const key = keyOf(id);
  let observations: Observation[];
  let fence: number | null = null;
  let holding = 0;
  let fencesKnown = !ctx.ownerOnly;
  let noWaiters = !ctx.ownerOnly;
  if (ctx.ownerOnly) {
    const reads = scans.find((s) => s.reads.has(id))!.reads;
    const k = reads.numberOf(id);
    observations = [reads.obsAt(k)!];
    readAtMs[0] = reads.stampAt(k).at;
  } else {
    const n = scans.length;
    observations = new Array(n);
    const table = scratch.table;
    const shared = sharedNumber(table, id);
    for (let i = 0; i < n; i++) {
      if (unreachable[i]) {
        observations[i] = unreachable[i]!;
        readAtMs[i] = nowMs;
        continue;
      }
      const reads = scans[i].reads;
      const k = reads.numberOf(id, shared);
      const o = k < 0 ? undefined : reads.obsAt(k);
      observations[i] = o ?? scans[i].absent;
      if (o === undefined) readAtMs[i] = nowMs;
      else {
        // Another node's copies are compared through both offsets: each may be off (see NodeScan.offsetErrMs).
        const stamp = reads.stampAt(k);
        readAtMs[i] = stamp.at;
        readErrMs[i] = stamp.err + scans[i].offsetErrMs;
      }
      const facts = o === undefined ? undefined : reads.factsAt(k);
      if (!facts?.noWaiters) noWaiters = false;
      const f = facts?.fence;
      if (f === undefined) {
        fencesKnown = false;
        continue;
      }
      // Taken once: a later classification (a watch tick) reads the counter afresh.
      reads.setFactsAt(k, factsOf(undefined, facts!.noWaiters));
      if (f === null) continue;
      if (fence === null || f > fence) {
        fence = f;
        holding = 1;
      } else if (f === fence) holding++;
    }
  }
  scratch.input.observations = observations;
  const c = classifyCopies(scratch.input, scratch.verdict);
  scratch.fencesKnown = fencesKnown;
  scratch.noWaiters = noWaiters;
  if (!c) return { key, reason: skipReason(observations) };
  if (!fencesKnown) fence = null;
  const { holder, owners } = holderFields(observations, c.quorumToken);
  // The liveness stage still judges every held lock; it replaces this one only if it judges otherwise.
  const liveness = scratch.atBuild && c.verdict === 'held' && holder === null ? scratch.atBuild(key, c.quorumToken!, c.flags.includes('no-ttl')) : undefined;
  // Built whole, never changed after (entries are values): later stages replace it.
  return newEntry(key, c, fence, fence !== null && holding < c.quorum, observations, holder, owners, liveness);
}

/**
 * Classifies every key of `ids` from what each node holds; keys in byte order.
 * `lockIds[i]` is the latin1 identity of `locks[i]`, `skippedIds[i]` that of `skipped[i]`.
 * `atBuild`: see ClassifyScratch.
 */
export function classifyKeys(ctx: InspectContext, scans: NodeScan[], ids: Iterable<string>, nowMs: number, expiringThresholdMs: number, atBuild?: BuiltLiveness): Classified {
  const locks: LockEntry[] = [];
  /** Other libraries' bookkeeping keys: attached to their locks afterwards (bookkeepingRead.ts). */
  const bookkeeping: string[] = [];
  const lockIds: string[] = [];
  const skippedIds: string[] = [];
  const skipped: SkippedKey[] = [];
  /** Indexes into `locks` whose fence counters were not all read with their scan page. */
  const fencesToRead: number[] = [];
  /**
   * Indexes into `locks` whose waiters readWaiters must still look for: all but the
   * locks whose every copy's page found no waiter set beside it.
   */
  const waitersToRead: number[] = [];
  const scratch = scratchOf(scans, nowMs, ctx.driftFactor, expiringThresholdMs, atBuild);
  // latin1 strings compare code unit by code unit: the same order as the bytes.
  const sorted = Array.from(ids).sort();
  // An index, not for..of: no iterator result per key while the loop is not yet optimized.
  for (let k = 0; k < sorted.length; k++) {
    const id = sorted[k];
    if (bookkeepingOf(id) !== null) {
      bookkeeping.push(id);
      continue;
    }
    // Fence counters, waiter sets and event logs are the core's own bookkeeping, never locks.
    if (isInternalKey(id)) continue;
    const result = classifyKey(ctx, scans, id, nowMs, scratch);
    // Every node's page found no waiter set beside the key (each node's walk of its
    // internal keys was complete): readWaiters need not look it up on any node. The
    // facts stay for a caller that reads every lock's waiters (a watch: readWaiters
    // skips a node by them).
    const waitersKnown = scratch.noWaiters;
    if (!isLock(result)) {
      skipped.push(result);
      skippedIds.push(id);
      continue;
    }
    if (!scratch.fencesKnown) fencesToRead.push(locks.length);
    if (!waitersKnown) waitersToRead.push(locks.length);
    locks.push(result);
    lockIds.push(id);
  }
  return { locks, lockIds, skipped, skippedIds, fencesToRead, waitersToRead, bookkeeping };
}

/** Printable ASCII names are their own display form; only other bytes need decoding. */
export function keyOf(id: string): string {
  return PRINTABLE_ASCII_NAME.test(id) && !id.startsWith('hex:') ? id : displayKey(Buffer.from(id, 'latin1'));
}

/**
 * Cluster masters that own part of the requested keyspace and did not answer. An exact
 * key on such a master is listed in `skipped` as unreachable: its lock is unknown, not
 * absent.
 */
export function unreadPart(ctx: InspectContext, scans: NodeScan[], patterns: readonly string[], skipped: SkippedKey[]): string[] {
  if (!ctx.slotRanges) return [];
  const members = scans.map((s, i) => ({ reachable: readable(s.status), ranges: ctx.slotRanges![i] ?? [] }));
  const silent = unreadMasters(patterns, members);
  let added = false;
  for (const key of exactKeysOn(patterns, members, silent)) {
    const shown = displayKey(Buffer.from(key));
    if (skipped.some((k) => k.key === shown)) continue;
    skipped.push({ key: shown, reason: 'unreachable' });
    added = true;
  }
  if (added) skipped.sort((a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)));
  return silent.map((i) => scans[i].status.node);
}
