// What every command needs, passed explicitly instead of module-level singletons.
import type * as vscode from 'vscode';
import type { LockModel } from './model/lockModel';
import type { LocksTreeProvider } from './views/locksTree';
import type { Log } from './log';
import type { MineLocks } from './model/mineLocks';
import type { PasswordStore } from './model/passwords';
import type { LockDetailsPanels } from './panel/lockDetailsPanel';
import type { WriteGuard } from './model/writeGuard';

export interface Services {
  model: LockModel;
  mine: MineLocks;
  locks: LocksTreeProvider;
  locksView: vscode.TreeView<unknown>;
  passwords: PasswordStore;
  log: Log;
  detailPanels: LockDetailsPanels;
  /** Production connections whose writes the user allowed for this session. */
  guard: WriteGuard;
  /** The workspace's memory: view toggles, what was notified. */
  workspaceState: vscode.Memento;
}
