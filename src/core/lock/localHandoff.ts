// In-process handoff between the calls of one Redlock (docs/decisions.md, "Lock round
// costs"). A release wakes the first retrying call of the same instance waiting for one
// of its resources, instead of leaving the resource free until some retry delay runs out;
// and while a lock of this instance holds a resource within its validity, unreleased by any
// Redlock of this process, a retry of the same instance may skip its round for a short while
// (see NODE_CHECK_MS). The woken call still acquires through a quorum like any attempt: a
// wake is only an earlier retry, never a grant.
import { performance } from 'node:perf_hooks';
import { LockAbortedError } from './errors';
import type { Resource } from '../vocabulary/resource';

/**
 * One retrying acquire call, queued on its resources from its start to its end: a wake
 * that comes while it is not asleep (its attempt in flight) ends its next sleep at once.
 */
export interface RetryWaiter {
  /** Resolves after `ms` or at a wake; rejects on abort. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Its attempt after a wake is over: the others stop counting on that handoff. */
  attempted(): void;
  /** Leaves the queues; a wake it did not use passes to the next call in line. */
  done(): void;
  /** Whether another call of this instance holds one of its keys or was just handed one (see `busy`). */
  busy(): boolean;
}

interface Queued {
  keys: string[];
  woken: boolean;
  wake: () => void;
}

/** When a release of this instance last woke a queued call for a resource, and the smoothed time between such releases (ms). */
interface Pace {
  at: number;
  everyMs: number;
}

/** A lock of this instance: its token, the monotonic instant its validity runs out, and the Lock itself. */
interface Held {
  token: string | Buffer;
  deadline: number;
  lock: object;
}

/**
 * A skipped round rests on a belief about the nodes (the lock is still on them); a round is
 * made at least this often anyway, so a lock that left by a path this process cannot see
 * (an operator's force-release, a flush) keeps its waiter at most this long.
 */
export const NODE_CHECK_MS = 100;

/** Locks released by any Redlock of this process: what a skipped round rests on. */
const releasedLocks = new WeakSet<object>();
/** The handoff that holds each lock: a release through another instance still wakes its waiters. */
const holderOf = new WeakMap<object, LocalHandoff>();

/** Buffer resources get a prefix no UTF-8 text starts with; a collision only wakes early. */
const keyOf = (r: Resource): string => (typeof r === 'string' ? r : `\u0000${r.toString('latin1')}`);

const sameToken = (a: string | Buffer, b: string | Buffer): boolean =>
  typeof a === 'string' && typeof b === 'string' ? a === b : Buffer.from(a).equals(Buffer.from(b));

export class LocalHandoff {
  /** Per resource, retrying calls in the order they started. */
  private readonly queues = new Map<string, Queued[]>();
  private readonly held = new Map<string, Held>();
  /** Per resource, the call a release woke, while its attempt is in flight. */
  private readonly handedTo = new Map<string, Queued>();
  /** Per resource with calls queued: how fast releases here hand it down the line (see `joinsLine`). */
  private readonly pace = new Map<string, Pace>();
  /** Locks that are never released are forgotten once expired, swept as the map grows. */
  private sweepAt = 1024;

  /** Releases through this instance (or of its locks through another): tells a call whether one came during its first attempt. */
  releases = 0;

