// The live countdown (the tree and the detail panel) ages the last snapshot by the time
// since it was taken, without a Redis round trip. Everything but time stays as the core
// classified it. Pure: no `vscode`, no DOM.
import type { LockEntry, Observation } from '../core/vocabulary/types';

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

/** The entry as it reads `elapsedMs` after its snapshot, every copy's PTTL aged too. */
export function agedEntryWithCopies(entry: LockEntry, elapsedMs: number, expiringThresholdMs: number): LockEntry {
  if (elapsedMs <= 0) return entry;
  const nodes = entry.nodes.map((o) => {
    const pttlMs = agedPttl(o, elapsedMs);
    return pttlMs === o.pttlMs ? o : { ...o, pttlMs };
  });
  return { ...agedEntry(entry, elapsedMs, expiringThresholdMs), nodes };
}

/**
 * The Locks tree counts down in steps that grow with the time left: every second under
 * 10 s, then 5 s, 30 s and 1 min. A row then re-renders every few seconds at most instead
 * of every second, and each re-render closes a tooltip being opened on it
 * (docs/decisions.md, "Tooltips that stay"). Floored: a row never says more time than is left.
 */
export function steppedMs(ms: number): number {
  const step = ms < 10_000 ? 0 : ms < 60_000 ? 5_000 : ms < 600_000 ? 30_000 : 60_000;
  return step === 0 ? ms : ms - (ms % step);
}

/** An aged entry as a tree row counts it down: validity and PTTLs stepped, flags as aged. */
export function steppedEntry(entry: LockEntry): LockEntry {
  const validityMs = entry.validityMs === null ? null : steppedMs(entry.validityMs);
  const nodes = entry.nodes.map((o) => (o.pttlMs === null || o.pttlMs < 0 ? o : { ...o, pttlMs: steppedMs(o.pttlMs) }));
  return { ...entry, validityMs, nodes };
}


/** Under this much time left a lock row counts down live: the steps' every-second band. */
export const LIVE_BELOW_MS = 10_000;

const ROUGH_STEPS = [10_000, 30_000, 60_000, 2 * 60_000, 5 * 60_000, 10 * 60_000, 30 * 60_000, 3_600_000, 86_400_000];

/**
 * Time left as a far-from-expiry row says it: `> 30 s`, `> 5 min`, the largest step not
 * above it (floored: never more than is left). A watchdog renewing a 30 s lock every 10 s
 * keeps its row at `> 10 s` instead of re-rendering it every second, and VS Code keeps
 * every tree item it builds (docs/extension-host.md). Undefined under LIVE_BELOW_MS: the
 * row counts down live there.
 */
export function roughTimeLeft(ms: number): string | undefined {
  let step: number | undefined;
  for (const s of ROUGH_STEPS) if (ms >= s) step = s;
  if (step === undefined) return undefined;
  return `> ${step < 60_000 ? `${step / 1000} s` : step < 3_600_000 ? `${step / 60_000} min` : step < 86_400_000 ? `${step / 3_600_000} h` : `${step / 86_400_000} d`}`;
}
