// Lock details as a read-only JSON document (a virtual document: nothing to save, nothing
// to edit). The webview panel replaces it in a later issue.
import * as vscode from 'vscode';

export const DETAILS_SCHEME = 'redlock-lock';

export class LockDetails implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private seq = 0;
  private readonly registration: vscode.Disposable;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(DETAILS_SCHEME, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? '{}';
  }

  async open(key: string, value: unknown): Promise<vscode.TextDocument> {
    // The key only names the tab; the content is looked up by a sequence number.
    const name = key.replace(/[^\w.:-]+/g, '_').slice(0, 60) || 'lock';
    const uri = vscode.Uri.from({ scheme: DETAILS_SCHEME, path: `/${++this.seq}/${name}.json` });
    this.contents.set(uri.toString(), JSON.stringify(value, null, 2) + '\n');
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: true });
    return doc;
  }

  dispose(): void {
    this.registration.dispose();
    this.contents.clear();
  }
}
