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

/** A timer that fires this much after its time means our own event loop was busy. */
const LATE_MS = 20;

/**
 * `p`, or a DeadlineError once `ms` pass; the timer never outlives the race. A reply that
 * arrived while our event loop was busy is taken before the deadline is told: the timer
 * waits one turn of I/O first. With `giveBackLag` (reads, whose deadline must measure the
 * node), a timer that fired late because our loop was busy (a GC pause, a large page
 * decoded) gives the node the time it lost, once, at most `ms` more; writes keep their
 * deadline as it is.
 */
export function withDeadline<T>(p: Promise<T>, ms: number, giveBackLag = false): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let settled = false;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => {
      const arm = (wait: number, retry: boolean): void => {
        const due = performance.now() + wait;
        timer = setTimeout(() => {
          const late = performance.now() - due;
          // Replies already in the socket are read in the poll phase, before setImmediate.
          setImmediate(() => {
            if (settled) return;
            if (retry && late > LATE_MS) arm(Math.min(ms, late), false);
            else reject(new DeadlineError(ms));
          });
        }, wait);
      };
      arm(ms, giveBackLag);
    }),
  ]).finally(() => {
    settled = true;
    clearTimeout(timer);
  });
}

/** Epoch ms that never jumps backwards with the wall clock during a snapshot. */
const wallAnchor = Date.now();
const monoAnchor = performance.now();
export const clockNow = (): number => wallAnchor + (performance.now() - monoAnchor);

/**
 * A write's per-node deadline: the configured one, or a twentieth of the TTL within
 * [50, 500] ms, so a short lock is not spent waiting on one slow node.
 */
export function writeDeadlineFor(ttlMs: number, commandTimeoutMs?: number): number {
  return commandTimeoutMs ?? Math.min(500, Math.max(50, Math.round(ttlMs / 20)));
}
