// Failures shown to the user name every node and what it said.
import * as vscode from 'vscode';
import { RedlockError } from '../../core';
import type { Log } from '../log';

export function describeError(e: unknown): string {
  if (e instanceof RedlockError) {
    const nodes = e.nodes.map((n) => `${n.node}: ${n.outcome}${n.heldBy ? ` (held by ${n.heldBy.length > 16 ? n.heldBy.slice(0, 12) + '…' : n.heldBy})` : ''}${n.reason ? ` (${n.reason})` : ''}`);
    const granted = e.nodes.filter((n) => n.outcome === 'granted').length;
    return `${e.detail ?? `${granted} of ${e.nodes.length} nodes granted, ${e.quorum} needed`}. ${nodes.join('; ')}`;
  }
  return e instanceof Error ? e.message : String(e);
}

export function reportFailure(log: Log, what: string, e: unknown): string {
  const message = `${what} failed: ${describeError(e)}`;
  log.error(message);
  void vscode.window.showErrorMessage(vscode.l10n.t('Redlock: {0} failed: {1}', what, describeError(e)), vscode.l10n.t('Show Log')).then((pick) => {
    if (pick) void vscode.commands.executeCommand('redlock.showLog');
  });
  return message;
}
