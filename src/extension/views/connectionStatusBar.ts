// The active named connection in the status bar: its name always, in the error colour
// while it is production and writes are refused, in the warning colour once the user
// allowed writes to it for the session. Hidden while the views read `redlock.nodes`.
import * as vscode from 'vscode';
import { readSettings } from '../model/settings';
import type { WriteGuard } from '../model/writeGuard';

export class ConnectionStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('redlock.connection', vscode.StatusBarAlignment.Left, 51);
  private readonly subscription: vscode.Disposable;

  constructor(private readonly guard: WriteGuard) {
    this.item.name = vscode.l10n.t('Redlock Connection');
    this.item.command = 'redlock.pickConnection';
    this.subscription = vscode.Disposable.from(
      guard.onDidChange(() => this.update()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('redlock')) this.update();
      }),
    );
    this.update();
  }

  get text(): string {
    return this.item.text;
  }

  /** 'error' (production, writes refused), 'warning' (production, writes allowed) or undefined. */
  get colour(): 'error' | 'warning' | undefined {
    const id = (this.item.backgroundColor as { id?: string } | undefined)?.id;
    return id === 'statusBarItem.errorBackground' ? 'error' : id === 'statusBarItem.warningBackground' ? 'warning' : undefined;
  }

  update(): void {
    const c = readSettings().connection;
    if (!c) {
      this.item.hide();
      return;
    }
    const allowed = c.production && this.guard.isAllowed(c.name);
    // The name is the user's own setting, shown as text (no $(icon) syntax in it is honoured).
    const name = c.name.replace(/\$\(/g, '$\u200b(');
    this.item.text = c.production ? `$(shield) ${name}${allowed ? vscode.l10n.t(' · writes allowed') : vscode.l10n.t(' · read-only')}` : `$(plug) ${name}`;
    this.item.tooltip = c.production
      ? allowed ? vscode.l10n.t('Redlock: production connection {0}; writes are allowed until this window closes. Click to pick another connection.', c.name)
        : vscode.l10n.t('Redlock: production connection {0}; writes are refused until you allow them. Click to pick another connection.', c.name)
      : vscode.l10n.t('Redlock: connection {0}. Click to pick another connection.', c.name);
    this.item.backgroundColor = c.production ? new vscode.ThemeColor(allowed ? 'statusBarItem.warningBackground' : 'statusBarItem.errorBackground') : undefined;
    this.item.show();
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
