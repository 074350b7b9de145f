// Anomalies first, in the order a developer should look at them, then by key. Never by
// time left (nor by `expiring`): two locks renewed by watchdogs at different instants
// would swap places on every refresh while nothing changed, and every new order
// re-renders the whole tree, closing any tooltip (docs/decisions.md, "What a narrow Locks
// view still shows"). Verdicts and flags come
// from the core; this only orders them. One rule for the Locks tree and the CLI's status
// table (docs/cli.md).
import type { LockEntry } from '../core/vocabulary/types';
import { stuckForever } from '../core/vocabulary/liveness';
import { FLAGS } from '../core/vocabulary/flags';

const VERDICT_RANK: Readonly<Record<LockEntry['verdict'], number>> = { split: 0, partial: 1, unknown: 2, held: 4 };

/**
 * -1 stuck forever (no TTL, its holder gone), 0 split or deadlock ... 3 no TTL, 4 nothing
 * to look at: the verdict's rank or its worst flag's (vocabulary/flags.ts).
 */
export function anomalyRank(e: Pick<LockEntry, 'verdict' | 'flags' | 'liveness'>): number {
  if (stuckForever(e)) return -1;
  let rank = VERDICT_RANK[e.verdict];
  for (const f of e.flags) rank = Math.min(rank, FLAGS[f].anomalyRank ?? 4);
  return rank;
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
  return isAnomaly(e) || e.liveness?.verdict === 'gone' || e.flags.some((f) => FLAGS[f].attention);
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
