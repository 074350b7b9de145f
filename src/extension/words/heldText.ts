// How a lock held by this window is described in the tree, the pickers and the status bar.
import * as vscode from 'vscode';
import { formatDuration } from '../../core/vocabulary';
import type { MineLock } from '../model/mineLocks';

/** Kept extending, or when it expires: a clock time, true without a countdown re-render. */
export function heldDescription(m: MineLock, now = Date.now()): string {
  if (m.extending) return vscode.l10n.t('kept extending (TTL {0})', formatDuration(m.lock.ttlMs));
  const left = m.lock.remainingMs;
  if (left === 0) return vscode.l10n.t('expired');
  return vscode.l10n.t('expires at {0} unless extended', new Date(now + left).toLocaleTimeString());
}
