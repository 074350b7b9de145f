// Anomalies first, in the order a developer should look at them, then by key. Never by
// time left (nor by `expiring`): two locks renewed by watchdogs at different instants
// would swap places on every refresh while nothing changed, and every new order
// re-renders the whole tree, closing any tooltip (docs/decisions.md, "What a narrow Locks
// view still shows"). Verdicts and flags come
// from the core; this only orders them. One rule for the Locks tree and the CLI's status
// table (docs/cli.md).
import type { LockEntry } from '../core/vocabulary/types';
import { stuckForever } from '../core/vocabulary/liveness';

export function anomalyRank(e: Pick<LockEntry, 'verdict' | 'flags' | 'liveness'>): number {
  // A lock without TTL whose holder is gone is stuck forever: the worst case of all.
  if (stuckForever(e)) return -1;
  // Holders waiting for each other never get unstuck on their own: as urgent as a split.
  if (e.verdict === 'split' || e.flags.includes('deadlock')) return 0;
  if (e.verdict === 'partial') return 1;
  if (e.verdict === 'unknown') return 2;
  if (e.flags.includes('no-ttl')) return 3;
  return 4;
}

export function isAnomaly(e: Pick<LockEntry, 'verdict' | 'flags' | 'liveness'>): boolean {
  return anomalyRank(e) < 4;
}

/**
 * What the view's "anomalies only" filter keeps: every anomaly, and the held locks whose
 * copies disagree on expiry or miss a node. Not `expiring`: a healthy lock renewed at the
 * last moment would blink in and out of the filtered list.
 */
/**
 * The one count the CLI summary and the status bar show, "N need attention": the locks
 * this predicate keeps. A lock counts once, whatever number of troubles it has.
 */
export function needsAttention(e: Pick<LockEntry, 'verdict' | 'flags' | 'liveness'>): boolean {
  return isAnomaly(e) || e.liveness?.verdict === 'gone' || e.flags.includes('ttl-skew') || e.flags.includes('degraded');
}

export function compareLocks(a: Pick<LockEntry, 'verdict' | 'flags' | 'key' | 'liveness'>, b: Pick<LockEntry, 'verdict' | 'flags' | 'key' | 'liveness'>): number {
  const r = anomalyRank(a) - anomalyRank(b);
  if (r !== 0) return r;
  // Keys are unique in a snapshot: code-unit order is total and the same on every machine.
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

export function sortLocks<T extends Pick<LockEntry, 'verdict' | 'flags' | 'key' | 'liveness'>>(locks: readonly T[]): T[] {
  return [...locks].sort(compareLocks);
}
