// Shared by the extension-host tests: the extension's API, workspace settings, tree rows.
import * as assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import * as vscode from 'vscode';
import type { RedlockInspectorApi } from '../../../src/extension/extension';
import type { RedisServer } from '../../../src/dev/redisServer';
import type { LocksTreeElement } from '../../../src/extension/views/locksTree';
import { HEAD_SEPARATOR } from '../../../src/shared/lockRow';

export const EXTENSION_ID = 'redlock-inspector.redlock-inspector';

export async function getApi(): Promise<RedlockInspectorApi> {
  const ext = vscode.extensions.getExtension<RedlockInspectorApi>(EXTENSION_ID);
  assert.ok(ext, `${EXTENSION_ID} not installed`);
  return ext.activate();
}

export async function waitFor<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, ms = 8000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Writes workspace settings and waits until the extension host reads them back. */
export async function configure(values: Record<string, unknown>): Promise<void> {
  const config = vscode.workspace.getConfiguration('redlock');
  for (const [k, v] of Object.entries(values)) await config.update(k, v, vscode.ConfigurationTarget.Workspace);
  await waitFor('settings to apply', () =>
    Object.entries(values).every(([k, v]) => {
      const seen = vscode.workspace.getConfiguration('redlock').inspect(k)?.workspaceValue;
      return isDeepStrictEqual(seen, v);
    }),
  );
}

export const ALL_SETTINGS = ['nodes', 'connections', 'activeConnection', 'keyPatterns', 'refreshIntervalMs', 'driftFactor', 'expiringThresholdMs', 'maxKeys', 'readOnly', 'notifyOn'];

export async function resetSettings(): Promise<void> {
  await configure(Object.fromEntries(ALL_SETTINGS.map((k) => [k, undefined])));
}

export interface Row {
  el: LocksTreeElement;
  item: vscode.TreeItem;
  label: string;
  description: string;
  /** A lock row's headline (verdict and action flags), before the key. */
  verdict: string;
  /** The key as the row shows it (a node id for a copy row). */
  key: string;
  /** Headline and description in one line, as the rows read before the headline led. */
  summary: string;
}

export async function lockRows(api: RedlockInspectorApi, parent?: LocksTreeElement): Promise<Row[]> {
  const children = (await api.locksProvider.getChildren(parent)) ?? [];
  return Promise.all(
    children.map(async (el) => {
      const item = await api.locksProvider.getTreeItem(el);
      const label = typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
      const description = String(item.description ?? '');
      const cut = el.kind === 'lock' ? label.indexOf(HEAD_SEPARATOR) : -1;
      const verdict = cut < 0 ? '' : label.slice(0, cut);
      const key = cut < 0 ? label : label.slice(cut + HEAD_SEPARATOR.length);
      return { el, item, label, description, verdict, key, summary: verdict && description ? `${verdict} · ${description}` : verdict || description };
    }),
  );
}

/** What VS Code does when the pointer rests on a row: its tooltip is built then (and the row holds still). */
export async function hoverRow(api: RedlockInspectorApi, row: Row): Promise<vscode.MarkdownString | string | undefined> {
  return (await api.locksProvider.resolveTreeItem(row.item, row.el)).tooltip;
}

export async function rowOf(api: RedlockInspectorApi, key: string): Promise<Row> {
  const row = (await lockRows(api)).find((r) => 'key' in r.el && r.el.kind === 'lock' && r.el.key === key);
  assert.ok(row, `no tree item for ${key}; have ${(await lockRows(api)).map((r) => r.key).join(', ')}`);
  return row;
}

export function workspaceSettingsFile(): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the test workbench opens a workspace folder');
  return vscode.Uri.joinPath(folder.uri, '.vscode', 'settings.json');
}

export async function readText(uri: vscode.Uri): Promise<string> {
  try {
    return Buffer.from(await vscode.workspace.fs.readFile(uri)).toString('utf8');
  } catch {
    return '';
  }
}

/** Runs one command on every server, each through its own short-lived client. */
export async function onEvery(servers: RedisServer[], fn: (c: ReturnType<RedisServer['client']>) => Promise<unknown>): Promise<unknown[]> {
  return Promise.all(
    servers.map(async (s) => {
      const c = s.client();
      try {
        return await fn(c);
      } finally {
        c.disconnect();
      }
    }),
  );
}
