// `redlock.readOnly`: every write command refuses before touching a node.
import * as vscode from 'vscode';
import { readSettings } from '../model/settings';
import type { Log } from '../log';

export interface Refused {
  refused: 'read-only';
}

export function refuseIfReadOnly(log: Log, verb: string): Refused | undefined {
  if (!readSettings().readOnly) return undefined;
  log.warn(`${verb} refused: redlock.readOnly is on`);
  void vscode.window.showWarningMessage(vscode.l10n.t('Redlock is read-only (redlock.readOnly): {0} refused.', verb));
  return { refused: 'read-only' };
}
