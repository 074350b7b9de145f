// The `redlock.*` settings, read fresh each time (VS Code caches the configuration).
import * as vscode from 'vscode';
import { DEFAULT_PATTERNS } from '../../core/vocabulary';

export type NotifyOn = 'split' | 'no-ttl' | 'lost';

export interface Settings {
  nodes: unknown[];
  keyPatterns: string[];
  refreshIntervalMs: number;
  driftFactor: number;
  expiringThresholdMs: number;
  maxKeys: number;
  readOnly: boolean;
  notifyOn: NotifyOn[];
}

function num(v: unknown, fallback: number, min: number, max: number): number {
  return typeof v === 'number' && Number.isFinite(v) ? Math.min(max, Math.max(min, v)) : fallback;
}

export function readSettings(): Settings {
  const c = vscode.workspace.getConfiguration('redlock');
  const patterns = c.get<unknown[]>('keyPatterns', [...DEFAULT_PATTERNS]).filter((p): p is string => typeof p === 'string' && p !== '');
  return {
    nodes: c.get<unknown[]>('nodes', []) ?? [],
    keyPatterns: patterns.length > 0 ? patterns : [...DEFAULT_PATTERNS],
    // The manifest's minimum is only a hint to the editor: a hand-edited 0 must not spin.
    refreshIntervalMs: Math.round(num(c.get('refreshIntervalMs'), 2000, 250, 3_600_000)),
    driftFactor: num(c.get('driftFactor'), 0.01, 0, 0.5),
    expiringThresholdMs: Math.round(num(c.get('expiringThresholdMs'), 2000, 0, 2 ** 31 - 1)),
    maxKeys: Math.round(num(c.get('maxKeys'), 10_000, 1, 1_000_000)),
    readOnly: c.get<boolean>('readOnly', false) === true,
    notifyOn: (c.get<unknown[]>('notifyOn', ['split', 'no-ttl']) ?? []).filter((x): x is NotifyOn => x === 'split' || x === 'no-ttl' || x === 'lost'),
  };
}

/** Where a node list edit goes: the workspace when one is open, else the user settings. */
export function nodesTarget(): vscode.ConfigurationTarget {
  const inspected = vscode.workspace.getConfiguration('redlock').inspect<unknown[]>('nodes');
  if (inspected?.workspaceFolderValue !== undefined) return vscode.ConfigurationTarget.WorkspaceFolder;
  if (inspected?.workspaceValue !== undefined || vscode.workspace.workspaceFolders?.length) return vscode.ConfigurationTarget.Workspace;
  return vscode.ConfigurationTarget.Global;
}
