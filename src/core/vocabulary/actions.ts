// What a user may do with a lock, decided once here from the classification: the tree's
// menus, the detail panel's buttons and the commands all follow it (docs/decisions.md).
// Pure and dependency-free: the webview imports it too.
import type { Classification, LockEntry } from './types';

/** The token on a quorum of nodes, else null: the same answer classify() gave (2Q > N: at most one). */
export function quorumTokenOf(e: Pick<LockEntry, 'holders' | 'quorum'> & Partial<Pick<LockEntry, 'verdict' | 'nodes'>>): string | null {
  // Counted from the copies where the entry has them (classify counts a copy without a
  // token as ''): an entry of the read pipeline derives its holders record from them at
  // each read (holderCounts.ts). A held lock has one token, so any present copy's is it.
  const nodes = e.nodes;
  if (nodes === undefined) {
    for (const t in e.holders) if (e.holders[t] >= e.quorum) return t;
    return null;
  }
  for (let i = 0; i < nodes.length; i++) {
    if (nodes[i].state !== 'present') continue;
    const token = nodes[i].token ?? '';
    if (e.verdict === 'held') return token;
    let copies = 0;
    for (const o of nodes) if (o.state === 'present' && (o.token ?? '') === token) copies++;
    if (copies >= e.quorum) return token;
  }
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
