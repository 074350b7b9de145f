// Owns the Redlock built from the settings and SecretStorage, and the core's Watcher over
// it; keeps the current entries per key and says which keys changed. Views render it;
// commands write through its Redlock. The watcher decides what changed (one change engine,
// docs/architecture.md); this model only applies its changes.
import * as vscode from 'vscode';
import { NodeConfigError, quorumOf, readTlsFiles, Redlock, type LockEntry, type NodeFacts, type NodeStatus, type Snapshot, type WatchChange, type Watcher, type WatchStatus } from '../../core';
import type { Log } from '../log';
import { mark } from '../startupTrace';
import { needsAttention } from '../../shared/lockOrder';
import { parseNodeSettings, tlsPaths, withPassword, type ConfiguredNode } from './nodeSettings';
import { MineLocks } from './mineLocks';
import type { PasswordStore } from './passwords';
import { readSettings, type Settings } from './settings';

/** Facts (INFO, CONFIG, SCRIPT EXISTS per node) are slower to change than locks. */
const FACTS_EVERY_MS = 10_000;
/**
 * Nobody looking (no view visible, no detail panel open, or never opened): the watch slows
 * to this multiple of the interval, at least HIDDEN_MIN_MS, so the status bar and
 * notifications stay live at a fraction of the cost (docs/decisions.md).
 */
const HIDDEN_FACTOR = 10;
const HIDDEN_MIN_MS = 10_000;
/**
 * ...and a large watch nobody looks at reads at least 1 s apart per this many locks (10,000
 * locks: every 100 s), at most HIDDEN_MAX_MS apart: under churn a read costs in proportion
 * to the locks, so its share of a core stays the same whatever the size (docs/decisions.md).
 */
const HIDDEN_LOCKS_PER_SECOND = 100;
const HIDDEN_MAX_MS = 300_000;
/**
 * While someone looks, a large watch reads at least 1 s apart per this many locks (10,000
 * locks: every 5 s), at most HIDDEN_MIN_MS apart: under churn every page's digest moves, so
 * each read re-lists them all, and at 1 s that was most of the extension host's cost
 * (docs/decisions.md, "A tree for 10,000 locks"). Refresh still reads at once.
 */
export const LOCKS_PER_INTERVAL_SECOND = 2000;

export interface ModelChange {
  added: string[];
  changed: string[];
  removed: string[];
  /** The entries the changed and removed keys had before this change. */
  before: ReadonlyMap<string, LockEntry>;
}

interface Built {
  signature: string;
  redlock: Redlock | undefined;
  nodes: ConfiguredNode[];
  error: string | undefined;
}

interface Watch {
  signature: string;
  watcher: Watcher;
  /** Resolves after the watcher's first tick (it starts once the connections are ready). */
  first: Promise<void>;
}

export class LockModel implements vscode.Disposable {
  private built: Built = { signature: '', redlock: undefined, nodes: [], error: undefined };
  private building: Promise<Built> | undefined;
  private passwordVersion = 0;
  private watch: Watch | undefined;
  /** The tree asks per key every second: no linear search over thousands of locks. */
  private readonly byKey = new Map<string, LockEntry>();
  /** Per key: the local epoch ms its entry's PTTLs were counted to. */
  private readonly takenAt = new Map<string, number>();
  private status: WatchStatus | undefined;
  /** Built on demand from byKey; dropped at every change. */
  private cached: Snapshot | undefined;
  /** How many entries of byKey need attention, kept at each change: the status bar asks at every one. */
  private attention = 0;
  private paused = false;
  private visible = false;
  /** The interval last given to the watcher. */
  private intervalSet = 0;
  private disposed = false;
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

  /** The settings as last read: once per configuration change, not once per tree row. */
  private cachedSettings: Settings | undefined;
  private readonly configListener: vscode.Disposable;
  /** The locks this window holds: owned here, reconciled with every change the watch sees. */
  readonly mine = new MineLocks((redlock, done) => this.hold(redlock, done));

