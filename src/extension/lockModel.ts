// Owns the Redlock built from the settings and SecretStorage, polls the nodes, and says
// which keys changed. Views render it; commands write through its Redlock.
import * as vscode from 'vscode';
import { NodeConfigError, readTlsFiles, Redlock, type InspectPage, type LockEntry, type NodeFacts, type ScanCursor, type Snapshot } from '../core';
import type { Log } from './log';
import { parseNodeSettings, tlsPaths, withPassword, type ConfiguredNode } from './nodeSettings';
import type { PasswordStore } from './passwords';
import { readSettings, type Settings } from './settings';
import { diffLocks, mergePages, type LockDiff } from './snapshotDiff';

/** Facts (INFO, CONFIG, SCRIPT EXISTS per node) are slower to change than locks. */
const FACTS_EVERY_MS = 10_000;

export interface ModelChange extends LockDiff {
  /** The previous snapshot, for notifications about what newly appeared. */
  previous: Snapshot | undefined;
}

interface Queued {
  facts: boolean;
  promise: Promise<Snapshot | undefined>;
}

interface Built {
  signature: string;
  redlock: Redlock | undefined;
  nodes: ConfiguredNode[];
  error: string | undefined;
}

export class LockModel implements vscode.Disposable {
  private built: Built = { signature: '', redlock: undefined, nodes: [], error: undefined };
  private building: Promise<Built> | undefined;
  private passwordVersion = 0;
  private current: Snapshot | undefined;
  /** The tree asks per key every second: no linear search over thousands of locks. */
  private readonly byKey = new Map<string, LockEntry>();
  private next: ScanCursor | null = null;
  /** Per key: the epoch ms its entry was read at (pages of one refresh differ). */
  private readonly takenAt = new Map<string, number>();
  private extraPages = 0;
  /** Only the latest read may apply: an older one finishing late would roll the view back. */
  private readSeq = 0;
  private inflight: Promise<Snapshot | undefined> | undefined;
  private queued: Queued | undefined;
  private timer: NodeJS.Timeout | undefined;
  private paused = false;
  private disposed = false;
  private factsAt = 0;
  private facts: NodeFacts[] | undefined;
  private lastError: string | undefined;
  private aliasError: string | undefined;
  /** Redlocks replaced while an auto-extended lock still runs on them. */
  private readonly retiring = new Map<Redlock, number>();

  private readonly changeEmitter = new vscode.EventEmitter<ModelChange>();
  private readonly nodesEmitter = new vscode.EventEmitter<void>();
  private readonly stateEmitter = new vscode.EventEmitter<void>();
  /** Keys added, changed or removed by a refresh (not fired for the countdown). */
  readonly onDidChange = this.changeEmitter.event;
  /** Node list, node status or node facts changed. */
  readonly onDidChangeNodes = this.nodesEmitter.event;
  /** Paused, error, truncation or configuration changed. */
  readonly onDidChangeState = this.stateEmitter.event;

  constructor(private readonly passwords: PasswordStore, private readonly log: Log) {
    passwords.onDidChange(() => {
      this.passwordVersion++;
      void this.refresh();
    });
  }

  get settings(): Settings {
    return readSettings();
  }

  get snapshot(): Snapshot | undefined {
    return this.current;
  }

  get configuredNodes(): ConfiguredNode[] {
    return this.built.nodes;
  }

  get configError(): string | undefined {
    // Two entries found to reach one server (same run_id) are a configuration error too.
    return this.built.error ?? this.aliasError;
  }

  get error(): string | undefined {
    return this.built.error ?? this.lastError;
  }

  get nodeFacts(): NodeFacts[] | undefined {
    return this.facts;
  }

  get isPaused(): boolean {
    return this.paused;
  }

  get truncated(): boolean {
    return this.next !== null;
  }

  entry(key: string): LockEntry | undefined {
    return this.byKey.get(key);
  }

  takenAtOf(key: string): number {
    return this.takenAt.get(key) ?? Date.now();
  }

  /** The Redlock for the current settings (built on demand); undefined without valid nodes. */
  async redlock(): Promise<Redlock | undefined> {
    return (await this.ensureBuilt()).redlock;
  }

  /** Keeps `redlock` open until `done` settles, even if the settings replace it meanwhile. */
  hold(redlock: Redlock, done: Promise<unknown>): void {
    this.retiring.set(redlock, (this.retiring.get(redlock) ?? 0) + 1);
    void done.finally(() => {
      const left = (this.retiring.get(redlock) ?? 1) - 1;
      if (left > 0) this.retiring.set(redlock, left);
      else {
        this.retiring.delete(redlock);
        if (this.built.redlock !== redlock) void redlock.quit();
      }
    }).catch(() => undefined);
  }

