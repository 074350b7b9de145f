// How a duration reads on every surface of the CLI (and, once adopted, the tree and the
// panel): the unit a person would say, rounded down so no output promises more time than
// is left. Pure, no dependency. The scale is in docs/cli.md ("Durations").

/**
 * `0.4 ms` (fractions only below 10 ms, for latencies), `950 ms`, `4.9 s` (tenths up to
 * 100 s), `2 min 3 s`, `1 h 5 min`, `2 d 3 h`. Negative input reads as 0.
 */
export function formatDuration(ms: number): string {
  const v = Math.max(0, ms);
  if (v < 10 && !Number.isInteger(v)) return `${(Math.floor(v * 10) / 10).toFixed(1)} ms`;
  if (v < 1000) return `${Math.floor(v)} ms`;
  if (v < 100_000) return `${(Math.floor(v / 100) / 10).toFixed(1)} s`;
  const s = Math.floor(v / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
}

/** A PTTL as shown: -1 (no expiry) is `no TTL`, an unknown one `TTL ?`. */
export function formatTtl(pttlMs: number | null): string {
  if (pttlMs === null) return 'TTL ?';
  return pttlMs < 0 ? 'no TTL' : formatDuration(pttlMs);
}

/** A signed difference such as a clock offset: `+3 ms`, `-1.2 s`, `0 ms`. */
export function formatOffset(ms: number): string {
  const sign = ms > 0 ? '+' : ms < 0 ? '-' : '';
  return `${sign}${formatDuration(Math.abs(ms))}`;
}
