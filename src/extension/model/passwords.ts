// Node passwords and TLS key passphrases live in SecretStorage only, keyed by node id
// (never in settings or logs), and per named connection: the same host:port in dev and in
// prod keeps two passwords.
//
// Reading SecretStorage is a round trip to the workbench (0.3 s for 5 nodes at startup), so
// an index in globalState remembers which secrets were found absent: those are not asked
// again. Only "absent" is trusted, and only until a secret changes in any window (SecretStorage
// tells every window) or a node then refuses us for want of a password (docs/extension.md,
// "Startup").
import * as vscode from 'vscode';

const PREFIX = 'redlock.password:';
const PASSPHRASE = 'redlock.tlsPassphrase:';
/** globalState: SecretStorage keys found absent (true: present), shared by every window. */
export const SECRET_INDEX = 'redlock.secretIndex';

export class PasswordStore {
  readonly onDidChange: vscode.Event<string>;
  private readonly emitter = new vscode.EventEmitter<string>();
  /** The active connection's name ('' for `redlock.nodes`): secrets are read and written under it. */
  scope = '';
  /** Node ids whose password was taken as absent from the index, not asked: see `recheck`. */
  private readonly assumed = new Set<string>();

  constructor(private readonly secrets: vscode.SecretStorage, private readonly index?: vscode.Memento) {
    this.onDidChange = this.emitter.event;
    secrets.onDidChange((e) => {
      const id = (rest: string): string => rest.slice(rest.indexOf('\u0000') + 1);
      const ours = e.key.startsWith(PREFIX) ? PREFIX : e.key.startsWith(PASSPHRASE) ? PASSPHRASE : undefined;
      if (!ours) return;
      // Changed here or in another window (maybe by a version without the index): ask again.
      void this.remember(e.key, undefined);
      this.emitter.fire(id(e.key.slice(ours.length)));
    });
  }

  /** A NUL cannot be in a connection name typed in settings JSON by accident, nor in a node id. */
  private key(prefix: string, nodeId: string): string {
    return this.scope ? `${prefix}${this.scope}\u0000${nodeId}` : prefix + nodeId;
  }

  private known(key: string): boolean | undefined {
    return this.index?.get<Record<string, boolean>>(SECRET_INDEX, {})[key];
  }

  private remember(key: string, present: boolean | undefined): Thenable<void> {
    if (!this.index || this.known(key) === present) return Promise.resolve();
    const next = { ...this.index.get<Record<string, boolean>>(SECRET_INDEX, {}) };
    if (present === undefined) delete next[key];
    else next[key] = present;
    return this.index.update(SECRET_INDEX, next);
  }

  private async read(key: string): Promise<string | undefined> {
    if (this.known(key) === false) return undefined;
    const value = await this.secrets.get(key);
    void this.remember(key, value !== undefined);
    return value;
  }

  async get(nodeId: string): Promise<string | undefined> {
    const key = this.key(PREFIX, nodeId);
    const skip = this.known(key) === false;
    if (skip) this.assumed.add(nodeId);
    else this.assumed.delete(nodeId);
    return this.read(key);
  }

  /**
   * A node refused us for want of a password we did not ask SecretStorage for: forget what
   * the index says, so that the next build asks. True when there was something to forget.
   */
  recheck(nodeId: string): boolean {
    if (!this.assumed.delete(nodeId)) return false;
    void this.remember(this.key(PREFIX, nodeId), undefined);
    void this.remember(this.key(PASSPHRASE, nodeId), undefined);
    return true;
  }

  async set(nodeId: string, password: string): Promise<void> {
    await this.secrets.store(this.key(PREFIX, nodeId), password);
    await this.remember(this.key(PREFIX, nodeId), true);
    this.emitter.fire(nodeId);
  }

  async delete(nodeId: string): Promise<void> {
    await this.secrets.delete(this.key(PREFIX, nodeId));
    await this.secrets.delete(this.key(PASSPHRASE, nodeId));
    await this.remember(this.key(PREFIX, nodeId), false);
    await this.remember(this.key(PASSPHRASE, nodeId), false);
    this.emitter.fire(nodeId);
  }

  /** The passphrase of the node's TLS client key, if it has one. */
  passphrase(nodeId: string): Promise<string | undefined> {
    return this.read(this.key(PASSPHRASE, nodeId));
  }

  async setPassphrase(nodeId: string, passphrase: string): Promise<void> {
    const key = this.key(PASSPHRASE, nodeId);
    if (passphrase === '') await this.secrets.delete(key);
    else await this.secrets.store(key, passphrase);
    await this.remember(key, passphrase !== '');
    this.emitter.fire(nodeId);
  }
}
