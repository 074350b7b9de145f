// Time for every node call: one deadline helper and one clock, at the bottom of the core so
// that reads, writes and facts all wait and stamp the same way.
import { performance } from 'node:perf_hooks';

/** A node call that got no answer within its deadline (ioredis' commandTimeout is per client). */
export class DeadlineError extends Error {
  override name = 'DeadlineError';
  constructor(readonly ms: number) {
    super(`no answer within ${ms} ms`);
  }
}

/** `p`, or a DeadlineError once `ms` pass; the timer never outlives the race. */
export function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new DeadlineError(ms)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Epoch ms that never jumps backwards with the wall clock during a snapshot. */
const wallAnchor = Date.now();
const monoAnchor = performance.now();
export const clockNow = (): number => wallAnchor + (performance.now() - monoAnchor);
