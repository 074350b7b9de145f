// Every write command asks here first: `redlock.readOnly` refuses before touching a node,
// and a production connection refuses until the user allows writes to it for the session
// (model/writeGuard.ts).
import * as vscode from 'vscode';
import { readSettings } from '../model/settings';
import type { Services } from '../services';
import { field, isBoolean } from './commandArgs';

export interface Refused {
  refused: 'read-only' | 'production';
}

/**
 * undefined: go ahead. `arg.allowWrites` (tests, other extensions) answers the production
 * question without a dialog: true allows writes for the session, false refuses.
 */
export async function refuseWrite(s: Services, verb: string, arg?: unknown): Promise<Refused | undefined> {
  const settings = readSettings();
  if (settings.readOnly) {
    s.log.warn(`${verb} refused: redlock.readOnly is on`);
    void vscode.window.showWarningMessage(vscode.l10n.t('Redlock is read-only (redlock.readOnly): {0} refused.', verb));
    return { refused: 'read-only' };
  }
  const connection = settings.connection;
  if (!connection?.production || s.guard.isAllowed(connection.name)) return undefined;
  let allow = field(arg, 'allowWrites', isBoolean);
  if (allow === undefined) {
    const action = vscode.l10n.t('Allow Writes');
    const pick = await vscode.window.showWarningMessage(
      vscode.l10n.t('{0} is a production connection. Allow writes to it for this session?', connection.name),
      { modal: true, detail: vscode.l10n.t('Acquire, extend, release and force release will write to its nodes until this window closes.') },
      action,
    );
    allow = pick === action;
  }
  if (!allow) {
    s.log.warn(`${verb} refused: ${connection.name} is a production connection and writes were not allowed`);
    return { refused: 'production' };
  }
  s.guard.allow(connection.name);
  s.log.info(`writes allowed on production connection ${connection.name} for this session`);
  return undefined;
}
