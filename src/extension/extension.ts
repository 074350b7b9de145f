import * as vscode from 'vscode';

export interface RedlockInspectorApi {
  readonly version: string;
}

export function activate(_context: vscode.ExtensionContext): RedlockInspectorApi {
  return { version: '0.1.0' };
}

export function deactivate(): void {
  /* nothing yet */
}
