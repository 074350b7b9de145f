// Node list and passwords. URLs go to settings without their password; passwords go to
// SecretStorage only.
import * as vscode from 'vscode';
import { parseNodeUrl } from '../../core';
import { field, isString, nodeIdOf } from './commandArgs';
import { normalizeNodeSetting, splitPassword } from '../model/nodeSettings';
import type { Services } from '../services';
import { nodesTarget } from '../model/settings';

/** `127.0.0.1:7201`, `[::1]:7201` or `host:6379/2` as typed: the redis:// they mean. */
export function withScheme(v: string): string {
  const t = v.trim();
  return /^(\[[0-9A-Fa-f:.]+\]|[^\s:/@[\]]+):\d+(\/\d+)?$/.test(t) ? `redis://${t}` : t;
}

function validateUrl(v: string, name?: string): string | undefined {
  if (v.trim() === '') return 'Enter a node URL, e.g. redis://127.0.0.1:6379';
  try {
    parseNodeUrl(withScheme(v), name);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

function currentNodes(): unknown[] {
  return vscode.workspace.getConfiguration('redlock').get<unknown[]>('nodes', []) ?? [];
}

function idOf(entry: unknown): string | undefined {
  const n = normalizeNodeSetting(entry);
  if (!n) return undefined;
  try {
    return parseNodeUrl(n.url, n.name).id;
  } catch {
    return undefined;
  }
}

export async function addNode(s: Services, arg?: unknown): Promise<{ id: string } | { error: string } | undefined> {
  let url = typeof arg === 'string' ? arg : field(arg, 'url', isString);
  const name = field(arg, 'name', isString) || undefined;
  url ??= await vscode.window.showInputBox({
    title: vscode.l10n.t('Add Redis Node'),
    prompt: vscode.l10n.t('Node URL, or host:port for redis://host:port: {0}. A password here goes to SecretStorage, not to settings.', 'redis://host:port[/db], rediss://, redis+sentinel://host:port/master, redis+cluster://host:port (rediss+sentinel://, rediss+cluster:// over TLS)'),
    placeHolder: 'redis://127.0.0.1:6379',
    ignoreFocusOut: true,
    validateInput: (v) => validateUrl(v, name),
  });
  if (url === undefined) return undefined;
  url = withScheme(url);
  const invalid = validateUrl(url, name);
  if (invalid) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Redlock: {0}', invalid));
    return { error: invalid };
  }
  const { url: bare, password } = splitPassword(url);
  const id = parseNodeUrl(bare, name).id;
  const nodes = currentNodes();
  if (nodes.some((n) => idOf(n) === id)) {
    const error = `node ${id} is already configured`;
    void vscode.window.showWarningMessage(vscode.l10n.t('Redlock: node {0} is already configured.', id));
    return { error };
  }
  if (password !== undefined) await s.passwords.set(id, password);
  const target = nodesTarget();
  await vscode.workspace.getConfiguration('redlock').update('nodes', [...nodes, name ? { name, url: bare } : bare], target);
  // Say where it went: a workspace's .vscode/settings.json may be committed and shared.
  const where =
    target === vscode.ConfigurationTarget.Global
      ? vscode.l10n.t('your user settings')
      : target === vscode.ConfigurationTarget.WorkspaceFolder
        ? vscode.l10n.t('the folder\'s .vscode/settings.json')
        : vscode.l10n.t('the workspace settings (.vscode/settings.json)');
  s.log.info(`added node ${id} to ${where}${password !== undefined ? ' (password stored in SecretStorage)' : ''}`);
  void vscode.window.showInformationMessage(vscode.l10n.t('Redlock: added node {0} to {1} (redlock.nodes).', id, where));
  await s.model.refresh({ facts: true });
  return { id };
}

async function pickNode(s: Services, title: string): Promise<string | undefined> {
  const ids = s.model.configuredNodes.map((n) => n.id);
  if (ids.length === 0) return undefined;
  const pick = await vscode.window.showQuickPick(ids, { title });
  return pick;
}

export async function removeNode(s: Services, arg?: unknown): Promise<{ id: string } | undefined> {
  const id = nodeIdOf(arg) ?? (await pickNode(s, vscode.l10n.t('Remove Redis Node')));
  if (id === undefined) return undefined;
  const config = vscode.workspace.getConfiguration('redlock');
  const inspected = config.inspect<unknown[]>('nodes');
  // Remove it from every scope that lists it, so it does not reappear from another one.
  const scopes: Array<[unknown[] | undefined, vscode.ConfigurationTarget]> = [
    [inspected?.workspaceFolderValue, vscode.ConfigurationTarget.WorkspaceFolder],
    [inspected?.workspaceValue, vscode.ConfigurationTarget.Workspace],
    [inspected?.globalValue, vscode.ConfigurationTarget.Global],
  ];
  let removed = false;
  for (const [value, target] of scopes) {
    if (!Array.isArray(value)) continue;
    const kept = value.filter((n) => idOf(n) !== id);
    if (kept.length !== value.length) {
      await config.update('nodes', kept, target);
      removed = true;
    }
  }
  if (!removed) {
    void vscode.window.showWarningMessage(vscode.l10n.t('Redlock: node {0} is not in redlock.nodes.', id));
    return undefined;
  }
  await s.passwords.delete(id);
  s.log.info(`removed node ${id}`);
  await s.model.refresh({ facts: true });
  return { id };
}

/** The passphrase of a node's TLS client key (tls.key in its settings), into SecretStorage. */
export async function setTlsPassphrase(s: Services, arg?: unknown): Promise<{ id: string; cleared: boolean } | undefined> {
  const id = nodeIdOf(arg) ?? (await pickNode(s, vscode.l10n.t('Set TLS Key Passphrase for Node')));
  if (id === undefined) return undefined;
  let passphrase = field(arg, 'passphrase', isString);
  passphrase ??= await vscode.window.showInputBox({
    title: vscode.l10n.t('TLS key passphrase for {0}', id),
    prompt: vscode.l10n.t('The passphrase of the client key in this node\'s "tls.key" setting. Stored in VS Code SecretStorage (never in settings or logs). Leave empty to remove it.'),
    password: true,
    ignoreFocusOut: true,
  });
  if (passphrase === undefined) return undefined;
  await s.passwords.setPassphrase(id, passphrase);
  s.log.info(passphrase === '' ? `TLS key passphrase removed for node ${id}` : `TLS key passphrase stored for node ${id}`);
  await s.model.refresh({ facts: true });
  return { id, cleared: passphrase === '' };
}

export async function setPassword(s: Services, arg?: unknown): Promise<{ id: string; cleared: boolean } | undefined> {
  const id = nodeIdOf(arg) ?? (await pickNode(s, vscode.l10n.t('Set Password for Node')));
  if (id === undefined) return undefined;
  let password = field(arg, 'password', isString);
  password ??= await vscode.window.showInputBox({
    title: vscode.l10n.t('Password for {0}', id),
    prompt: vscode.l10n.t('Stored in VS Code SecretStorage (never in settings or logs). Leave empty to remove it.'),
    password: true,
    ignoreFocusOut: true,
  });
  if (password === undefined) return undefined;
  if (password === '') await s.passwords.delete(id);
  else await s.passwords.set(id, password);
  s.log.info(password === '' ? `password removed for node ${id}` : `password stored for node ${id}`);
  await s.model.refresh({ facts: true });
  return { id, cleared: password === '' };
}
