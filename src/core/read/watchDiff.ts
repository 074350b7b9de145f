// What counts as a change between two watch ticks: everything but the countdown itself,
// with expiry instants allowed to move by the read error.
import { copyStamp, type Copies, type NodeScan, type Stamp } from './context';
import { withNodes } from './entryCopy';
import type { LockEntry, Observation, SkippedKey } from '../vocabulary/types';
import type { WaiterProcesses } from './holdersRead';

/**
 * Expiry instants may differ by the read-instant error without being a jump (an extend,
 * a new SET). The one tolerance every change detector uses: the watcher, the panel history.
 */
export const JUMP_TOLERANCE_MS = 25;
export const waitersText = (e: LockEntry | undefined): string => JSON.stringify([e?.waiters ?? [], e?.cycle ?? null]);


/**
 * A copy without an expiry instant to compare (no copy, or its PTTL unknown), as PTTL says
 * of a missing key: every expiry is then a number, and a lock's array holds them unboxed
 * (one null among them boxed every other: 16 B more per copy of a lock missing a copy).
 */
export const NO_EXPIRY_INSTANT = -2;

/** What a tick learns of a key, as it hands it to KnownLocks.set (the key is its entry's or skipped key's). */
export interface Known {
  expiries: number[];
  /** Local epoch ms after which the `expiring` flag may flip: classify again then. */
  recheckAt: number;
  kind: 'lock' | 'skipped';
  /**
   * How late the read instants behind `expiries` may have been (the largest Stamp.err of
   * the copies' reads): a later read may find an expiry moved by that much with no write.
   */
  readErrMs: number;
  /** Replaced, never changed, when a later stage learns more about the lock. */
  entry?: LockEntry;
  skipped?: SkippedKey;
  /** Its waiters' process ids (holdersRead.ts), kept for the cycles of later ticks; none without waiters. */
  waiterProcesses?: WaiterProcesses;
  /**
   * Local epoch ms until which its liveness verdict cannot move unless the lock is read
   * again (watch.ts `judgeAgainAt`); a lock whose token names its holder is judged every tick.
   */
  judgeAt?: number;
}

/** A copy's PTTL `pttlMs`, read at `stamp`, counted down to `nowMs` (0 once past it). */
export const pttlAt = (stamp: Stamp, pttlMs: number, nowMs: number): number => Math.max(0, Math.round(stamp.at + pttlMs - nowMs));

/**
 * The same entry with each present copy's PTTL counted down to `nowMs`; `e` itself where no
 * copy's changes (a watch's first snapshot hands out the entries it keeps: see watch.ts).
 */
export function countedDown(e: LockEntry, scans: NodeScan[], id: string, ownerOnly: boolean, nowMs: number): LockEntry {
  let nodes: Observation[] | undefined;
  for (let i = 0; i < e.nodes.length; i++) {
    const o = e.nodes[i];
    if (o.state !== 'present' || o.pttlMs === null || o.pttlMs < 0) continue;
    const stamp = copyStamp(scans, i, id, ownerOnly);
    if (!stamp) continue;
    const pttlMs = pttlAt(stamp, o.pttlMs, nowMs);
    if (pttlMs === o.pttlMs) continue;
    nodes ??= e.nodes.slice();
    nodes[i] = { ...o, pttlMs };
  }
  return nodes === undefined ? e : withNodes(e, nodes);
}

/** A lock's copies as the watch compares them from tick to tick (sameEntry). */
export interface CopyExpiries {
  /** Each copy's expiry instant (local epoch ms; -1 no expiry, NO_EXPIRY_INSTANT no copy), as countedDown() would count it. */
  expiries: number[];
  /** How late the read instants of the copies may be (the largest Stamp.err of their reads), in ms. */
  readErrMs: number;
}

/**
 * `e`'s copies' expiries and their reads' error, from where its copies are held (copiesOf),
 * into `into` (its array refilled): a tick gives one for all its locks, since KnownLocks.set
 * and sameEntry read it at once (100k locks: 30 MB of arrays and boxed instants a first tick let go of).
 */
export function expiriesOf(e: LockEntry, copies: Copies, nowMs: number, into: CopyExpiries): CopyExpiries {
  let readErrMs = 0;
  const expiries = into.expiries;
  expiries.length = e.nodes.length;
  for (let i = 0; i < e.nodes.length; i++) {
    const o = e.nodes[i];
    const k = copies.ks[i];
    const stamp = k < 0 ? undefined : copies.reads[i]!.stampAt(k);
    if (stamp !== undefined && stamp.err > readErrMs) readErrMs = stamp.err;
    if (o.pttlMs === null) expiries[i] = NO_EXPIRY_INSTANT;
    else if (o.pttlMs < 0) expiries[i] = o.pttlMs;
    else if (o.state !== 'present' || !stamp) expiries[i] = nowMs + o.pttlMs;
    else expiries[i] = nowMs + pttlAt(stamp, o.pttlMs, nowMs);
  }
  into.readErrMs = readErrMs;
  return into;
}

/**
 * "Changed" is everything but the countdown itself. An expiry may move by the tolerance
 * plus how late either read's instant may have been (`a.readErrMs`, `readErrMs`): a node
 * descheduled in a read script stamps its PTTLs late, by up to a tenth of a second on a
 * loaded machine, and a fixed tolerance named such locks changed with nothing written.
 */
export function sameEntry(a: Pick<Known, 'entry' | 'readErrMs'> & { expiries: ArrayLike<number> }, e: LockEntry, expiries: readonly number[], readErrMs: number): boolean {
  const b = a.entry!;
  if (b.verdict !== e.verdict || b.flags.join() !== e.flags.join() || b.nodes.length !== e.nodes.length) return false;
  if (waitersText(b) !== waitersText(e)) return false;
  if (b.fence !== e.fence || b.fenceRisk !== e.fenceRisk) return false;
  for (let i = 0; i < e.nodes.length; i++) {
    const x = b.nodes[i];
    const y = e.nodes[i];
    if (x.state !== y.state || x.token !== y.token || x.format !== y.format || x.holdCount !== y.holdCount || x.reason !== y.reason) return false;
    const ex = a.expiries[i];
    const ey = expiries[i];
    if (ex >= 0 && ey >= 0 ? Math.abs(ex - ey) > JUMP_TOLERANCE_MS + a.readErrMs + readErrMs : ex !== ey) return false;
  }
  return true;
}
