// Anomalies first, in the order a developer should look at them, then the locks that
// run out soonest. Verdicts and flags come from the core; this only orders them.
import type { LockEntry } from '../core';

export function anomalyRank(e: Pick<LockEntry, 'verdict' | 'flags'>): number {
  // Holders waiting for each other never get unstuck on their own: as urgent as a split.
  if (e.verdict === 'split' || e.flags.includes('deadlock')) return 0;
  if (e.verdict === 'partial') return 1;
  if (e.verdict === 'unknown') return 2;
  if (e.flags.includes('no-ttl')) return 3;
  return 4;
}

export function isAnomaly(e: Pick<LockEntry, 'verdict' | 'flags'>): boolean {
  return anomalyRank(e) < 4;
}

export function compareLocks(a: LockEntry, b: LockEntry): number {
  const r = anomalyRank(a) - anomalyRank(b);
  if (r !== 0) return r;
  const va = a.validityMs ?? Infinity;
  const vb = b.validityMs ?? Infinity;
  if (va !== vb) return va < vb ? -1 : 1;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

export function sortLocks(locks: readonly LockEntry[]): LockEntry[] {
  return [...locks].sort(compareLocks);
}
