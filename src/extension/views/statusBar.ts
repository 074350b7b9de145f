// Lock count and the locks that need attention, in words (the CLI summary's count, one
// definition: src/shared/lockOrder.ts needsAttention, counted by the model as entries
// change); a warning background while any does.
import * as vscode from 'vscode';
import type { DeploymentDoctor } from '../model/deployment';
import type { LockModel } from '../model/lockModel';

export class LockStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('redlock.status', vscode.StatusBarAlignment.Left, 50);
  private readonly subscription: vscode.Disposable;

  constructor(private readonly model: LockModel, private readonly doctor?: DeploymentDoctor) {
    this.item.name = 'Redlock';
    this.item.command = 'redlock.locks.focus';
    this.subscription = vscode.Disposable.from(
      model.onDidChange(() => this.update()),
      model.onDidChangeState(() => this.update()),
      doctor?.onDidChange(() => this.update()) ?? new vscode.Disposable(() => undefined),
    );
    this.update();
  }

  get text(): string {
    return this.item.text;
  }

  get warning(): boolean {
    return this.item.backgroundColor !== undefined;
  }

  update(): void {
    if (this.model.configuredNodes.length === 0 && !this.model.configError) {
      this.item.hide();
      return;
    }
    const locks = this.model.lockCount;
    const attention = this.model.attentionCount;
    const error = this.model.error;
    const unsafe = this.doctor?.errorCount ?? 0;
    const truncated = this.model.truncated;
    const count = `${locks}${truncated ? '+' : ''}`;
    const lockWords = locks === 1 && !truncated ? vscode.l10n.t('1 lock') : vscode.l10n.t('{0} locks', count);
    const attentionWords = !attention ? '' : attention === 1 ? vscode.l10n.t(', 1 needs attention') : vscode.l10n.t(', {0} need attention', attention);
    const deployment = !unsafe ? '' : unsafe === 1 ? vscode.l10n.t(', 1 deployment error') : vscode.l10n.t(', {0} deployment errors', unsafe);
    this.item.text = `$(lock) ${lockWords}${attentionWords}${deployment}${error ? ' $(error)' : ''}${this.model.isPaused ? ' $(debug-pause)' : ''}`;
    const why = attention ? vscode.l10n.t(' Need attention: split, partial, unknown, no TTL, TTL skew or a node down (as the CLI counts them).') : '';
    const where = unsafe ? vscode.l10n.t(' Deployment errors: see Nodes > Deployment.') : '';
    this.item.tooltip = error ? vscode.l10n.t('Redlock: {0}', error) : `Redlock: ${lockWords}${attentionWords}${deployment}${this.model.isPaused ? vscode.l10n.t(' (paused)') : ''}.${why}${where}`;
    this.item.backgroundColor = attention > 0 || error || unsafe ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.show();
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