  private signature(s: Settings): string {
    return JSON.stringify([s.nodes, s.driftFactor, this.passwordVersion]);
  }

  private ensureBuilt(): Promise<Built> {
    const s = readSettings();
    const signature = this.signature(s);
    if (this.built.signature === signature && !this.building) return Promise.resolve(this.built);
    if (this.building) return this.building.then(() => this.ensureBuilt());
    this.building = this.build(s, signature).finally(() => (this.building = undefined));
    return this.building;
  }

  private async build(s: Settings, signature: string): Promise<Built> {
    const old = this.built.redlock;
    let built: Built;
    try {
      const nodes = parseNodeSettings(s.nodes);
      const inputs = await Promise.all(
        nodes.map(async (n) => ({
          name: n.id,
          url: withPassword(n.url, await this.passwords.get(n.id)),
          tls: n.tls ? readTlsFiles({ ...tlsPaths(n.tls), passphrase: await this.passwords.passphrase(n.id) }) : undefined,
        })),
      );
      const redlock = inputs.length > 0 ? new Redlock(inputs, { driftFactor: s.driftFactor, connectTimeoutMs: 1500 }) : undefined;
      built = { signature, redlock, nodes, error: undefined };
      this.log.info(nodes.length ? `nodes: ${nodes.map((n) => n.id).join(', ')} (quorum ${Math.floor(nodes.length / 2) + 1})` : 'no node configured');
    } catch (e) {
      built = { signature, redlock: undefined, nodes: [], error: (e as Error).message };
      this.log.error(`settings: ${(e as Error).message}`);
    }
    this.built = built;
    if (old && !this.retiring.has(old)) void old.quit();
    const previous = this.current;
    this.current = undefined;
    this.byKey.clear();
    this.next = null;
    this.extraPages = 0;
    this.takenAt.clear();
    this.facts = undefined;
    this.factsAt = 0;
    this.lastError = undefined;
    // Configured but invalid still counts: the views then show the error, not the welcome.
    void vscode.commands.executeCommand('setContext', 'redlock.hasNodes', s.nodes.length > 0);
    if (previous) this.changeEmitter.fire({ added: [], changed: [], removed: previous.locks.map((e) => e.key), previous });
    this.nodesEmitter.fire();
    this.stateEmitter.fire();
    return built;
  }

  /**
   * A read of every node that starts after this call (a write just made is in it). One
   * read at a time: callers arriving during a read share the single one queued after it.
   */
  refresh(options: { facts?: boolean } = {}): Promise<Snapshot | undefined> {
    if (this.queued) {
      this.queued.facts ||= options.facts === true;
      return this.queued.promise;
    }
    const queued: Queued = { facts: options.facts === true, promise: Promise.resolve(undefined) };
    this.queued = queued;
    queued.promise = this.runQueued(queued);
    return queued.promise;
  }

  private async runQueued(queued: Queued): Promise<Snapshot | undefined> {
    if (this.inflight) await this.inflight.catch(() => undefined);
    // Queued -> in flight with no await in between: a caller arriving now queues behind it.
    if (this.queued === queued) this.queued = undefined;
    const promise = this.ensureBuilt().then((built) => this.read(built, queued.facts));
    this.inflight = promise;
    try {
      return await promise;
    } finally {
      if (this.inflight === promise) this.inflight = undefined;
      this.schedule();
    }
  }

  private async read(built: Built, forceFacts: boolean): Promise<Snapshot | undefined> {
    const redlock = built.redlock;
    if (!redlock) {
      this.schedule();
      return undefined;
    }
    const seq = ++this.readSeq;
    const s = readSettings();
    const opts = { maxKeys: s.maxKeys, expiringThresholdMs: s.expiringThresholdMs };
    try {
      let page: InspectPage = await redlock.inspectPage({ ...opts, patterns: s.keyPatterns });
      const takenAt = new Map<string, number>();
      const stamp = (p: InspectPage): void => p.snapshot.locks.forEach((e) => takenAt.set(e.key, p.takenAtMs));
      stamp(page);
      let snapshot = page.snapshot;
      for (let i = 0; i < this.extraPages && page.next; i++) {
        page = await redlock.inspectPage({ ...opts, continueFrom: page.next });
        stamp(page);
        snapshot = mergePages(snapshot, page.snapshot);
      }
      if (this.built !== built || seq !== this.readSeq) return this.current;
      this.apply(snapshot, page.next, takenAt);
      this.lastError = undefined;
      this.aliasError = undefined;
    } catch (e) {
      if (this.built !== built) return this.current;
      const message = (e as Error).message;
      this.aliasError = e instanceof NodeConfigError ? message : undefined;
      if (message !== this.lastError) this.log.error(`refresh: ${message}`);
      this.lastError = message;
      this.stateEmitter.fire();
    }
    if (forceFacts || Date.now() - this.factsAt > FACTS_EVERY_MS) await this.readFacts(built);
    return this.current;
  }

