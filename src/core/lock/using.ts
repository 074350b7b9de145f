// `using()`: a lock held for the length of a callback, extended at half its validity, and
// given up (the signal aborts) the moment an extension fails or the validity runs out.
import { LockAbortedError } from './errors';
import type { Lock } from './lock';
import type { AcquireOptions } from './options';
import type { Resource } from '../vocabulary/resource';

/** The lock operations `using()` runs on. */
export interface LockOps {
  acquire(resource: Resource | Resource[], ttlMs: number, options: AcquireOptions): Promise<Lock>;
  extend(lock: Lock, ttlMs: number): Promise<Lock>;
  release(lock: Lock): Promise<unknown>;
}

/** Runs `fn` holding `resource`; `recordLost` hears of a lease lost, before `fn` may notice. */
export async function runHolding<T>(
  locks: LockOps,
  recordLost: (lock: Lock, why: string) => void,
  resource: Resource | Resource[],
  ttlMs: number,
  fn: (signal: AbortSignal, lock: Lock) => Promise<T>,
  options: AcquireOptions,
): Promise<T> {
  let lock = await locks.acquire(resource, ttlMs, options);
  const controller = new AbortController();
  let expiryTimer: NodeJS.Timeout | undefined;
  let extendTimer: NodeJS.Timeout | undefined;
  let stopped = false;
  // Recorded when the lease goes, not when fn returns: fn may throw or never notice.
  const lose = (why: unknown): void => {
    if (controller.signal.aborted) return;
    recordLost(lock, why instanceof Error ? why.message : String(why));
    controller.abort(why);
  };
  const armExpiry = (): void => {
    clearTimeout(expiryTimer);
    expiryTimer = setTimeout(() => {
      lose(new LockAbortedError(`lease on ${lock.resources.join(', ')} expired before it could be extended`));
    }, lock.remainingMs);
  };
  const scheduleExtend = (): void => {
    extendTimer = setTimeout(async () => {
      try {
        const next = await locks.extend(lock, ttlMs);
        if (stopped || controller.signal.aborted) return;
        lock = next;
        armExpiry();
        scheduleExtend();
      } catch (e) {
        if (!stopped) lose(e);
      }
    }, lock.remainingMs / 2);
  };
  armExpiry();
  scheduleExtend();
  try {
    return await fn(controller.signal, lock);
  } finally {
    stopped = true;
    clearTimeout(expiryTimer);
    clearTimeout(extendTimer);
    await locks.release(lock);
  }
}
