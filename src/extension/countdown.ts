// The live countdown ages the last snapshot by the time since it was taken, without a
// Redis round trip. Everything but time stays as the core classified it.
import type { LockEntry, Observation } from '../core';

/** The entry as it reads `elapsedMs` after its snapshot. */
export function agedEntry(entry: LockEntry, elapsedMs: number, expiringThresholdMs: number): LockEntry {
  if (entry.validityMs === null || elapsedMs <= 0) return entry;
  const validityMs = Math.max(0, entry.validityMs - elapsedMs);
  // The core's rule (validity below the threshold), applied to the aged validity.
  const flags = validityMs < expiringThresholdMs && !entry.flags.includes('expiring') ? [...entry.flags, 'expiring' as const] : entry.flags;
  return { ...entry, validityMs, flags };
}

/** A copy's PTTL aged the same way; -1 (no expiry) and unknowns stay. */
export function agedPttl(o: Observation, elapsedMs: number): number | null {
  if (o.pttlMs === null || o.pttlMs < 0) return o.pttlMs;
  return Math.max(0, o.pttlMs - Math.max(0, elapsedMs));
}
