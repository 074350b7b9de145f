// What a caller passes to Redlock and gets back from a release: the library's contract
// in types (docs/architecture.md), apart from the algorithm that fills them.
import type { FailureOutcome } from '../connection/nodes';
import type { NodeSetTimings } from '../connection/nodeSet';
import type { IdentityOptions } from '../bookkeeping/holderIdentity';
import type { EventOptions } from '../bookkeeping/events';
import type { ObservationState } from '../vocabulary/types';
import type { Resource } from '../vocabulary/resource';
import type { NodeAttempt } from './errors';
import type { WaitState } from '../bookkeeping/waiters';

export interface RedlockOptions extends NodeSetTimings, IdentityOptions {
  /** Record acquired / extended / released / lost / failed in a capped log per resource. */
  events?: boolean | EventOptions;
  retryCount?: number;
  retryDelayMs?: number;
  retryJitterMs?: number;
}

export interface AcquireOptions {
  retryCount?: number;
  signal?: AbortSignal;
  /** Hand out a fencing token (`lock.fence`): one counter per resource, docs/fencing.md. */
  fencing?: boolean;
  /**
   * Called after each refused attempt that a retry follows, with every node's answer (a
   * refusal names the holder: one extra bounded GET per refusing node, only when set).
   */
  onAttempt?: (refused: { attempt: number; attempts: number; nodes: NodeAttempt[] }) => void;
}

export type ReleaseOutcome = 'released' | 'not-held' | 'refused' | 'unreachable';
/** One node's answer to a release; `pending` only in the early result, never in `settled`. */
export interface ReleaseNode {
  node: string;
  outcome: ReleaseOutcome | 'pending';
  reason?: string;
  /** Why a refused or unreachable node failed (`auth`: it wants a password), decided in replies.ts. */
  failure?: FailureOutcome;
}
export type ForceOutcome = 'deleted' | 'changed' | 'absent' | 'refused' | 'unreachable';

export interface ReleaseResult {
  /** Every node as known when the outcome became certain; unanswered nodes are `pending`. */
  nodes: ReleaseNode[];
  /** Every node's final outcome (never `pending`), once all answered or the deadline passed. */
  settled: Promise<Array<{ node: string; outcome: ReleaseOutcome; reason?: string; failure?: FailureOutcome }>>;
}

export interface ForceReleaseResult {
  nodes: Array<{ node: string; outcome: ForceOutcome; reason?: string }>;
}

/** What the user saw on one node; a snapshot's lock entry `nodes` fits. */
export interface ObservedCopy {
  node: string;
  token: string | null;
  /** A snapshot's observation state: a node that was `unreachable` when read is reported so. */
  state?: ObservationState;
  reason?: string | null;
}

export function validateTtl(ttlMs: number): void {
  if (!Number.isInteger(ttlMs) || ttlMs < 1 || ttlMs > 2 ** 31 - 1) {
    throw new RangeError(`invalid TTL ${String(ttlMs)}: an integer number of ms from 1 to 2147483647`);
  }
}

/** One attempt of an acquire call: which try it is, and how it waits if refused. */
export interface AcquireAttempt {
  keys: Resource[];
  ttlMs: number;
  /** 1-based number of this try. */
  attempt: number;
  /** No retry follows: a refusal is the call's answer. */
  final: boolean;
  /** The waiter entry, or how to make it on the first refusal (only a call that retries). */
  waiting?: WaitState | (() => WaitState);
  onRefused?: (nodes: NodeAttempt[]) => void;
  fencing: boolean;
  /** Epoch ms of the call's first refused attempt, if one was. */
  refusedAt?: number;
  /** A holder is known to be met (localHandoff.ts): a refusal lists the waiter in the same command. */
  list?: boolean;
}
