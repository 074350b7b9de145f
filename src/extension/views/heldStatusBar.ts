// "Holding N locks": shown while this window holds a lock, so a lock kept extending is never
// forgotten; a click offers Release and Stop extending (redlock.showHeld).
import * as vscode from 'vscode';
import type { MineLocks } from '../model/mineLocks';

export class HeldStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('redlock.held', vscode.StatusBarAlignment.Left, 49);
  private readonly subscription: vscode.Disposable;

  constructor(private readonly mine: MineLocks) {
    this.item.name = vscode.l10n.t('Redlock: locks held by this window');
    this.item.command = 'redlock.showHeld';
    this.subscription = mine.onDidChange(() => this.update());
    this.update();
  }

  get text(): string {
    return this.item.text;
  }

  get visible(): boolean {
    return this.mine.all().length > 0;
  }

  update(): void {
    const all = this.mine.all();
    void vscode.commands.executeCommand('setContext', 'redlock.holdsLocks', all.length > 0);
    void vscode.commands.executeCommand('setContext', 'redlock.extendsLocks', all.some((m) => m.extending));
    if (all.length === 0) {
      this.item.hide();
      return;
    }
    const extending = all.filter((m) => m.extending).length;
    const holding = all.length === 1 ? vscode.l10n.t('holding 1 lock') : vscode.l10n.t('holding {0} locks', all.length);
    const kept = extending === 0 ? '' : extending === all.length ? vscode.l10n.t(', kept extending') : vscode.l10n.t(', {0} kept extending', extending);
    this.item.text = `$(account) ${holding}${kept}`;
    this.item.tooltip = vscode.l10n.t('Redlock: {0}{1}. Click to release or stop extending; closing the window releases them.', holding, kept);
    this.item.show();
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
