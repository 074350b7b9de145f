// A node's clock offset, kept from the best measurement its connection has had. Each read
// measures the offset with TIME, taken at the middle of its round trip, so it may be off
// by half that trip; on a busy event loop one trip took 300 ms where the next took 0.3.
// The sample with the shortest trip is the truest, and it stays true while the two clocks
// run at nearly the same rate (docs/vocabulary.md, "Flags").
import { performance } from 'node:perf_hooks';
import type Redis from 'ioredis';
import type { Cluster } from 'ioredis';
import { clockNow, withDeadline } from './deadline';

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

/** What one clock probe found: the round trip, and the offset to use now (null without TIME). */
export interface ClockProbe {
  rttMs: number;
  offset: ClockOffset | null;
}

/**
 * One TIME on `node` (PING where the server refuses TIME: the round trip alone), within
 * `timeoutMs`. The answer is kept on the connection if it is the better one, and the
 * offset to use now is given: one offset per connection, so the reads, the Nodes view and
 * the doctor agree. Sent before the first await, so a caller's next command follows it.
 */
export async function probeClock(node: { client: Redis | Cluster; clock: ClockSample | null }, hasTime: boolean, timeoutMs: number): Promise<ClockProbe> {
  const t0 = performance.now();
  const sentMs = clockNow();
  const time = await withDeadline(hasTime ? node.client.time() : node.client.ping().then(() => null), timeoutMs);
  const rttMs = performance.now() - t0;
  if (time === null) return { rttMs, offset: null };
  const atMs = t0 + rttMs;
  node.clock = betterSample(node.clock, { offsetMs: Number(time[0]) * 1000 + Number(time[1]) / 1000 - (sentMs + rttMs / 2), errMs: rttMs / 2, atMs });
  return { rttMs, offset: offsetAt(node.clock, atMs) };
}
