// Node passwords live in SecretStorage only, keyed by node id (never in settings or logs).
import * as vscode from 'vscode';

const PREFIX = 'redlock.password:';

export class PasswordStore {
  readonly onDidChange: vscode.Event<string>;
  private readonly emitter = new vscode.EventEmitter<string>();

  constructor(private readonly secrets: vscode.SecretStorage) {
    this.onDidChange = this.emitter.event;
    secrets.onDidChange((e) => {
      if (e.key.startsWith(PREFIX)) this.emitter.fire(e.key.slice(PREFIX.length));
    });
  }

  get(nodeId: string): Thenable<string | undefined> {
    return this.secrets.get(PREFIX + nodeId);
  }

  async set(nodeId: string, password: string): Promise<void> {
    await this.secrets.store(PREFIX + nodeId, password);
    this.emitter.fire(nodeId);
  }

  async delete(nodeId: string): Promise<void> {
    await this.secrets.delete(PREFIX + nodeId);
    this.emitter.fire(nodeId);
  }
}
