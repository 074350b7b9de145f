// The stages every read runs between its pages and its document, in one order, for the
// snapshot (snapshot.ts) and the watcher (watch.ts) alike, so that the two give the same
// document for the same keys (docs/architecture.md, "One read engine"):
//   related keys read by name -> classify -> confirm splits -> fences -> waiters -> bookkeeping
//   -> liveness. Each stage gives new values: entries are never changed once built.
// The watcher runs them over the keys that may have changed, the snapshot over all it read.
import { bookkeepingOf, redissonBookkeepingOf } from '../vocabulary/foreignKeys';
import { INTERNAL_PREFIX, parseInternalKey } from '../bookkeeping/internalKeys';
import type { InspectContext, NodeScan } from './context';
import { classifyKeys, keyOf, readOnEachNode, type BuiltLiveness } from './inspect';
import { confirmSplits, type Classified } from './confirmSplit';
import { readFences } from './fenceRead';
import { readBookkeeping } from './bookkeepingRead';
import { judgeHolders, oneReadLiveness } from './livenessRead';

/** What the stages give: the classification, and the ids a split re-read found gone. */
export interface Enriched extends Classified {
  gone: string[];
}

/**
 * How a caller reads waiters (and flags wait cycles): the snapshot reads those of its
 * fresh locks, the watcher keeps its own. Gives the classification with its entries replaced.
 */
export type WaiterStage = (c: Classified) => Promise<Classified>;

/**
 * How a caller judges liveness: the snapshot on one read, the watcher with its renewal
 * pulse over every lock it knows. `atBuild`: the judgement the stage will give a held lock
 * whose token names no holder, where it is known before the stage runs; classification
 * gives it to the entry it builds, and the stage replaces it only if it judges otherwise.
 */
export interface LivenessStage {
  judge(c: Classified): Promise<Classified>;
  atBuild?: BuiltLiveness;
}

/**
 * Whether some node holds `id` as a Redisson lock's hash: its bookkeeping may lie outside
 * the patterns. Where `ids` are most of the keys read (a snapshot), one walk over the reads
 * finds those hashes: a lookup per key and node cost a 100k-key snapshot 20 ms of cache
 * misses. A watch tick's few changed keys are looked up.
 */
function redissonLockTest(scans: readonly NodeScan[], ids: ReadonlySet<string>): (id: string) => boolean {
  let reads = 0;
  for (const s of scans) reads += s.reads.size;
  if (ids.size * scans.length * 4 < reads) return (id) => scans.some((s) => s.reads.obsOf(id)?.format === 'redisson-lock');
  const hashes = new Set<string>();
  // forEach, not for..of: the entries iterator made a pair and a result object per key (11 MB at 100k).
  for (const s of scans) s.reads.forEach((obs, id) => void (obs.format === 'redisson-lock' && hashes.add(id)));
  return (id) => hashes.has(id);
}

/** What readRelated found: ids with related keys, and the keys it had to read by name. */
export interface Related {
  /** Ids among the keys given whose related keys some node holds (a Redisson lock, a bookkeeping key). */
  anchors: Set<string>;
  /** Related keys no scan had listed, read by name, that some node holds. */
  byName: Set<string>;
}

const EVENTS_PREFIX = `${INTERNAL_PREFIX}events:`;

/** The resource (latin1 id) whose event log `id` is, or null. */
function loggedResource(id: string): string | null {
  if (!id.startsWith(EVENTS_PREFIX)) return null;
  const parsed = parseInternalKey(id);
  return parsed?.kind === 'events' ? parsed.resource : null;
}

/**
 * Adds to `ids` the keys whose names follow from keys among them: the lock a bookkeeping
 * key serves, a Redisson lock's timeout zset, queue and fence counter, and, with
 * `ownLocks` (the default patterns), the resource of each of our event logs: our own
 * core's locks are listed whatever their names. One no scan
 * listed is read by name on every readable node (the patterns may miss it); one that no
 * node holds is no key of the document. Not on a cluster: there a lock and its
 * bookkeeping share a slot, and the scan of that slot's master lists both.
 */
export async function readRelated(ctx: InspectContext, scans: NodeScan[], ids: Set<string>, ownLocks = false): Promise<Related> {
  const out: Related = { anchors: new Set(), byName: new Set() };
  if (ctx.ownerOnly) return out;
  const present = (id: string): boolean => scans.some((s) => s.reads.obsOf(id)?.state === 'present');
  const toRead = new Map<string, string>();
  const redissonLock = redissonLockTest(scans, ids);
  const joined = (n: string, anchor: string): void => {
    out.anchors.add(anchor);
    ids.add(n);
  };
  // A Set's forEach visits what is added while it is walked: a lock added for its
  // bookkeeping is looked at in turn, and names lead back to one another, so the walk ends.
  // (forEach, not for..of: no iterator result object per key.)
  ids.forEach((id) => {
    const b = bookkeepingOf(id);
    const logged = ownLocks && b === null ? loggedResource(id) : null;
    const names = b !== null ? b.owners : logged !== null ? [logged] : redissonLock(id) ? redissonBookkeepingOf(id) : null;
    if (names === null) return;
    for (const n of names) {
      if (scans.some((s) => s.reads.has(n))) {
        // A logged lock a page lists is that page's to follow: no anchor to look at again.
        if (logged === null && present(n)) joined(n, id);
      } else if (!toRead.has(n)) toRead.set(n, id);
    }
  });
  if (toRead.size === 0) return out;
  const keys = [...toRead.keys()];
  await readOnEachNode(ctx, scans, () => keys);
  for (const [n, anchor] of toRead) {
    if (present(n)) {
      joined(n, anchor);
      out.byName.add(n);
    } else {
      ids.delete(n);
      for (const s of scans) s.reads.delete(n);
    }
  }
  return out;
}

/** A single read's judgement of a held lock whose token names no holder, given as its entry is built. */
const oneReadAtBuild: BuiltLiveness = (_key, _token, noTtl) => oneReadLiveness(noTtl);

/**
 * Classifies `ids` and runs every stage after it; see the file comment for the order.
 * Each stage takes the classification and gives a new one: an entry, once built, is never
 * changed; a stage that learns more about a lock replaces its entry.
 */
export async function classifyAndEnrich(ctx: InspectContext, scans: NodeScan[], ids: Iterable<string>, nowMs: number, expiringThresholdMs: number, waiters: WaiterStage, liveness?: LivenessStage): Promise<Enriched> {
  const classified = classifyKeys(ctx, scans, ids, nowMs, expiringThresholdMs, liveness ? liveness.atBuild : oneReadAtBuild);
  // A split is told only once a re-read of every node confirms it (confirmSplit.ts).
  const { classified: confirmed, gone } = await confirmSplits(ctx, scans, classified, expiringThresholdMs);
  const fenced: Classified = { ...confirmed, locks: await readFences(ctx, scans, confirmed.locks, confirmed.lockIds, confirmed.fencesToRead) };
  const waited = await waiters(fenced);
  const kept = await readBookkeeping(ctx, scans, waited, keyOf);
  const judged = liveness ? await liveness.judge(kept) : { ...kept, locks: await judgeHolders(ctx, scans, kept.locks, nowMs) };
  return { ...judged, gone };
}
