// Node passwords and TLS key passphrases live in SecretStorage only, keyed by node id
// (never in settings or logs).
import * as vscode from 'vscode';

const PREFIX = 'redlock.password:';
const PASSPHRASE = 'redlock.tlsPassphrase:';

export class PasswordStore {
  readonly onDidChange: vscode.Event<string>;
  private readonly emitter = new vscode.EventEmitter<string>();

  constructor(private readonly secrets: vscode.SecretStorage) {
    this.onDidChange = this.emitter.event;
    secrets.onDidChange((e) => {
      if (e.key.startsWith(PREFIX)) this.emitter.fire(e.key.slice(PREFIX.length));
      else if (e.key.startsWith(PASSPHRASE)) this.emitter.fire(e.key.slice(PASSPHRASE.length));
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
    await this.secrets.delete(PASSPHRASE + nodeId);
    this.emitter.fire(nodeId);
  }

  /** The passphrase of the node's TLS client key, if it has one. */
  passphrase(nodeId: string): Thenable<string | undefined> {
    return this.secrets.get(PASSPHRASE + nodeId);
  }

  async setPassphrase(nodeId: string, passphrase: string): Promise<void> {
    if (passphrase === '') await this.secrets.delete(PASSPHRASE + nodeId);
    else await this.secrets.store(PASSPHRASE + nodeId, passphrase);
    this.emitter.fire(nodeId);
  }
}
