// What a user may do with a lock, decided once here from the classification: the tree's
// menus, the detail panel's buttons and the commands all follow it (docs/decisions.md).
// Pure and dependency-free: the webview imports it too.
import type { Classification, LockEntry } from './types';

/** The token on a quorum of nodes, else null: the same answer classify() gave (2Q > N: at most one). */
export function quorumTokenOf(e: Pick<LockEntry, 'holders' | 'quorum'> & Partial<Pick<LockEntry, 'verdict' | 'nodes'>>): string | null {
  // A held lock has one token, so any present copy's is it (classify counts a copy without
  // one as ''): no walk of the holders record, a dictionary-mode object that each walk
  // copies its keys out of, once per lock per stage.
  if (e.verdict === 'held' && e.nodes !== undefined) for (const o of e.nodes) if (o.state === 'present') return o.token ?? '';
  for (const t in e.holders) if (e.holders[t] >= e.quorum) return t;
  return null;
}

/**
 * Extend applies to a lock taken in this window, or to the token that holds a quorum:
 * `held`, and also a split where one token still has a quorum (3+1 of 5). Only that
 * token's copies are extended; the other holder's copies are left alone. A split without
 * a quorum holder (2+2 of 5), a partial or an unknown lock has nothing to extend.
 */
export function extendable(e: Pick<LockEntry, 'holders' | 'quorum'> | Pick<Classification, 'quorumToken'>, mine: boolean): boolean {
  return mine || ('quorumToken' in e ? e.quorumToken : quorumTokenOf(e)) !== null;
}

/** Release ends a lock taken in this window (its token is known here); force release any. */
export function releasable(mine: boolean): boolean {
  return mine;
}