  private async readFacts(built: Built): Promise<void> {
    if (!built.redlock) return;
    const longest = Math.max(0, ...(this.current?.locks ?? []).flatMap((e) => e.nodes.map((o) => o.pttlMs ?? 0)));
    try {
      const facts = await built.redlock.nodeFacts(longest);
      if (this.built !== built) return;
      this.facts = facts;
      this.factsAt = Date.now();
      this.nodesEmitter.fire();
    } catch (e) {
      this.log.warn(`node facts: ${(e as Error).message}`);
    }
  }

  private apply(snapshot: Snapshot, next: ScanCursor | null, takenAt: Map<string, number>): void {
    const previous = this.current;
    const statusChanged = JSON.stringify(previous?.nodes) !== JSON.stringify(snapshot.nodes);
    const wasTruncated = this.next !== null;
    this.current = snapshot;
    this.byKey.clear();
    for (const e of snapshot.locks) this.byKey.set(e.key, e);
    this.next = next;
    this.takenAt.clear();
    for (const [k, v] of takenAt) this.takenAt.set(k, v);
    for (const n of snapshot.nodes) {
      const before = previous?.nodes.find((p) => p.node === n.node);
      if (before?.reachable !== n.reachable || before?.error !== n.error) {
        if (n.reachable) this.log.info(`node ${n.node}: reachable (${n.latencyMs ?? '?'} ms)`);
        else this.log.warn(`node ${n.node}: unreachable: ${n.error ?? 'no answer'}`);
      }
    }
    const diff = diffLocks(previous?.locks ?? [], snapshot.locks);
    if (diff.added.length || diff.removed.length) {
      this.log.debug(`snapshot: ${snapshot.locks.length} locks (+${diff.added.length} -${diff.removed.length} ~${diff.changed.length})`);
    }
    // A read that only moved validity is not a change: the tree's countdown re-renders it.
    this.changeEmitter.fire({ ...diff, previous });
    if (statusChanged) this.nodesEmitter.fire();
    if (wasTruncated !== (next !== null)) this.stateEmitter.fire();
  }

  /** Reads the pages after a truncated snapshot; later polls keep reading that far. */
  async loadMore(): Promise<Snapshot | undefined> {
    const built = await this.ensureBuilt();
    if (!built.redlock || !this.current || !this.next) return this.current;
    // A poll in flight read fewer pages: it must not replace what this one adds.
    this.readSeq++;
    const s = readSettings();
    const page = await built.redlock.inspectPage({ continueFrom: this.next, maxKeys: s.maxKeys, expiringThresholdMs: s.expiringThresholdMs });
    if (this.built !== built || !this.current) return this.current;
    this.extraPages++;
    const takenAt = new Map(this.takenAt);
    for (const e of page.snapshot.locks) takenAt.set(e.key, page.takenAtMs);
    this.apply(mergePages(this.current, page.snapshot), page.next, takenAt);
    this.log.info(`loaded more keys: ${this.current.locks.length} locks${page.next ? ', more left' : ''}`);
    return this.current;
  }

  setPaused(paused: boolean): void {
    if (this.paused === paused) return;
    this.paused = paused;
    this.log.info(paused ? 'auto-refresh paused' : 'auto-refresh resumed');
    void vscode.commands.executeCommand('setContext', 'redlock.paused', paused);
    this.stateEmitter.fire();
    if (paused) clearTimeout(this.timer);
    else this.schedule();
  }

  /** Starts polling (single flight: the next read starts refreshIntervalMs after one ends). */
  start(): void {
    void this.refresh({ facts: true });
  }

  private schedule(): void {
    clearTimeout(this.timer);
    if (this.paused || this.disposed || this.inflight || this.queued) return;
    if (!this.built.redlock && this.built.signature === this.signature(readSettings())) return;
    this.timer = setTimeout(() => void this.refresh(), readSettings().refreshIntervalMs);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    clearTimeout(this.timer);
    this.changeEmitter.dispose();
    this.nodesEmitter.dispose();
    this.stateEmitter.dispose();
    await this.built.redlock?.quit();
  }
}
