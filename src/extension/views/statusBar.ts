// Lock and anomaly counts; a warning background while any anomaly exists.
import * as vscode from 'vscode';
import type { DeploymentDoctor } from '../model/deployment';
import type { LockModel } from '../model/lockModel';
import { isAnomaly } from '../../shared/lockOrder';

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
    const snap = this.model.snapshot;
    const locks = snap?.locks.length ?? 0;
    const anomalies = snap?.locks.filter(isAnomaly).length ?? 0;
    const error = this.model.error;
    const unsafe = this.doctor?.errorCount ?? 0;
    this.item.text = `$(lock) ${locks}${snap?.truncated ? '+' : ''}${anomalies ? ` $(warning) ${anomalies}` : ''}${unsafe ? ` $(shield) ${unsafe}` : ''}${error ? ' $(error)' : ''}${this.model.isPaused ? ' $(debug-pause)' : ''}`;
    const count = locks === 1 ? vscode.l10n.t('Redlock: 1 lock') : vscode.l10n.t('Redlock: {0} locks', locks);
    const odd = !anomalies ? '' : anomalies === 1 ? vscode.l10n.t(', 1 anomaly (split, partial, unknown or no TTL)') : vscode.l10n.t(', {0} anomalies (split, partial, unknown or no TTL)', anomalies);
    const deployment = !unsafe
      ? ''
      : unsafe === 1
        ? vscode.l10n.t('; deployment: 1 error found by the doctor (see Nodes > Deployment)')
        : vscode.l10n.t('; deployment: {0} errors found by the doctor (see Nodes > Deployment)', unsafe);
    this.item.tooltip = error ? vscode.l10n.t('Redlock: {0}', error) : `${count}${odd}${this.model.isPaused ? vscode.l10n.t(' (paused)') : ''}${deployment}`;
    this.item.backgroundColor = anomalies > 0 || error || unsafe ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.show();
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
