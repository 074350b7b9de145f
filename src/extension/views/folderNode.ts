// A folder of keys sharing a prefix: its count and its worst verdict on the row, its
// locks loaded only when it is opened. Opened or not, the provider knows (the view's
// expand and collapse events): a closed folder's rows are never re-rendered.
import * as vscode from 'vscode';
import type { LockEntry } from '../../core';
import type { FolderSummary } from './lockGroups';
import { lockIcon } from '../words/lockText';
import { printable } from '../words/markdown';
import { worstWord } from '../words/folderText';
import { elementId } from './treeIds';

export class FolderElement {
  readonly kind = 'folder';
  /** Open in the view: its rows are on screen when the view is. */
  expanded = false;
  /** VS Code has asked for its rows at least once. */
  loaded = false;
  /** Something below changed while it was closed: refreshed when it opens. */
  stale = false;
  /** What its row shows now, to tell whether a change moved it. */
  rendered = '';
  /** Its rows' ids as last given to VS Code, to tell whether they came or went. */
  children = '';
  constructor(readonly prefix: string) {}
}

/** The row: the prefix past its parent's (`orders:`), `1,204 locks · 3 split`. */
export function folderItem(f: FolderSummary, worst: LockEntry | undefined): vscode.TreeItem {
  const item = new vscode.TreeItem(printable(f.prefix.slice(f.parent.length)), vscode.TreeItemCollapsibleState.Collapsed);
  item.id = elementId('folder', f.prefix);
  item.description = folderDescription(f, worst);
  const icon = worst && f.worstRank < 4 ? lockIcon(worst, false) : undefined;
  item.iconPath = icon ? new vscode.ThemeIcon('folder', new vscode.ThemeColor(icon.color)) : new vscode.ThemeIcon('folder');
  item.tooltip = vscode.l10n.t('Keys starting with {0}', printable(f.prefix));
  item.contextValue = 'folder;';
  item.accessibilityInformation = { label: `${printable(f.prefix)}: ${item.description}` };
  return item;
}

export function folderDescription(f: FolderSummary, worst: LockEntry | undefined): string {
  const count = f.count === 1 ? vscode.l10n.t('1 lock') : vscode.l10n.t('{0} locks', f.count.toLocaleString('en-US'));
  const word = worst ? worstWord(worst) : undefined;
  if (!word) return count;
  return f.attention === 1 ? vscode.l10n.t('{0} · 1 needs attention: {1}', count, word) : vscode.l10n.t('{0} · {1} need attention, worst: {2}', count, f.attention, word);
}
