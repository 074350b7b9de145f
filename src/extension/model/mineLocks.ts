// Locks taken in this window: the model owns them, so none is ever out of the user's reach.
// Only these can be released from the tree (the core extends and releases a Lock it handed
// out, never a token typed back in). A lock kept extending is extended here, at half its
// validity, rather than by redlock.using(): using() cannot stop extending without
// releasing, and "Stop extending" leaves the lock held until its TTL runs out
// (docs/decisions.md, "Locks held by this window").
import * as vscode from 'vscode';
import { describeError } from '../words/failures';
import type { Lock, Redlock, ReleaseResult } from '../../core';

export interface MineLock {
  key: string;
  lock: Lock;
  /** Extended at half its validity until released, stopped or lost. */
  extending: boolean;
}

interface Held extends MineLock {
  redlock: Redlock;
  timer?: NodeJS.Timeout;
  /** Settles when the entry is forgotten: keeps its Redlock open meanwhile (LockModel.hold). */
  done: () => void;
}

export class MineLocks implements vscode.Disposable {
  private readonly byKey = new Map<string, Held>();
  private readonly emitter = new vscode.EventEmitter<string>();
  private readonly lostEmitter = new vscode.EventEmitter<{ key: string; why: string }>();
  readonly onDidChange = this.emitter.event;
  /** A lock kept extending could not be extended: it is forgotten, and the user must hear it. */
  readonly onDidLose = this.lostEmitter.event;

  /** keepOpen: the model's hold(), so a settings change does not close a Redlock still in use. */
  constructor(private readonly keepOpen: (redlock: Redlock, done: Promise<unknown>) => void = () => undefined) {}

  has(key: string): boolean {
    return this.byKey.has(key);
  }

  get(key: string): MineLock | undefined {
    const h = this.byKey.get(key);
    return h && { key: h.key, lock: h.lock, extending: h.extending };
  }

  all(): MineLock[] {
    return [...this.byKey.keys()].map((k) => this.get(k)!);
  }

  /** Takes a Lock acquired in this window; extending: keep it alive until released or stopped. */
  add(redlock: Redlock, key: string, lock: Lock, extending: boolean): void {
    this.forget(key);
    let done!: () => void;
    this.keepOpen(redlock, new Promise<void>((r) => (done = r)));
    const held: Held = { key, lock, extending, redlock, done };
    this.byKey.set(key, held);
    if (extending) this.schedule(held);
    this.emitter.fire(key);
  }

  /** Extends a plain lock once, on the Redlock that acquired it. */
  async extend(key: string, ttlMs: number): Promise<Lock | undefined> {
    const h = this.byKey.get(key);
    if (!h) return undefined;
    const longer = await h.redlock.extend(h.lock, ttlMs);
    h.lock = longer;
    this.emitter.fire(key);
    return longer;
  }

  /** Stops extending: the lock stays held (and listed) until its TTL runs out or it is released. */
  stopExtending(key: string): MineLock | undefined {
    const h = this.byKey.get(key);
    if (!h) return undefined;
    clearTimeout(h.timer);
    h.timer = undefined;
    h.extending = false;
    this.emitter.fire(key);
    return this.get(key);
  }

  /** Releases on every node (waiting for the stragglers, so the answer names each node). */
  async release(key: string): Promise<ReleaseResult | undefined> {
    const h = this.byKey.get(key);
    if (!h) return undefined;
    clearTimeout(h.timer);
    h.timer = undefined;
    h.extending = false;
    try {
      const r = await h.redlock.release(h.lock);
      return { ...r, nodes: await r.settled };
    } finally {
      this.forget(key);
    }
  }

  /** The window closes: release every lock it holds, each bounded by the core's own deadlines. */
  async releaseAll(): Promise<{ released: string[]; failed: { key: string; why: string }[] }> {
    const released: string[] = [];
    const failed: { key: string; why: string }[] = [];
    await Promise.all(
      [...this.byKey.keys()].map(async (key) => {
        try {
          await this.release(key);
          released.push(key);
        } catch (e) {
          failed.push({ key, why: describeError(e) });
        }
      }),
    );
    return { released, failed };
  }

  /**
   * Forgets plain locks that are gone: another token (or none) holds a key the snapshot
   * covers, or the validity ran out on a key it does not cover (outside keyPatterns).
   * A lock kept extending is forgotten only when an extension fails (onDidLose).
   */
  forgetLost(holdersOf: (key: string) => Record<string, number> | undefined): void {
    for (const h of [...this.byKey.values()]) {
      if (h.extending) continue;
      const holders = holdersOf(h.key);
      const lost = holders !== undefined ? !(h.lock.token in holders) : h.lock.remainingMs === 0;
      if (lost) this.forget(h.key);
    }
  }

  private schedule(h: Held): void {
    h.timer = setTimeout(() => void this.extendNow(h), Math.max(h.lock.remainingMs / 2, 50));
  }

  private async extendNow(h: Held): Promise<void> {
    h.timer = undefined;
    try {
      const next = await h.redlock.extend(h.lock, h.lock.ttlMs);
      // Released or stopped while the extension was in flight: the newer Lock still counts.
      h.lock = next;
      if (this.byKey.get(h.key) !== h) return;
      if (h.extending) this.schedule(h);
      this.emitter.fire(h.key);
    } catch (e) {
      if (this.byKey.get(h.key) !== h || !h.extending) return;
      this.forget(h.key);
      this.lostEmitter.fire({ key: h.key, why: describeError(e) });
    }
  }

  /** Forgets a lock without releasing it (force-released, or gone). */
  forget(key: string): void {
    const h = this.byKey.get(key);
    if (!h) return;
    clearTimeout(h.timer);
    this.byKey.delete(key);
    h.done();
    this.emitter.fire(key);
  }

  dispose(): void {
    for (const h of this.byKey.values()) clearTimeout(h.timer);
    this.emitter.dispose();
    this.lostEmitter.dispose();
  }
}