  /** Queues a retrying call on `keys` until its `done()`; `woken`: its first sleep ends at once. */
  waiter(resources: readonly Resource[], woken = false): RetryWaiter {
    let wakeSleep: (() => void) | undefined;
    const q: Queued = {
      keys: resources.map(keyOf),
      woken,
      wake: () => {
        if (wakeSleep) wakeSleep();
        else q.woken = true;
      },
    };
    for (const k of q.keys) {
      const queue = this.queues.get(k);
      if (queue) queue.push(q);
      else this.queues.set(k, [q]);
    }
    return {
      sleep: (ms, signal) => new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(new LockAbortedError('acquire aborted'));
        if (q.woken) {
          q.woken = false;
          return resolve();
        }
        const end = (): void => {
          wakeSleep = undefined;
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
        };
        wakeSleep = () => {
          end();
          resolve();
        };
        const timer = setTimeout(wakeSleep, ms);
        const onAbort = (): void => {
          end();
          reject(new LockAbortedError('acquire aborted'));
        };
        signal?.addEventListener('abort', onAbort, { once: true });
      }),
      attempted: () => this.forgetHandoff(q),
      done: () => {
        this.forgetHandoff(q);
        this.remove(q);
        if (q.woken) for (const k of q.keys) this.wakeFirst(k);
      },
      busy: () => this.busy(q),
    };
  }

  /** A lock of this instance took `keys` (again, after an extend) until `deadline`. */
  hold(keys: readonly Resource[], lock: { rawToken: string | Buffer }, deadline: number): void {
    const h = { token: lock.rawToken, deadline, lock };
    holderOf.set(lock, this);
    for (const r of keys) this.held.set(keyOf(r), h);
    if (this.held.size > this.sweepAt) {
      const t = performance.now();
      for (const [k, x] of this.held) if (x.deadline <= t) this.held.delete(k);
      this.sweepAt = Math.max(1024, 2 * this.held.size);
    }
  }

  /**
   * `lock` is being released through this instance; it may be another instance's lock,
   * whose waiters wake too and whose retries stop skipping rounds.
   */
  releasedLock(lock: { keys: readonly Resource[]; rawToken: string | Buffer }): void {
    releasedLocks.add(lock);
    this.released(lock.keys, lock.rawToken);
    const holder = holderOf.get(lock);
    if (holder !== undefined && holder !== this) holder.released(lock.keys, lock.rawToken);
  }

  /**
   * The lock with `token` is being released: its resources are no longer known held, and
   * the first retrying call of each wakes. One per resource, since every other one would
   * only be refused by the one woken first (a herd of attempts costs each a round).
   */
  released(keys: readonly Resource[], token: string | Buffer): void {
    this.releases++;
    const t = this.queues.size > 0 ? performance.now() : 0;
    for (const r of keys) {
      const k = keyOf(r);
      const h = this.held.get(k);
      if (h && sameToken(h.token, token)) this.held.delete(k);
      if (t > 0 && this.queues.has(k)) this.paced(k, t);
      this.wakeFirst(k);
    }
  }

  private paced(k: string, t: number): void {
    const p = this.pace.get(k);
    if (!p) {
      this.pace.set(k, { at: t, everyMs: Infinity });
      return;
    }
    const gap = t - p.at;
    // Smoothed over about four handoffs: one slow hold does not stop the line for long.
    p.everyMs = p.everyMs === Infinity ? gap : 0.75 * p.everyMs + 0.25 * gap;
    p.at = t;
  }

  /**
   * Whether a new call for `keys` joins the line without a round of its own: a lock of this
   * instance holds them or a release just handed them to a queued call (a round now could
   * only be refused), and the line moves fast enough that releases here will wake the call
   * before its retry delay runs out. Without the second part, a call whose delay ran out
   * first sent its round, unlisted, in the middle of other handoffs; a line slower than the
   * delay keeps the first round (a refusal that lists the call on the nodes).
   */
  joinsLine(keys: readonly Resource[], delayMs: number): boolean {
    if (this.pace.size === 0) return false;
    const t = performance.now();
    let taken = false;
    for (const r of keys) {
      const k = keyOf(r);
      const p = this.pace.get(k);
      const queued = this.queues.get(k)?.length;
      if (p === undefined || queued === undefined || t - p.at >= delayMs || (queued + 1) * p.everyMs >= delayMs) return false;
      taken ||= this.handedTo.has(k);
    }
    return taken || this.holds(keys);
  }

  private wakeFirst(k: string): void {
    const first = this.queues.get(k)?.[0];
    if (!first) return;
    this.handedTo.set(k, first);
    first.wake();
  }

  private forgetHandoff(q: Queued): void {
    if (this.handedTo.size === 0) return;
    for (const k of q.keys) if (this.handedTo.get(k) === q) this.handedTo.delete(k);
  }

  /**
   * A lock of this instance holds one of `q`'s keys, or a release just woke another call
   * for one and its attempt is in flight: either way a round of `q` now would be refused
   * (the woken call's grant goes out first on every connection). Rests on the same belief
   * as `holds`, and the caller bounds it the same way (NODE_CHECK_MS).
   */
  private busy(q: Queued): boolean {
    if (this.handedTo.size > 0) {
      for (const k of q.keys) {
        const to = this.handedTo.get(k);
        if (to !== undefined && to !== q) return true;
      }
    }
    return this.holds(q.keys);
  }

  /** Whether a call of this instance waits for one of `keys`: a release of them will wake it. */
  awaited(keys: readonly Resource[]): boolean {
    if (this.queues.size > 0) for (const r of keys) if (this.queues.has(keyOf(r))) return true;
    return false;
  }

  /** Whether a lock of this instance holds one of `keys`, or a call of it waits for one: a new attempt will meet a holder. */
  contended(keys: readonly Resource[]): boolean {
    return this.awaited(keys) || this.holds(keys);
  }

  /** Whether a lock of this instance, unreleased in this process, holds one of `keys` within its validity. */
  holds(keys: readonly Resource[]): boolean {
    if (this.held.size === 0) return false;
    const t = performance.now();
    for (const r of keys) {
      const k = keyOf(r);
      const h = this.held.get(k);
      if (!h) continue;
      if (h.deadline > t && !releasedLocks.has(h.lock)) return true;
      this.held.delete(k);
    }
    return false;
  }

  private remove(q: Queued): void {
    for (const k of q.keys) {
      const queue = this.queues.get(k);
      if (!queue) continue;
      const i = queue.indexOf(q);
      if (i >= 0) queue.splice(i, 1);
      if (queue.length === 0) {
        this.queues.delete(k);
        this.pace.delete(k);
      }
    }
  }
}