  constructor(private readonly passwords: PasswordStore, private readonly log: Log) {
    // Registered before any other configuration listener of the extension, so they read the new values.
    this.configListener = vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('redlock')) this.cachedSettings = undefined;
    });
    this.changeEmitter.event(() => this.mine.forgetLost((key) => this.byKey.get(key)?.holders));
    passwords.onDidChange(() => {
      this.passwordVersion++;
      void this.refresh();
    });
  }

  /** getConfiguration() clones VS Code's configuration on every call: 6.7% of a core at one call per row. */
  get settings(): Settings {
    return (this.cachedSettings ??= readSettings());
  }

  /**
   * The locks sorted by key, built when asked (and kept until the next change). What a
   * change asks for at every tick (counts, node states) is below, without this sort.
   */
  get snapshot(): Snapshot | undefined {
    if (!this.status) return undefined;
    if (!this.cached) {
      const locks = [...this.byKey.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      this.cached = { quorum: this.status.quorum, nodes: this.status.nodes, locks, skipped: [], truncated: this.status.truncated };
    }
    return this.cached;
  }

  /** Whether a read has answered since the nodes or patterns were set. */
  get hasSnapshot(): boolean {
    return this.status !== undefined;
  }

  get lockCount(): number {
    return this.byKey.size;
  }

  /** The locks that need attention (shared/lockOrder.ts needsAttention). */
  get attentionCount(): number {
    return this.attention;
  }

  /** Each node's state at the last read (none before the first). */
  get nodeStates(): readonly NodeStatus[] {
    return this.status?.nodes ?? [];
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
    return this.status?.truncated === true;
  }

  /** The interval the watch runs at now: the setting while someone looks, slower otherwise. */
  get pollIntervalMs(): number {
    const ms = readSettings().refreshIntervalMs;
    const perSecond = (locks: number): number => Math.ceil(this.byKey.size / locks) * 1000;
    if (this.visible) return Math.max(ms, Math.min(HIDDEN_MIN_MS, perSecond(LOCKS_PER_INTERVAL_SECOND)));
    return Math.max(ms * HIDDEN_FACTOR, HIDDEN_MIN_MS, Math.min(HIDDEN_MAX_MS, perSecond(HIDDEN_LOCKS_PER_SECOND)));
  }

  /** The watch grew or shrank past a step of LOCKS_PER_INTERVAL_SECOND: its interval follows. */
  private followSize(): void {
    const ms = this.pollIntervalMs;
    if (ms === this.intervalSet) return;
    this.intervalSet = ms;
    this.log.debug(`watch interval ${ms} ms (${this.byKey.size} locks)`);
    this.watch?.watcher.setIntervalMs(ms);
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
    return JSON.stringify([s.nodes, s.connection?.name ?? '', s.driftFactor, this.passwordVersion]);
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
    // Each connection keeps its own passwords (passwords.ts).
    this.passwords.scope = s.connection?.name ?? '';
    try {
      const nodes = parseNodeSettings(s.nodes);
      mark('reading secrets');
      const inputs = await Promise.all(
        nodes.map(async (n) => ({
          name: n.id,
          url: withPassword(n.url, await this.passwords.get(n.id)),
          tls: n.tls ? readTlsFiles({ ...tlsPaths(n.tls), passphrase: await this.passwords.passphrase(n.id) }) : undefined,
        })),
      );
      mark('secrets read');
      const redlock = inputs.length > 0 ? new Redlock(inputs, { driftFactor: s.driftFactor, connectTimeoutMs: 1500, holderName: 'vscode-redlock-inspector' }) : undefined;
      built = { signature, redlock, nodes, error: undefined };
      const on = s.connection ? `connection ${s.connection.name}${s.connection.production ? ' (production)' : ''}: ` : '';
      this.log.info(nodes.length ? `${on}nodes: ${nodes.map((n) => n.id).join(', ')} (quorum ${quorumOf(nodes.length)})` : `${on}no node configured`);
    } catch (e) {
      built = { signature, redlock: undefined, nodes: [], error: (e as Error).message };
      this.log.error(`settings: ${(e as Error).message}`);
    }
    this.built = built;
    const watch = this.watch;
    this.watch = undefined;
    // The old watcher reads through the old Redlock: stop it before that one closes.
    await watch?.watcher.stop();
    if (old && !this.retiring.has(old)) void old.quit();
    const removed = [...this.byKey.keys()];
    const before = new Map(this.byKey);
    this.byKey.clear();
    this.attention = 0;
    this.takenAt.clear();
    this.status = undefined;
    this.cached = undefined;
    this.facts = undefined;
    this.lastError = undefined;
    // Configured but invalid still counts: the views then show the error, not the welcome.
    void vscode.commands.executeCommand('setContext', 'redlock.hasNodes', s.nodes.length > 0);
    if (removed.length) this.changeEmitter.fire({ added: [], changed: [], removed, before });
    this.nodesEmitter.fire();
    this.stateEmitter.fire();
    return built;
  }

  /** The watcher for the current settings; a new one when the scan options changed. */
  private async ensureWatch(): Promise<Watch | undefined> {
    const built = await this.ensureBuilt();
    if (!built.redlock || this.disposed) return undefined;
    const s = readSettings();
    const signature = JSON.stringify([s.keyPatterns, s.maxKeys, s.expiringThresholdMs]);
    if (this.watch?.signature === signature) {
      this.watch.watcher.setIntervalMs((this.intervalSet = this.pollIntervalMs));
      return this.watch;
    }
    const previous = this.watch;
    this.watch = undefined;
    await previous?.watcher.stop();
    if (this.built !== built) return this.ensureWatch();
    let firstDone!: () => void;
    const first = new Promise<void>((resolve) => (firstDone = resolve));
    const redlock = built.redlock;
    mark('watch started');
    const watcher = redlock.watch(
      { patterns: s.keyPatterns, maxKeys: s.maxKeys, expiringThresholdMs: s.expiringThresholdMs, intervalMs: (this.intervalSet = this.pollIntervalMs), factsEveryMs: FACTS_EVERY_MS },
      {
        snapshot: (snap) => {
          if (this.watch?.watcher === watcher) this.applySnapshot(snap, watcher.takenAtMs);
        },
        change: (c) => {
          if (this.watch?.watcher === watcher) this.applyChange(c, watcher.takenAtMs);
        },
        status: (st) => {
          mark('first read done');
          if (this.watch?.watcher === watcher) this.applyStatus(st);
          firstDone();
        },
        facts: (f) => {
          if (this.watch?.watcher !== watcher) return;
          this.facts = f;
          this.nodesEmitter.fire();
        },
        error: (e) => {
          firstDone();
          if (this.watch?.watcher !== watcher) return;
          const message = e instanceof Error ? e.message : String(e);
          this.aliasError = e instanceof NodeConfigError ? message : undefined;
          if (message !== this.lastError) this.log.error(`refresh: ${message}`);
          this.lastError = message;
          this.stateEmitter.fire();
        },
      },
    );
    if (this.paused) watcher.setPaused(true);
    const watch: Watch = { signature, watcher, first };
    this.watch = watch;
    if (previous) {
      // New scan options: what the old watcher showed goes; the new one's first tick adds.
      const removed = [...this.byKey.keys()];
      const before = new Map(this.byKey);
      this.byKey.clear();
      this.attention = 0;
      this.takenAt.clear();
      this.cached = undefined;
      if (removed.length) this.changeEmitter.fire({ added: [], changed: [], removed, before });
    }
    return watch;
  }

  /**
   * A read of every node that starts after this call (a write just made is in it). One
   * read at a time: callers arriving during a read share the single one queued after it.
   */
  async refresh(options: { facts?: boolean } = {}): Promise<Snapshot | undefined> {
    const watch = await this.ensureWatch();
    if (!watch) return this.snapshot;
    await watch.first;
    if (this.watch !== watch) return this.snapshot;
    await watch.watcher.refresh(options);
    return this.snapshot;
  }

  /** The first full state of a watcher: every key it holds replaces what was shown. */
  private applySnapshot(snap: Snapshot, at: number): void {
    const before = new Map(this.byKey);
    const added: string[] = [];
    const changed: string[] = [];
    this.byKey.clear();
    this.attention = 0;
    this.takenAt.clear();
    for (const e of snap.locks) {
      this.byKey.set(e.key, e);
      if (needsAttention(e)) this.attention++;
      this.takenAt.set(e.key, at);
      (before.has(e.key) ? changed : added).push(e.key);
    }
    const removed = [...before.keys()].filter((k) => !this.byKey.has(k));
    this.cached = undefined;
    this.status = { quorum: snap.quorum, nodes: snap.nodes, truncated: snap.truncated };
    this.log.debug(`snapshot: ${snap.locks.length} locks`);
    this.followSize();
    this.changeEmitter.fire({ added, changed, removed, before });
  }

  private applyChange(c: WatchChange, at: number): void {
    const before = new Map<string, LockEntry>();
    const added: string[] = [];
    const changed: string[] = [];
    for (const e of [...c.added, ...c.changed]) {
      const old = this.byKey.get(e.key);
      if (old) {
        before.set(e.key, old);
        changed.push(e.key);
        if (needsAttention(old)) this.attention--;
      } else added.push(e.key);
      if (needsAttention(e)) this.attention++;
      this.byKey.set(e.key, e);
      this.takenAt.set(e.key, at);
    }
    const removed: string[] = [];
    for (const key of c.removed) {
      const old = this.byKey.get(key);
      if (!old) continue;
      before.set(key, old);
      removed.push(key);
      if (needsAttention(old)) this.attention--;
      this.byKey.delete(key);
      this.takenAt.delete(key);
    }
    this.cached = undefined;
    if (added.length || removed.length) {
      this.log.debug(`watch: ${this.byKey.size} locks (+${added.length} -${removed.length} ~${changed.length})`);
      this.followSize();
    }
    this.changeEmitter.fire({ added, changed, removed, before });
  }

  private applyStatus(st: WatchStatus): void {
    const previous = this.status;
    const hadError = this.lastError !== undefined;
    this.lastError = undefined;
    this.aliasError = undefined;
    const nodesChanged = !previous || !sameNodes(previous.nodes, st.nodes);
    for (const n of st.nodes) {
      const was = previous?.nodes.find((p) => p.node === n.node);
      if (was?.reachable !== n.reachable || was?.error !== n.error) {
        if (n.reachable) this.log.info(`node ${n.node}: reachable (${n.latencyMs ?? '?'} ms)`);
        else this.log.warn(`node ${n.node}: unreachable: ${n.error ?? 'no answer'}`);
      }
    }
    const truncationChanged = previous?.truncated !== st.truncated;
    // Refused for want of a password the index said this node has none of: ask SecretStorage,
    // for every such node at once (one rebuild, not one per node and status).
    const rechecked = st.nodes.filter((n) => n.outcome === 'auth').map((n) => this.passwords.recheck(n.node));
    if (rechecked.includes(true)) {
      this.passwordVersion++;
      void this.refresh();
    }
    this.status = st;
    if (this.cached) this.cached = { ...this.cached, nodes: st.nodes, truncated: st.truncated };
    if (nodesChanged) this.nodesEmitter.fire();
    if (truncationChanged || hadError) this.stateEmitter.fire();
  }

  /** Watches one more maxKeys page per node from now on ("Load more"). */
  async loadMore(): Promise<Snapshot | undefined> {
    const watch = await this.ensureWatch();
    if (!watch || !this.truncated) return this.snapshot;
    await watch.first;
    await watch.watcher.loadMore();
    this.log.info(`loaded more keys: ${this.byKey.size} locks${this.truncated ? ', more left' : ''}`);
    return this.snapshot;
  }

  /** Someone is looking (a view visible or a panel open): watch at the configured rate. */
  setVisible(visible: boolean): void {
    if (this.visible === visible) return;
    this.visible = visible;
    this.log.debug(`watch interval ${this.pollIntervalMs} ms (${visible ? 'visible' : 'nobody looking'})`);
    this.watch?.watcher.setIntervalMs((this.intervalSet = this.pollIntervalMs));
  }

  setPaused(paused: boolean): void {
    if (this.paused === paused) return;
    this.paused = paused;
    this.log.info(paused ? 'auto-refresh paused' : 'auto-refresh resumed');
    void vscode.commands.executeCommand('setContext', 'redlock.paused', paused);
    this.stateEmitter.fire();
    this.watch?.watcher.setPaused(paused);
  }

  /** Starts watching (single flight: the next read starts the interval after one started). */
  start(): void {
    void this.ensureWatch();
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.configListener.dispose();
    await this.watch?.watcher.stop();
    this.watch = undefined;
    this.changeEmitter.dispose();
    this.nodesEmitter.dispose();
    this.stateEmitter.dispose();
    await this.built.redlock?.quit();
  }
}

function sameNodes(a: readonly NodeStatus[], b: readonly NodeStatus[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    // Latency moves every tick; it is shown, but only refreshed with the other facts.
    if (x.node !== y.node || x.reachable !== y.reachable || x.error !== y.error) return false;
  }
  return true;
}
