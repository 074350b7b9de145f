// The Locks view's lock rows and their node rows. A key has one row in the list (at the
// root or in its folder) and, while it needs attention, a second one in that group: two
// elements with their own ids, memoized per key so that onDidChangeTreeData can fire the
// same objects VS Code holds (it finds rows by identity).
import * as vscode from 'vscode';
import { elementId } from './treeIds';

export class LockElement {
  readonly kind = 'lock';
  /** What the tree shows now, to tell whether the countdown changed it. */
  rendered = '';
  /** Expanded by the user. */
  open = false;
  /** Selected by the user. */
  selected = false;
  /** When its tooltip was last resolved; the row holds still for HOVER_HOLD_MS after. */
  hoveredAt = Number.NEGATIVE_INFINITY;
  /** rowGist() of what the tree shows now. */
  gist = '';
  readonly copies = new Map<string, CopyElement>();
  /** inAttention: the row in the "Needs attention" group, not the one in the list. */
  constructor(readonly key: string, readonly inAttention = false) {}

  /** Expanded or selected: counts down live whatever its time left. */
  get watched(): boolean {
    return this.open || this.selected;
  }

  get id(): string {
    return this.inAttention ? elementId('attention', this.key) : elementId('lock', this.key);
  }
}

export class CopyElement {
  readonly kind = 'copy';
  constructor(readonly parent: LockElement, readonly node: string) {}
  get key(): string {
    return this.parent.key;
  }
}

export class LoadMoreElement {
  readonly kind = 'more';
}

export function loadMoreItem(): vscode.TreeItem {
  const item = new vscode.TreeItem(vscode.l10n.t('Load more…'), vscode.TreeItemCollapsibleState.None);
  item.id = elementId('more');
  item.description = vscode.l10n.t('the scan stopped at {0}', 'redlock.maxKeys');
  item.iconPath = new vscode.ThemeIcon('ellipsis');
  item.contextValue = 'more;';
  item.command = { command: 'redlock.loadMore', title: vscode.l10n.t('Load More Keys') };
  return item;
}
