// "Needs attention": every lock the status bar counts (src/shared/lockOrder.ts,
// needsAttention), first in the view and open, so none is ever hidden in a closed folder.
// Not `expiring`: a healthy lock renewed late passes through it every few seconds and
// would blink in and out.
import * as vscode from 'vscode';
import { elementId } from './treeIds';

export class AttentionGroupElement {
  readonly kind = 'attentionGroup';
  /** VS Code shows it open until the user closes it. */
  expanded = true;
  /** What its row shows now. */
  rendered = '';
  /** Its rows' ids as last given to VS Code, to tell whether they came or went. */
  children = '';
}

export function attentionGroupItem(count: number, worstIcon: { id: string; color: string }): vscode.TreeItem {
  const item = new vscode.TreeItem(vscode.l10n.t('Needs attention'), vscode.TreeItemCollapsibleState.Expanded);
  item.id = elementId('attentionGroup');
  item.description = count === 1 ? vscode.l10n.t('1 lock') : vscode.l10n.t('{0} locks', count.toLocaleString('en-US'));
  item.iconPath = new vscode.ThemeIcon(worstIcon.id, new vscode.ThemeColor(worstIcon.color));
  item.tooltip = vscode.l10n.t('Split, partial, unknown, deadlocked, without TTL, with TTL skew or a node down: each is also in its folder below.');
  item.contextValue = 'attentionGroup;';
  return item;
}
