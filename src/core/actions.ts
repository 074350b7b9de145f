// What a user may do with a lock, decided once here from the classification: the tree's
// menus, the detail panel's buttons and the commands all follow it (docs/decisions.md).
// Pure and dependency-free: the webview imports it too.
import type { Classification } from './types';

/**
 * Extend applies to a lock taken in this window, or to the token that holds a quorum:
 * `held`, and also a split where one token still has a quorum (3+1 of 5). Only that
 * token's copies are extended; the other holder's copies are left alone. A split without
 * a quorum holder (2+2 of 5), a partial or an unknown lock has nothing to extend.
 */
export function extendable(c: Pick<Classification, 'quorumToken'>, mine: boolean): boolean {
  return mine || c.quorumToken !== null;
}

/** Release ends a lock taken in this window (its token is known here); force release any. */
export function releasable(mine: boolean): boolean {
  return mine;
}
