// A held lock as the caller sees it: its token, resources and validity, every node's
// answer on demand, and release at scope exit.
import './disposable';
import type { Resource } from '../vocabulary/resource';
import { displayKey, displayToken, parseTokenArg } from '../vocabulary/tokens';
import { validateTtl } from './options';
import { validateResources } from '../vocabulary/resource';
import type { NodeAttempt } from './errors';
import { now } from './round';

/** What makes a Lock; the fields marked internal are Redlock's own. */
export interface LockInit {
  /** Display form of the token (ours: 32 hex characters, then the holder identity, see holderIdentity.ts). */
  token: string;
  resources: string[];
  /** Validity at the moment of success, in ms. */
  validityMs: number;
  ttlMs: number;
  /** Every node's answer; a function runs on the first read (most callers never look). */
  settled: Promise<NodeAttempt[]> | (() => Promise<NodeAttempt[]>);
  /** Monotonic instant at which validity runs out. */
  deadline: number;
  keys: Resource[];
  /** The token as sent; our own hex tokens stay strings (ioredis' Buffer path costs). */
  rawToken: Buffer | string;
  fences?: readonly number[];
  /** The Redlock that releases it at scope exit. */
  owner?: LockOwner;
}

/** What releases a lock at scope exit: the Redlock that made it. */
export interface LockOwner {
  release(lock: Lock): Promise<unknown>;
}

export class Lock {
  /** Display form of the token (ours: 32 hex characters, then the holder identity). */
  readonly token: string;
  readonly resources: string[];
  /** Validity at the moment of success, in ms. */
  readonly validityMs: number;
  readonly ttlMs: number;
  /** @internal monotonic instant at which validity runs out */
  readonly deadline: number;
  /** @internal */
  readonly keys: Resource[];
  /** @internal the token as sent */
  readonly rawToken: Buffer | string;

  constructor(init: LockInit) {
    this.token = init.token;
    this.resources = init.resources;
    this.validityMs = init.validityMs;
    this.ttlMs = init.ttlMs;
    this.deadline = init.deadline;
    this.keys = init.keys;
    this.rawToken = init.rawToken;
    this.settledSource = init.settled;
    this.#owner = init.owner;
    // An unfenced lock has no fence property at all, not one set to undefined.
    const fences = init.fences;
    if (fences !== undefined) {
      this.fences = fences;
      // Several resources have several sequences: no one number stands for them all.
      if (fences.length === 1) this.fence = fences[0];
    }
  }

  /** One fence per resource (in `resources` order) when taken with `{ fencing: true }`. */
  declare readonly fences?: readonly number[];

  /**
   * The fencing token of a single-resource lock taken with `{ fencing: true }`: strictly
   * greater than the fence of every earlier fenced acquisition of the resource on this
   * node set. Absent otherwise (several resources: see `fences`).
   */
  declare readonly fence?: number;

  private settledSource: Promise<NodeAttempt[]> | (() => Promise<NodeAttempt[]>);

  // A private field, not a WeakMap beside the class: one set per acquire on the hot path,
  // and no property that JSON or an equality check would see.
  readonly #owner: LockOwner | undefined;

  /** Every node's answer, once all answered or the per-node deadline passed. */
  get settled(): Promise<NodeAttempt[]> {
    if (typeof this.settledSource === 'function') this.settledSource = this.settledSource();
    return this.settledSource;
  }

  /** Validity left now, in whole ms (rounded down), 0 once passed. */
  get remainingMs(): number {
    return Math.max(0, Math.floor(this.deadline - now()));
  }

  /**
   * `await using lock = await redlock.acquire(...)` releases at scope exit. Never throws:
   * a lock that already expired or was released resolves `not-held`, and a node that does
   * not answer lets its copy expire with the TTL.
   */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.#owner?.release(this);
  }

  /** Epoch ms at which the validity runs out (local clock). */
  get expiration(): number {
    return Date.now() + (this.deadline - now());
  }
}

/** A Lock for a token someone else holds (as shown: printable or `hex:`): see Redlock.lockFor. */
export function lockForToken(resource: Resource | Resource[], token: string, ttlMs: number, owner?: LockOwner): Lock {
  const keys = Array.isArray(resource) ? resource : [resource];
  validateResources(keys);
  validateTtl(ttlMs);
  if (token.length === 0) throw new RangeError('empty token');
  const raw = parseTokenArg(token);
  return new Lock({ token: displayToken(raw), resources: keys.map(displayKey), validityMs: 0, ttlMs, settled: () => Promise.resolve([]), deadline: 0, keys, rawToken: raw, owner });
}
