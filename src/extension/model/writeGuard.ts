// Writes to a production connection: refused until the user allows them for this session
// (this window, until it closes), as a production database tool asks before its first
// write. The connection's name shows in the status bar, in a colour, either way.
import * as vscode from 'vscode';

export class WriteGuard implements vscode.Disposable {
  private readonly allowed = new Set<string>();
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChange = this.emitter.event;

  /** Whether writes to the production connection `name` were allowed in this session. */
  isAllowed(name: string): boolean {
    return this.allowed.has(name);
  }

  allow(name: string): void {
    if (this.allowed.has(name)) return;
    this.allowed.add(name);
    this.emitter.fire();
  }

  dispose(): void {
    this.emitter.dispose();
  }
}
