// Anomalies first, in the order a developer should look at them, then the locks that
// run out soonest, then by key so equal entries never swap places. Verdicts and flags
// come from the core; this only orders them. One rule for the Locks tree and the CLI's
// status table (docs/cli.md).
import type { LockEntry } from '../core/types';

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

export function compareLocks(a: Pick<LockEntry, 'verdict' | 'flags' | 'validityMs' | 'key'>, b: Pick<LockEntry, 'verdict' | 'flags' | 'validityMs' | 'key'>): number {
  const r = anomalyRank(a) - anomalyRank(b);
  if (r !== 0) return r;
  const va = a.validityMs ?? Infinity;
  const vb = b.validityMs ?? Infinity;
  if (va !== vb) return va < vb ? -1 : 1;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

export function sortLocks<T extends Pick<LockEntry, 'verdict' | 'flags' | 'validityMs' | 'key'>>(locks: readonly T[]): T[] {
  return [...locks].sort(compareLocks);
}
