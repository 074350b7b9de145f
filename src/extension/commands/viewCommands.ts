// Reading commands: refresh, pause/resume, filter, load more, copy, details, log.
import * as vscode from 'vscode';
import { sortLocks } from '../../shared/lockOrder';
import type { DoctorReport, Snapshot } from '../../core';
import type { DeploymentDoctor } from '../model/deployment';
import { field, isString, keyOf, nodeIdOf } from './commandArgs';
import { reportFailure } from '../words/failures';
import { CopyElement, LockElement } from '../views/locksTree';
import { printable } from '../words/markdown';
import type { LockDetailsPanel } from '../panel/lockDetailsPanel';
import type { Services } from '../services';

export async function refresh(s: Services): Promise<Snapshot | undefined> {
  return vscode.window.withProgress({ location: { viewId: 'redlock.locks' } }, () => s.model.refresh({ facts: true }));
}

export function pause(s: Services): void {
  s.model.setPaused(true);
}

export function resume(s: Services): void {
  s.model.setPaused(false);
  void s.model.refresh();
}

export async function filter(s: Services, arg?: unknown): Promise<string | undefined> {
  let glob = typeof arg === 'string' ? arg : field(arg, 'glob', isString);
  glob ??= await vscode.window.showInputBox({
    title: vscode.l10n.t('Filter Keys'),
    prompt: vscode.l10n.t('Show keys matching a glob ({0}) or containing the text; empty shows all', '* ? [abc]'),
    value: s.locks.filter,
  });
  if (glob === undefined) return undefined;
  s.locks.setFilter(glob);
  describeView(s);
  void vscode.commands.executeCommand('setContext', 'redlock.filtered', s.locks.filter !== '');
  return s.locks.filter;
}

/** Where the workspace remembers the view's "anomalies only" toggle. */
export const ANOMALIES_ONLY_STATE = 'redlock.anomaliesOnly';

/** The view title's toggle; remembered per workspace, its icon follows a context key. */
export async function setAnomaliesOnly(s: Services, on: boolean): Promise<boolean> {
  s.locks.setAnomaliesOnly(on);
  describeView(s);
  await Promise.all([
    s.workspaceState.update(ANOMALIES_ONLY_STATE, on),
    vscode.commands.executeCommand('setContext', 'redlock.anomaliesOnly', on),
  ]);
  return on;
}

/** The view's title says what hides rows: the key filter and the anomalies toggle. */
export function describeView(s: Services): void {
  const parts: string[] = [];
  if (s.locks.anomaliesOnly) parts.push(vscode.l10n.t('anomalies only'));
  if (s.locks.filter) parts.push(vscode.l10n.t('filter: {0}', printable(s.locks.filter)));
  s.locksView.description = parts.length > 0 ? parts.join(' · ') : undefined;
}

export async function loadMore(s: Services): Promise<Snapshot | undefined> {
  try {
    return await vscode.window.withProgress({ location: { viewId: 'redlock.locks' } }, () => s.model.loadMore());
  } catch (e) {
    reportFailure(s.log, 'load more', e);
    return undefined;
  }
}

export async function copyKey(_s: Services, arg?: unknown): Promise<string | undefined> {
  const key = keyOf(arg);
  if (key === undefined) return undefined;
  await vscode.env.clipboard.writeText(key);
  return key;
}

/** A node row copies its own token; a lock copies its holder's (asking which when split). */
export async function copyToken(s: Services, arg?: unknown): Promise<string | undefined> {
  const key = keyOf(arg);
  if (key === undefined) return undefined;
  const entry = s.model.entry(key);
  if (!entry) return undefined;
  let token: string | undefined;
  const node = arg instanceof CopyElement ? arg.node : arg instanceof LockElement ? undefined : nodeIdOf(arg);
  if (node !== undefined) token = entry.nodes.find((o) => o.node === node)?.token ?? undefined;
  else {
    // Read once: an entry's holders are counted from its copies at each read.
    const holders = entry.holders;
    const tokens = Object.keys(holders).sort((a, b) => holders[b] - holders[a]);
    if (tokens.length <= 1) token = tokens[0];
    else {
      const pick = await vscode.window.showQuickPick(
        tokens.map((t) => ({ label: printable(t), description: vscode.l10n.t('on {0} of {1} nodes', holders[t], entry.nodes.length), token: t })),
        { title: vscode.l10n.t('Copy which token of {0}?', printable(key)) },
      );
      token = pick?.token;
    }
  }
  if (token === undefined) return undefined;
  await vscode.env.clipboard.writeText(token);
  return token;
}

/** The lock detail panel: one per key, re-focused when already open. */
export async function openDetails(s: Services, arg?: unknown): Promise<LockDetailsPanel | undefined> {
  let key = keyOf(arg);
  if (key === undefined) {
    // Worst first, as the tree lists them.
    const pick = await vscode.window.showQuickPick(sortLocks(s.model.snapshot?.locks ?? []).map((e) => ({ label: printable(e.key), key: e.key })), { title: vscode.l10n.t('Open Lock Details') });
    if (!pick) return undefined;
    key = pick.key;
  }
  if (!s.model.entry(key)) {
    void vscode.window.showWarningMessage(vscode.l10n.t('Redlock: {0} is not in the current snapshot.', printable(key)));
    return undefined;
  }
  return s.detailPanels.show(key);
}

export function showLog(s: Services): void {
  s.log.show();
}

/** Runs the deployment doctor, shows the Nodes view's Deployment section, and sums it up. */
export async function runDoctor(doctor: DeploymentDoctor): Promise<DoctorReport | undefined> {
  void vscode.commands.executeCommand('redlock.nodes.focus');
  const report = await vscode.window.withProgress({ location: { viewId: 'redlock.nodes' } }, () => doctor.run());
  if (!report) {
    void vscode.window.showWarningMessage(vscode.l10n.t('Redlock: the deployment doctor could not run: {0}', doctor.error ? printable(doctor.error) : vscode.l10n.t('no node configured')));
    return undefined;
  }
  const n = (s: string): number => report.findings.filter((f) => f.severity === s).length;
  const summary = vscode.l10n.t('Redlock deployment: {0} error(s), {1} warning(s) (details in Nodes > Deployment).', n('error'), n('warning'));
  void (n('error') ? vscode.window.showWarningMessage(summary) : vscode.window.showInformationMessage(n('warning') ? summary : vscode.l10n.t('Redlock deployment: no problems found.')));
  return report;
}
