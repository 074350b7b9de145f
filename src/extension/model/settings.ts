// The `redlock.*` settings, read fresh each time (VS Code caches the configuration).
import * as vscode from 'vscode';
import { DEFAULT_PATTERNS } from '../../core/vocabulary';

export type NotifyOn = 'split' | 'no-ttl' | 'lost';

/** The named connection the views read (`redlock.activeConnection`), as far as the rest needs it. */
export interface ActiveConnection {
  name: string;
  production: boolean;
}

export interface Settings {
  nodes: unknown[];
  /** Set when `redlock.activeConnection` names one of `redlock.connections`: its nodes and patterns are read. */
  connection: ActiveConnection | undefined;
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

/** One entry of `redlock.connections`, as far as it is well formed (the manifest's schema is only a hint). */
export interface ConnectionSetting {
  name: string;
  nodes: unknown[];
  production: boolean;
  patterns?: string[];
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((p): p is string => typeof p === 'string' && p !== '') : []);

export function readConnections(): ConnectionSetting[] {
  const raw = vscode.workspace.getConfiguration('redlock').get<unknown[]>('connections', []) ?? [];
  const out: ConnectionSetting[] = [];
  for (const r of Array.isArray(raw) ? raw : []) {
    if (!r || typeof r !== 'object') continue;
    const { name, nodes, production, patterns } = r as Record<string, unknown>;
    if (typeof name !== 'string' || name === '' || !Array.isArray(nodes) || out.some((c) => c.name === name)) continue;
    const p = strings(patterns);
    out.push({ name, nodes, production: production === true, ...(p.length ? { patterns: p } : {}) });
  }
  return out;
}

export function readSettings(): Settings {
  const c = vscode.workspace.getConfiguration('redlock');
  const active = c.get<string>('activeConnection', '');
  const connection = active ? readConnections().find((x) => x.name === active) : undefined;
  const patterns = connection?.patterns ?? strings(c.get<unknown[]>('keyPatterns', [...DEFAULT_PATTERNS]));
  return {
    nodes: connection ? connection.nodes : c.get<unknown[]>('nodes', []) ?? [],
    connection: connection ? { name: connection.name, production: connection.production } : undefined,
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
