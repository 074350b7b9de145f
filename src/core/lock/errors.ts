// RedlockError explains itself: every node and what it said, never a bare
// "quorum not achieved".
import type { FailureOutcome } from '../connection/nodes';
import { answeredCount, describeAnswer } from '../vocabulary/describe';

export type AttemptOutcome = 'granted' | 'held-by-other' | 'not-held' | FailureOutcome;

export interface NodeAttempt {
  node: string;
  outcome: AttemptOutcome;
  /** The token holding the key instead (display form), for `held-by-other`. */
  heldBy?: string;
  reason?: string;
  /** For failures: the node replied (NOPERM, READONLY, ...) rather than being out of reach. */
  answered?: boolean;
}

export type LockOperation = 'acquire' | 'extend';

/** One node's answer as the failure line names it (src/core/vocabulary/describe.ts). */
export function describeAttempt(a: NodeAttempt, operation?: LockOperation): string {
  return describeAnswer(a, operation);
}

export class RedlockError extends Error {
  override name = 'RedlockError';

  constructor(
    readonly operation: LockOperation,
    readonly resources: string[],
    readonly quorum: number,
    readonly nodes: NodeAttempt[],
    /** Why it failed beyond the per-node answers, e.g. validity used up. */
    readonly detail?: string,
    readonly attempts = 1,
  ) {
    const granted = nodes.filter((n) => n.outcome === 'granted').length;
    const what = detail ?? `${granted} of ${nodes.length} nodes granted, ${quorum} needed`;
    const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
    super(`cannot ${operation} ${resources.join(', ')}${tries}: ${what}: ${nodes.map((n) => describeAttempt(n, operation)).join('; ')}`);
  }

  /** Fewer than a quorum of nodes answered at all (CLI exit 3), as opposed to a refusal (exit 1). */
  get unreachable(): boolean {
    return answeredCount(this.nodes) < this.quorum;
  }
}

export class LockAbortedError extends Error {
  override name = 'AbortError';
}
