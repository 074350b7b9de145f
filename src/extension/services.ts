// What every command needs, passed explicitly instead of module-level singletons.
import type * as vscode from 'vscode';
import type { LockModel } from './lockModel';
import type { LocksTreeProvider } from './locksTree';
import type { Log } from './log';
import type { MineLocks } from './mineLocks';
import type { PasswordStore } from './passwords';
import type { LockDetailsPanels } from './panel/lockDetailsPanel';

export interface Services {
  model: LockModel;
  mine: MineLocks;
  locks: LocksTreeProvider;
  locksView: vscode.TreeView<unknown>;
  passwords: PasswordStore;
  log: Log;
  detailPanels: LockDetailsPanels;
  /** The workspace's memory: view toggles, what was notified. */
  workspaceState: vscode.Memento;
}
