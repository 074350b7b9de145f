// How long holders held and waiters waited, from a lock's history: what `status --stats`
// adds to each lock (docs/audit.md, "Hold and wait times").
import { holdMsOf, leasesOf } from './leases';
import type { LockEvent } from './lockEvents';

export interface Percentiles {
  p50: number | null;
  p95: number | null;
  p99: number | null;
  max: number | null;
  count: number;
}

export interface LockStats {
  windowMs: number;
  /** Grant to release or loss; a hold that ran out counts to its lease end (it ended badly). */
  holdMs: Percentiles;
  /** First refused attempt to grant or give-up, for calls that had to wait. */
  waitMs: Percentiles;
  acquisitionsPerMin: number;
  failuresPerMin: number;
}

export const DEFAULT_STATS_WINDOW_MS = 3600_000;

/** Nearest-rank percentiles of `values` (ms, rounded). */
export function percentiles(values: number[]): Percentiles {
  if (values.length === 0) return { p50: null, p95: null, p99: null, max: null, count: 0 };
  const v = [...values].sort((a, b) => a - b);
  const rank = (p: number): number => Math.round(v[Math.max(0, Math.ceil((p / 100) * v.length) - 1)]);
  return { p50: rank(50), p95: rank(95), p99: rank(99), max: Math.round(v[v.length - 1]), count: v.length };
}

/** Hold times of the holds that ended inside the window ending at `nowMs`. */
export function holdTimes(events: readonly LockEvent[], nowMs: number, windowMs: number): number[] {
  const from = nowMs - windowMs;
  const out: number[] = [];
  for (const l of leasesOf(events, nowMs)) {
    const held = holdMsOf(l);
    if (held !== null && l.endAt! >= from && l.endAt! <= nowMs) out.push(held);
  }
  return out;
}

/** Wait times of the calls that were granted or gave up inside the window. */
export function waitTimes(events: readonly LockEvent[], nowMs: number, windowMs: number): number[] {
  const from = nowMs - windowMs;
  return events.filter((e) => e.at !== null && e.at >= from && e.at <= nowMs && e.waitMs !== undefined && (e.type === 'acquired' || e.type === 'failed')).map((e) => e.waitMs!);
}

export function lockStats(events: readonly LockEvent[], nowMs: number, windowMs = DEFAULT_STATS_WINDOW_MS): LockStats {
  const from = nowMs - windowMs;
  const inWindow = events.filter((e) => e.at !== null && e.at >= from && e.at <= nowMs);
  const perMin = (n: number): number => Math.round((n / (windowMs / 60_000)) * 100) / 100;
  return {
    windowMs,
    holdMs: percentiles(holdTimes(events, nowMs, windowMs)),
    waitMs: percentiles(waitTimes(events, nowMs, windowMs)),
    acquisitionsPerMin: perMin(inWindow.filter((e) => e.type === 'acquired').length),
    failuresPerMin: perMin(inWindow.filter((e) => e.type === 'failed' && e.operation === undefined).length),
  };
}
