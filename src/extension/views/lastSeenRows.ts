// The Locks view's folders as the last live read of this workspace left them, shown at
// startup until the first read answers (docs/extension.md, "Startup"). They carry counts
// only, never a verdict, an icon of one or a "Needs attention" group: a verdict is what the
// nodes answer now (DESIGN: verdicts), and these rows say plainly that they are not live.
import * as vscode from 'vscode';
import { printable } from '../words/markdown';
import { elementId } from './treeIds';

/** workspaceState: the root's folders at the last live read, for the same nodes and patterns. */
export const LAST_SEEN_STATE = 'redlock.lastSeenRoot';

export interface LastSeen {
  /** The nodes, connection and patterns the counts were read under. */
  readonly scope: string;
  /** Epoch ms of that read. */
  readonly at: number;
  readonly folders: ReadonlyArray<readonly [prefix: string, count: number]>;
}

export class LastSeenElement {
  readonly kind = 'lastSeen';
  constructor(readonly prefix: string, readonly count: number, readonly at: number) {}
}

export function lastSeenElements(memory: vscode.Memento, scope: string): LastSeenElement[] {
  const saved = memory.get<LastSeen>(LAST_SEEN_STATE);
  if (!saved || saved.scope !== scope) return [];
  return saved.folders.map(([prefix, count]) => new LastSeenElement(prefix, count, saved.at));
}

/** Kept only when the folders changed: a workspaceState write per root refresh at most. */
export function saveLastSeen(memory: vscode.Memento, scope: string, folders: LastSeen['folders']): void {
  const saved = memory.get<LastSeen>(LAST_SEEN_STATE);
  if (saved?.scope === scope && JSON.stringify(saved.folders) === JSON.stringify(folders)) return;
  void memory.update(LAST_SEEN_STATE, folders.length ? { scope, at: Date.now(), folders } : undefined);
}

/** `lock:` · `10,000 locks at 14:02 · not live, reading…`: no verdict, no folder colour. */
export function lastSeenItem(el: LastSeenElement): vscode.TreeItem {
  const item = new vscode.TreeItem(printable(el.prefix), vscode.TreeItemCollapsibleState.None);
  item.id = elementId('lastSeen', el.prefix);
  const when = clockTime(el.at);
  const count = el.count === 1 ? vscode.l10n.t('1 lock') : vscode.l10n.t('{0} locks', el.count.toLocaleString('en-US'));
  item.description = vscode.l10n.t('{0} at {1} · not live, reading…', count, when);
  item.iconPath = new vscode.ThemeIcon('history');
  item.tooltip = vscode.l10n.t('Last seen at {0}, before this window started. The nodes are being read; verdicts show once they answer.', when);
  item.contextValue = 'lastSeen;';
  item.accessibilityInformation = { label: `${printable(el.prefix)}: ${item.description}` };
  return item;
}

/**
 * `14:02`, local time. Not toLocaleTimeString: its first call loads the locale data (20 ms
 * on a quiet machine, 50 ms in a busy extension host), on the path to the first rows.
 */
export function clockTime(at: number): string {
  const d = new Date(at);
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}
