// Locks taken in this window. Only these can be extended and released from the tree:
// the core extends and releases a Lock it handed out, never a token typed back in.
import * as vscode from 'vscode';
import type { Lock } from '../../core';

export interface MineLock {
  key: string;
  /** Set for a plain acquire; absent while auto-extended (using() keeps its Lock). */
  lock?: Lock;
  /** Ends an auto-extended hold: using() then releases on every node. */
  stop?: () => Promise<void>;
}

export class MineLocks implements vscode.Disposable {
  private readonly byKey = new Map<string, MineLock>();
  private readonly emitter = new vscode.EventEmitter<string>();
  readonly onDidChange = this.emitter.event;

  has(key: string): boolean {
    return this.byKey.has(key);
  }

  get(key: string): MineLock | undefined {
    return this.byKey.get(key);
  }

  set(entry: MineLock): void {
    this.byKey.set(entry.key, entry);
    this.emitter.fire(entry.key);
  }

  delete(key: string): void {
    if (this.byKey.delete(key)) this.emitter.fire(key);
  }

  all(): MineLock[] {
    return [...this.byKey.values()];
  }

  /**
   * Forgets plain locks that are gone: another token (or none) holds a key the snapshot
   * covers, or the validity ran out on a key it does not cover (outside keyPatterns).
   */
  forgetLost(holdersOf: (key: string) => Record<string, number> | undefined): void {
    for (const m of [...this.byKey.values()]) {
      if (!m.lock) continue;
      const holders = holdersOf(m.key);
      const lost = holders !== undefined ? !(m.lock.token in holders) : m.lock.remainingMs === 0;
      if (lost) this.delete(m.key);
    }
  }

  dispose(): void {
    this.emitter.dispose();
  }
}
