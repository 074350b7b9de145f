// RedlockError explains itself: every node and what it said, never a bare
// "quorum not achieved".
import type { FailureOutcome } from './nodes';
import { holderLabel } from './holders';

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

function shortToken(t: string): string {
  return t.length > 16 ? `${t.slice(0, 12)}…` : t;
}

export function describeAttempt(a: NodeAttempt): string {
  switch (a.outcome) {
    case 'granted':
      return `${a.node} granted`;
    case 'held-by-other':
      // Our own holders say who they are: a name beats a token prefix.
      return `${a.node} held by ${a.heldBy === undefined ? 'another token' : (holderLabel(a.heldBy) ?? shortToken(a.heldBy))}`;
    case 'not-held':
      return `${a.node} not held (expired or released)`;
    default:
      return `${a.node} ${a.outcome}${a.reason ? ` (${a.reason})` : ''}`;
  }
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
    super(`cannot ${operation} ${resources.join(', ')}${tries}: ${what}: ${nodes.map(describeAttempt).join('; ')}`);
  }

  /** Fewer than a quorum of nodes answered at all (CLI exit 3), as opposed to a refusal (exit 1). */
  get unreachable(): boolean {
    const answered = this.nodes.filter((n) => n.outcome === 'granted' || n.outcome === 'held-by-other' || n.outcome === 'not-held' || n.outcome === 'wrong-type' || n.answered === true).length;
    return answered < this.quorum;
  }
}

export class LockAbortedError extends Error {
  override name = 'AbortError';
}
