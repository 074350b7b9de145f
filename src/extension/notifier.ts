// Optional notifications (redlock.notifyOn) when a split or a lock without TTL appears,
// and an offer to set a password when a node answers NOAUTH/WRONGPASS.
import * as vscode from 'vscode';
import { describeVerdict, type LockEntry } from '../core';
import type { Log } from './log';
import type { LockModel, ModelChange } from './lockModel';
import { printable } from './markdown';
import { isAuthError } from './nodeSettings';
import { readSettings, type NotifyOn } from './settings';

const CONDITIONS: Record<NotifyOn, (e: LockEntry) => boolean> = {
  split: (e) => e.verdict === 'split',
  'no-ttl': (e) => e.flags.includes('no-ttl'),
};

export class Notifier implements vscode.Disposable {
  private readonly subscription: vscode.Disposable;
  private readonly askedPassword = new Set<string>();
  /** Everything notified so far, newest last (for tests). */
  readonly sent: string[] = [];

  constructor(private readonly model: LockModel, private readonly log: Log) {
    this.subscription = vscode.Disposable.from(
      model.onDidChange((c) => this.onChange(c)),
      model.onDidChangeNodes(() => this.checkAuth()),
    );
  }

  private onChange(c: ModelChange): void {
    const wanted = readSettings().notifyOn;
    if (wanted.length === 0) return;
    for (const key of [...c.added, ...c.changed]) {
      const e = this.model.entry(key);
      if (!e) continue;
      for (const kind of wanted) {
        const old = c.before.get(key);
        if (CONDITIONS[kind](e) && !(old && CONDITIONS[kind](old))) this.notify(kind, e);
      }
    }
  }

  private notify(kind: NotifyOn, e: LockEntry): void {
    const what = kind === 'split' ? 'has two or more holders' : 'has a copy that never expires';
    const message = `${printable(e.key)} ${what} (${describeVerdict(e, e.nodes.length)}).`;
    this.sent.push(`${kind}: ${e.key}`);
    this.log.warn(`notify ${kind}: ${message}`);
    void vscode.window.showWarningMessage(`Redlock: ${message}`, 'Show').then((pick) => {
      if (pick) void vscode.commands.executeCommand('redlock.locks.focus');
    });
  }

  private checkAuth(): void {
    for (const n of this.model.snapshot?.nodes ?? []) {
      if (n.reachable || !isAuthError(n.error) || this.askedPassword.has(n.node)) continue;
      this.askedPassword.add(n.node);
      this.sent.push(`auth: ${n.node}`);
      void vscode.window.showWarningMessage(`Redlock: node ${n.node} needs a password (${n.error}).`, 'Set Password').then((pick) => {
        if (pick) void vscode.commands.executeCommand('redlock.setPassword', { id: n.node });
      });
    }
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
