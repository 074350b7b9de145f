// What the write commands share: progress, TTL validation, the missing-nodes answer.
import * as vscode from 'vscode';
import { validateTtl } from '../../core';
import { DURATION_FORMS, parseDurationMs } from '../../shared/duration';
import type { Services } from '../services';

export interface LockResult {
  key: string;
  token?: string;
  validityMs?: number;
  autoExtend?: boolean;
}

export type Failed = { error: string };

export function withProgress<T>(title: string, task: () => Promise<T>): Thenable<T> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: false }, task);
}

/** A TTL typed into a prompt, in the CLI's forms (`30000`, `30s`, `2m`); NaN when it is none. */
export function parseTtlText(v: string): number {
  return parseDurationMs(v.trim()) ?? Number.NaN;
}

export function validateTtlText(v: string): string | undefined {
  const n = parseTtlText(v);
  if (Number.isNaN(n)) return vscode.l10n.t('Enter a duration: {0}', DURATION_FORMS);
  try {
    validateTtl(n);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

export async function noRedlock(s: Services): Promise<Failed> {
  const message = s.model.configError ?? 'no Redis node is configured';
  const shown = s.model.configError ?? vscode.l10n.t('no Redis node is configured');
  void vscode.window.showErrorMessage(vscode.l10n.t('Redlock: {0}', shown), vscode.l10n.t('Add Node')).then((p) => p && vscode.commands.executeCommand('redlock.addNode'));
  return { error: message };
}
