// Node passwords and TLS key passphrases live in SecretStorage only, keyed by node id
// (never in settings or logs), and per named connection: the same host:port in dev and in
// prod keeps two passwords.
import * as vscode from 'vscode';

const PREFIX = 'redlock.password:';
const PASSPHRASE = 'redlock.tlsPassphrase:';

export class PasswordStore {
  readonly onDidChange: vscode.Event<string>;
  private readonly emitter = new vscode.EventEmitter<string>();
  /** The active connection's name ('' for `redlock.nodes`): secrets are read and written under it. */
  scope = '';

  constructor(private readonly secrets: vscode.SecretStorage) {
    this.onDidChange = this.emitter.event;
    secrets.onDidChange((e) => {
      const id = (rest: string): string => rest.slice(rest.indexOf('\u0000') + 1);
      if (e.key.startsWith(PREFIX)) this.emitter.fire(id(e.key.slice(PREFIX.length)));
      else if (e.key.startsWith(PASSPHRASE)) this.emitter.fire(id(e.key.slice(PASSPHRASE.length)));
    });
  }

  /** A NUL cannot be in a connection name typed in settings JSON by accident, nor in a node id. */
  private key(prefix: string, nodeId: string): string {
    return this.scope ? `${prefix}${this.scope}\u0000${nodeId}` : prefix + nodeId;
  }

  get(nodeId: string): Thenable<string | undefined> {
    return this.secrets.get(this.key(PREFIX, nodeId));
  }

  async set(nodeId: string, password: string): Promise<void> {
    await this.secrets.store(this.key(PREFIX, nodeId), password);
    this.emitter.fire(nodeId);
  }

  async delete(nodeId: string): Promise<void> {
    await this.secrets.delete(this.key(PREFIX, nodeId));
    await this.secrets.delete(this.key(PASSPHRASE, nodeId));
    this.emitter.fire(nodeId);
  }

  /** The passphrase of the node's TLS client key, if it has one. */
  passphrase(nodeId: string): Thenable<string | undefined> {
    return this.secrets.get(this.key(PASSPHRASE, nodeId));
  }

  async setPassphrase(nodeId: string, passphrase: string): Promise<void> {
    if (passphrase === '') await this.secrets.delete(this.key(PASSPHRASE, nodeId));
    else await this.secrets.store(this.key(PASSPHRASE, nodeId), passphrase);
    this.emitter.fire(nodeId);
  }
}
