// "Held by this window": every lock this window holds or keeps extending, listed whatever
// the key patterns say, so none is ever out of the user's reach. Its rows carry their own
// ids ('held'), apart from the same key's row in the list below.
import * as vscode from 'vscode';
import type { LockEntry } from '../../core';
import type { MineLock } from '../model/mineLocks';
import { heldDescription } from '../words/heldText';
import { lockDescription } from '../words/lockText';
import { printable } from '../words/markdown';
import { elementId } from './treeIds';

export class HeldGroupElement {
  readonly kind = 'heldGroup';
}

export class HeldElement {
  readonly kind = 'held';
  constructor(readonly key: string) {}
}

export function heldGroupItem(count: number): vscode.TreeItem {
  const item = new vscode.TreeItem(vscode.l10n.t('Held by this window'), vscode.TreeItemCollapsibleState.Expanded);
  item.id = elementId('heldGroup');
  item.description = count === 1 ? vscode.l10n.t('1 lock') : vscode.l10n.t('{0} locks', count);
  item.iconPath = new vscode.ThemeIcon('account');
  item.tooltip = vscode.l10n.t('Locks taken in this window: released when the window closes.');
  item.contextValue = 'heldGroup;';
  return item;
}

/** A held lock's row: what the watch saw of it when its key matches a pattern, else what this window knows. */
export function heldItem(m: MineLock, entry: LockEntry | undefined): vscode.TreeItem {
  const item = new vscode.TreeItem(printable(m.key), vscode.TreeItemCollapsibleState.None);
  item.id = elementId('held', m.key);
  item.description = entry ? `${heldDescription(m)} · ${lockDescription(entry)}` : `${heldDescription(m)} · ${vscode.l10n.t('not matched by the key patterns')}`;
  item.iconPath = new vscode.ThemeIcon(m.extending ? 'sync' : 'lock');
  item.contextValue = `held;mine;${m.extending ? 'extending;' : 'extendable;'}`;
  item.accessibilityInformation = { label: `${printable(m.key)}: ${item.description}` };
  return item;
}
