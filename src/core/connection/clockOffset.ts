// A node's clock offset, kept from the best measurement its connection has had. Each read
// measures the offset with TIME, taken at the middle of its round trip, so it may be off
// by half that trip; on a busy event loop one trip took 300 ms where the next took 0.3.
// The sample with the shortest trip is the truest, and it stays true while the two clocks
// run at nearly the same rate (docs/vocabulary.md, "Flags").

/** Node clock minus local clock, and how far it may be off either way. */
export interface ClockOffset {
  offsetMs: number;
  errMs: number;
}

/** A measured offset and when (local monotonic ms, performance.now()) it was measured. */
export interface ClockSample extends ClockOffset {
  atMs: number;
}

/**
 * How fast a kept offset loses its precision: two clocks that NTP slews apart may drift
 * up to 500 ppm, so a kept sample's error grows by that much of its age.
 */
export const CLOCK_DRIFT_RATE = 5e-4;

/** `kept`'s error grown by its age at `nowMs`. */
export function agedError(kept: ClockSample, nowMs: number): number {
  return kept.errMs + Math.max(0, nowMs - kept.atMs) * CLOCK_DRIFT_RATE;
}

/**
 * The sample to keep: the new one when it is at least as precise as the kept one has
 * grown to be, or when the two cannot both be true (a clock stepped, or the connection
 * reached another server); else the kept one.
 */
export function betterSample(kept: ClockSample | null, sample: ClockSample): ClockSample {
  if (kept === null) return sample;
  const err = agedError(kept, sample.atMs);
  if (sample.errMs <= err || Math.abs(sample.offsetMs - kept.offsetMs) > sample.errMs + err) return sample;
  return kept;
}

/** What a read uses from `kept` at `nowMs`: its offset, with its aged error. */
export function offsetAt(kept: ClockSample, nowMs: number): ClockOffset {
  return { offsetMs: kept.offsetMs, errMs: agedError(kept, nowMs) };
}

/**
 * The offset a TIME answer `time` gives, sent at `sentMs` (local epoch ms) and answered
 * `rttMs` later at `atMs` (monotonic), kept on `node` if it is the better one; gives the
 * offset to use now. One offset per connection: the reads and the Nodes view agree.
 */
export function measuredOffset(node: { clock: ClockSample | null }, time: ReadonlyArray<number | string>, sentMs: number, rttMs: number, atMs: number): ClockOffset {
  const sample = { offsetMs: Number(time[0]) * 1000 + Number(time[1]) / 1000 - (sentMs + rttMs / 2), errMs: rttMs / 2, atMs };
  node.clock = betterSample(node.clock, sample);
  return offsetAt(node.clock, atMs);
}
