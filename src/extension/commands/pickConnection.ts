// Redlock: Pick Connection: one of `redlock.connections`, or `redlock.nodes` itself; the
// choice is `redlock.activeConnection` in the workspace (the user settings without one).
import * as vscode from 'vscode';
import { readConnections, readSettings } from '../model/settings';
import { field, isString } from './commandArgs';

/** The name picked ('' for `redlock.nodes`), or undefined when dismissed or unknown. */
export async function pickConnection(arg?: unknown): Promise<string | undefined> {
  const all = readConnections();
  let name = field(arg, 'name', isString) ?? (typeof arg === 'string' ? arg : undefined);
  if (name === undefined) {
    const active = readSettings().connection?.name ?? '';
    const items = [
      { label: vscode.l10n.t('Nodes from redlock.nodes'), name: '', description: active === '' ? vscode.l10n.t('active') : undefined },
      ...all.map((c) => ({ label: c.name, name: c.name, description: [c.production ? vscode.l10n.t('production') : '', c.name === active ? vscode.l10n.t('active') : ''].filter(Boolean).join(' · ') || undefined, detail: vscode.l10n.t('{0} nodes', c.nodes.length) })),
    ];
    const pick = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Redlock: Pick Connection') });
    name = pick?.name;
  }
  if (name === undefined) return undefined;
  if (name !== '' && !all.some((c) => c.name === name)) {
    void vscode.window.showWarningMessage(vscode.l10n.t('Redlock: no connection named {0} in redlock.connections.', name));
    return undefined;
  }
  const target = vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await vscode.workspace.getConfiguration('redlock').update('activeConnection', name, target);
  return name;
}
