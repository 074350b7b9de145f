// Live watch: a full snapshot first, then ticks that emit only what changed.
// A quiet tick costs almost nothing: each SCAN page is answered by checksums of its keys'
// absolute expiries, one per few keys (see PAGE_CHANGES); only the chunks whose checksum
// moved are listed, and only a key that appeared, vanished, lost its TTL or whose expiry
// jumped (a new SET, an extend) has its value read again. Only those keys, and keys whose
// `expiring` flag may have flipped, are classified again. Ticks are single-flight.
// One watcher serves any number of consumers (the CLI, the editor's views, the exporter):
// see docs/architecture.md for the flow and docs/decisions.md for the rates.
import { performance } from 'node:perf_hooks';
import { quorumOf } from '../vocabulary/classify';
import { quorumTokenOf } from '../vocabulary/actions';
import { nodeFacts } from './facts';
import { clockNow } from '../connection/deadline';
import { copiesOf, readable, sharedTable, withKeyTable, withSharedTokens, type Copies, type InspectContext, type NodeScan, type Stamp } from './context';
import { ObservedHistory, type KeptState } from './observedHistory';
import { KeyTable } from './keyTable';
import { judgeHolders, RenewalPulse } from './livenessRead';
import { DEFAULT_PATTERNS, fillGaps, scanNode, validatePatterns } from './inspect';
import { isDefaultPatterns, type NodeFacts } from '../vocabulary/inspectTypes';
import { classifyAndEnrich, readRelated, type Related } from './pipeline';
import type { Classified } from './context';
import type { LockEntry, Observation, SkippedKey, Snapshot } from '../vocabulary/types';
import { flagDeadlocks, NO_PROCESSES, readWaiters, type WaiterProcesses, type Waits } from './holdersRead';
import { countedDown, expiriesOf, pttlAt, waitersText, type CopyExpiries } from './watchDiff';
import { inPlay, KnownLocks } from './knownLocks';
import { withNodes } from './entryCopy';
import { coversInternalKeys, factsFromListing, INTERNAL_PATTERN, lockIdOfInternal, NodeWatch, refreshNode } from './watchNode';
import type { WatchListener, WatchOptions, WatchStatus, WatchSubscription } from './watchTypes';
export { JUMP_TOLERANCE_MS } from './watchDiff';
export type { WatchChange, WatchListener, WatchOptions, WatchStatus, WatchSubscription } from './watchTypes';

export class Watcher {
  /** What this watch saw happen to each lock (observedHistory.ts): `observed.eventsOf(key)`. */
  readonly observed = new ObservedHistory();
  /** The expiry jumps of each lock: its renewal pulse, for the liveness verdict (livenessRead.ts). */
  private readonly pulse = new RenewalPulse();
  private states: NodeWatch[] = [];
  private known = new KnownLocks();
  /** Every key id the watch holds, numbered once (context.ts `keys`); compacted by pruneIds. */
  private readonly keys = new KeyTable();
  /** The table's size when last pruned. */
  private idsKept = 0;
  /** What the last tick read beside the patterns (pipeline.ts readRelated): read again at every tick. */
  private related: Related = { anchors: new Set(), byName: new Set() };
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** Callers of refresh() arriving during a tick share the one tick queued after it. */
  private queued: { facts: boolean; promise: Promise<void> } | undefined;
  private stopped = false;
  private started = false;
  private paused = false;
  private ctx!: InspectContext;
  private readonly patterns: string[];
  private readonly scanPatterns: string[];
  private intervalMs: number;
  private pages = 1;
  private lastStatus: WatchStatus | undefined;
  private lastFacts: NodeFacts[] | undefined;
  private factsAt = -Infinity;
  private lastTickAt = 0;
  private readonly listeners = new Set<WatchListener>();

  constructor(
    /** Read at every tick: a cluster's masters may change under a running watch. */
    private readonly context: () => InspectContext,
    private readonly options: WatchOptions,
    listener?: WatchListener,
  ) {
    this.patterns = options.patterns?.length ? options.patterns : [...DEFAULT_PATTERNS];
    validatePatterns(this.patterns);
    this.scanPatterns = coversInternalKeys(this.patterns) ? this.patterns : [...this.patterns, INTERNAL_PATTERN];
    this.intervalMs = options.intervalMs ?? 1000;
    if (listener) this.listeners.add(listener);
  }

  /**
   * Adds a consumer. One that arrives after the first tick is sent the current state
   * (snapshot, facts) at once, so it never waits a tick to show something.
   */
  subscribe(listener: WatchListener): WatchSubscription {
    this.listeners.add(listener);
    const now = this.snapshot();
    if (now) listener.snapshot?.(now);
    if (this.lastFacts) listener.facts?.(this.lastFacts);
    return { dispose: () => void this.listeners.delete(listener) };
  }

  private emit<K extends keyof WatchListener>(kind: K, ...args: Parameters<NonNullable<WatchListener[K]>>): void {
    for (const l of [...this.listeners]) {
      const f = l[kind] as ((...a: unknown[]) => void) | undefined;
      if (!f) continue;
      try {
        f.apply(l, args);
      } catch (e) {
        // One consumer's bug must not stop the others, nor the watch.
        if (kind !== 'error') this.emit('error', e);
      }
    }
  }

  /** The full current state, every copy's PTTL counted down to the last tick; none before it. */
  snapshot(): Snapshot | undefined {
    if (!this.started || !this.lastStatus) return undefined;
    return this.fullSnapshot(this.lastStatus, this.states.map((s) => s.scan), this.lastTickAt);
  }

  /** Local epoch ms of the last tick: the instant the PTTLs it emitted were counted to. */
  get takenAtMs(): number {
    return this.lastTickAt;
  }

  get status(): WatchStatus | undefined {
    return this.lastStatus;
  }

  get facts(): NodeFacts[] | undefined {
    return this.lastFacts;
  }

  /** Keys watched per node: the `maxKeys` page times the pages loaded. */
  get keyLimit(): number {
    return (this.options.maxKeys ?? 100_000) * this.pages;
  }

  start(): void {
    if (this.timer === undefined && !this.running) this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.listeners.clear();
    await this.queued?.promise.catch(() => undefined);
    await this.running;
  }

  /** Pausing keeps the state and the subscribers; only the timer stops. refresh() still reads. */
  setPaused(paused: boolean): void {
    if (this.paused === paused) return;
    this.paused = paused;
    if (paused) {
      clearTimeout(this.timer);
      this.timer = undefined;
    } else if (!this.running) this.schedule(0);
  }

  /** A new rate (e.g. slower while nobody looks); a shorter one applies from now. */
  setIntervalMs(ms: number): void {
    const before = this.intervalMs;
    this.intervalMs = ms;
    if (ms < before && this.timer !== undefined && !this.running) {
      clearTimeout(this.timer);
      this.schedule(Math.min(ms, Math.max(0, this.lastTickAt + ms - clockNow())));
    }
  }

  /** Watches one more `maxKeys` page per node from now on; resolves after a tick that reads it. */
  loadMore(): Promise<void> {
    this.pages++;
    return this.refresh();
  }

  /**
   * A tick that starts after this call (so a write just made is in it); with `facts`, the
   * node facts are read too. Resolves when it is done; errors go to the listeners.
   */
  refresh(options: { facts?: boolean } = {}): Promise<void> {
    if (this.queued) {
      this.queued.facts ||= options.facts === true;
      return this.queued.promise;
    }
    const queued = { facts: options.facts === true, promise: Promise.resolve() };
    this.queued = queued;
    queued.promise = (async () => {
      await this.running;
      // Queued -> running with no await in between: a caller arriving now queues behind it.
      if (this.queued === queued) this.queued = undefined;
      clearTimeout(this.timer);
      this.timer = undefined;
      await this.runTick(queued.facts);
    })();
    return queued.promise;
  }

  private schedule(delay: number): void {
    if (this.stopped || this.paused) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.runTick(false);
    }, delay);
  }

  private async runTick(facts: boolean): Promise<void> {
    if (this.stopped) return;
    const started = performance.now();
    const run = (async () => {
      try {
        await this.tick();
        const every = this.options.factsEveryMs;
        if (facts || (every !== undefined && clockNow() - this.factsAt >= every)) await this.readFacts();
      } catch (e) {
        this.emit('error', e);
      }
    })();
    this.running = run;
    await run;
    this.running = undefined;
    if (!this.queued) this.schedule(Math.max(0, this.intervalMs - (performance.now() - started)));
  }

  private async readFacts(): Promise<void> {
    const ctx = this.ctx ?? this.context();
    const longest = Math.max(0, this.known.latestExpiry() - this.lastTickAt);
    this.factsAt = clockNow();
    const facts = await Promise.all(ctx.nodes.map((n) => nodeFacts(n, longest, ctx.commandTimeoutMs)));
    this.lastFacts = facts;
    this.emit('facts', facts);
  }

  /** One tick: refresh what each node holds, classify what may have changed, emit. */
  async tick(): Promise<void> {
    const ctx = withKeyTable({ ...this.context(), keys: this.keys });
    const ids = (c: InspectContext): string => c.nodes.map((n) => n.id).join('\n');
    if (this.ctx && ids(ctx) !== ids(this.ctx)) this.states = [];
    this.ctx = ctx;
    const maxKeys = this.keyLimit;
    const deadline = performance.now() + (this.options.timeBudgetMs ?? 3_000);

    const dirty = new Set<string>();
    let everything = false;
    // Keys read by name are no page's: each tick reads them afresh (readRelated below).
    for (const st of this.states) for (const id of this.related.byName) st.scan.reads.delete(id);
    // The first tick's copies share their tokens as they are decoded (SharedTokens) and its
    // countdown (countFirstReads): no table lookup per copy while the pages are decoded.
    const fullRead = this.started ? ctx : withSharedTokens({ ...ctx, tokens: undefined });
    this.states = await Promise.all(
      ctx.nodes.map(async (node, i): Promise<NodeWatch> => {
        const known = this.states[i];
        // A node seen for the first time, or back from an outage, is read in full.
        if (!known || !readable(known.scan.status) || node.clusterMember) {
          everything = true;
          // Bounded by keys, not by the tick's time: what a full read cut by time left unread
          // would come later as added (and, in the observed history, acquired), or, for a
          // node read in full at every tick, be dropped as removed, though nothing changed.
          // A listing (refreshNode) may stop at the deadline: its keys stay as last read.
          const scan = await scanNode(fullRead, node, this.scanPatterns, this.scanPatterns.map(() => '0'), maxKeys, Infinity);
          return { scan, pages: new Map(), digests: known?.digests ?? true, loaded: this.pages, listedBefore: scan.reads.size };
        }
        const before = readable(known.scan.status);
        await refreshNode(this.ctx, this.scanPatterns, this.pages, known, i, maxKeys, deadline, dirty);
        if (readable(known.scan.status) !== before) everything = true;
        return known;
      }),
    );
    const scans = this.states.map((s) => s.scan);

    // Keys some node holds; a key new to the watch is read on every other node too.
    // A quiet tick touches only the dirty keys: the rest of the watch state stands as is.
    const heldSomewhere = (id: string): boolean => scans.some((s) => { const o = s.reads.obsOf(id); return o !== undefined && o !== s.absent; });
    /** The locks gone this tick, as the watch knew them. */
    const removed: KeptState[] = [];
    let toClassify = new Set<string>();
    let nowMs: number;
    if (everything) {
      const union = heldIds(scans);
      if (!ctx.ownerOnly) await fillGaps(ctx, scans, union);
      // Only a copy read absent can be of a key outside the union: every other is in it.
      for (const s of scans) s.reads.forEach((o, id) => void (o !== s.absent || union.has(id) || s.reads.delete(id)));
      nowMs = clockNow();
      if (!this.started) countFirstReads(scans, nowMs);
      // A read that failed is no removal: a lock whose copies were on nodes that did not
      // answer stays as it was last seen until those nodes are read again.
      const unread = new Set(scans.filter((s) => !readable(s.status)).map((s) => s.status.node));
      this.known.forEachId((id) => {
        if (union.has(id)) return;
        const kept = this.known.keptState(id);
        if (kept !== undefined) {
          if (unread.size > 0 && kept.entry.nodes.some((o) => o.state === 'present' && unread.has(o.node))) return;
          removed.push(kept);
        }
        this.known.delete(id);
      });
      // Nothing is to classify yet: the union itself is (no second set of every key).
      toClassify = union;
    } else {
      const fresh = new Set<string>();
      const gone: string[] = [];
      for (const id of dirty) {
        if (heldSomewhere(id)) {
          fresh.add(id);
          toClassify.add(id);
        } else gone.push(id);
      }
      if (!ctx.ownerOnly && fresh.size) await fillGaps(ctx, scans, fresh);
      // Every node was listed by its pages this tick (a node read in full makes it `everything`).
      factsFromListing(scans, fresh);
      for (const id of gone) this.forget(id, scans, removed);
      nowMs = clockNow();
      // A fence read between a grant and its raise looks at risk: read it again next tick.
      this.known.dueForRecheck(nowMs, (id) => void toClassify.add(id));
    }
    // Keys whose related keys some node held are looked at again: a waiter joining a
    // Redisson queue outside the patterns changes its lock, not any page.
    for (const id of this.related.anchors) if (heldSomewhere(id)) toClassify.add(id);
    const before = this.related.byName;
    this.related = await readRelated(ctx, scans, toClassify, isDefaultPatterns(this.patterns));
    for (const id of before) if (!this.related.byName.has(id)) this.forget(id, scans, removed);
    const threshold = this.options.expiringThresholdMs ?? 2_000;
    let waitChanged = new Set<string>();
    let livenessChanged = new Set<string>();
    const freshProcesses = new Map<string, WaiterProcesses>();
    const classified = await classifyAndEnrich(ctx, scans, toClassify, nowMs, threshold, async (c) => {
      const r = await this.refreshWaiters(ctx, scans, c, dirty, freshProcesses);
      waitChanged = r.changed;
      return r.classified;
    }, {
      judge: async (c) => {
        const r = await this.refreshLiveness(ctx, scans, c, nowMs);
        livenessChanged = r.changed;
        return r.classified;
      },
      atBuild: (key, token, noTtl) => this.pulse.judgedAtBuild(key, token, noTtl),
    });
    for (const id of classified.gone) this.forget(id, scans, removed);
    // What a scan's pages or listings found beside each key was for the stages just run:
    // the copies are kept for the next ticks, the facts are not. A lock whose waiters were
    // not read (no waiter set beside it) would otherwise keep a page's word past the tick.
    for (const s of scans) s.reads.dropFacts();
    const { locks, lockIds, skipped, skippedIds } = classified;
    // Bookkeeping attached to its lock is no row: one listed as orphaned before is not any more.
    const orphans = new Set(skippedIds);
    for (const id of classified.bookkeeping) if (!orphans.has(id)) this.known.delete(id);
    const added: LockEntry[] = [];
    const changed: LockEntry[] = [];
    // The first tick emits one full snapshot, of the entries it keeps (below).
    const first = !this.started;
    const restamped = new Map<Stamp, Stamp>();
    const copies: Copies = { reads: [], ks: [] };
    const counted: CopyExpiries = { expiries: [], readErrMs: 0 };
    locks.forEach((read, li) => {
      const id = lockIds[li];
      copiesOf(scans, id, ctx.ownerOnly === true, read.nodes.length, copies);
      const { expiries, readErrMs } = expiriesOf(read, copies, nowMs, counted);
      const was = first ? undefined : this.known.entryOf(id);
      const isNew = !first && was === undefined;
      const isChanged = !first && !isNew && (!this.known.sameAs(id, read, expiries, readErrMs) || was!.liveness?.verdict !== read.liveness?.verdict);
      // A lock the tick hands out (in the first snapshot, added or changed) is kept as
      // handed out, counted down to the tick's instant: a consumer that keeps it (the
      // extension's model) shares it with the watch until the lock changes again, instead
      // of holding a copy of its own (100k locks x 5 nodes: 66 MB at the first snapshot).
      const e = first || isNew || isChanged ? keptCounted(read, copies, nowMs, restamped) : read;
      // The read entry, and its copies, are garbage from here: the tick holds none of them.
      locks[li] = e;
      const recheckAt = e.validityMs !== null && e.validityMs >= threshold ? nowMs + (e.validityMs - threshold) : Infinity;
      // The first tick has nothing to compare with: the observed history starts from it.
      if (isNew || isChanged) {
        (isNew ? added : changed).push(e);
        this.observed.change(e.key, isNew ? undefined : this.known.keptState(id), e, nowMs);
      }
      this.known.set(id, { expiries, readErrMs, recheckAt, kind: 'lock', entry: e, waiterProcesses: freshProcesses.get(id), judgeAt: this.judgeAgainAt(e) });
    });
    for (const id of livenessChanged) waitChanged.add(id);
    for (const id of waitChanged) {
      const entry = this.known.entryOf(id);
      if (entry !== undefined && !lockIds.includes(id)) changed.push(countedDown(entry, scans, id, ctx.ownerOnly === true, nowMs));
    }
    skipped.forEach((sk, i) => {
      const id = skippedIds[i];
      const before = this.known.keptState(id);
      if (before !== undefined) removed.push(before);
      this.known.set(id, { expiries: [], readErrMs: 0, recheckAt: Infinity, kind: 'skipped', skipped: sk });
    });

    for (const k of removed) this.observed.change(k.entry.key, k, undefined, nowMs);
    const status: WatchStatus = {
      quorum: ctx.ownerOnly ? 1 : quorumOf(ctx.nodes.length),
      nodes: scans.map((s) => ({ ...s.status })),
      truncated: scans.some((s) => s.truncated),
    };
    this.lastStatus = status;
    this.lastTickAt = nowMs;
    this.pruneIds(scans, first);
    this.known.prune();
    if (first) {
      this.started = true;
      // What the watch knows now is this tick's locks, counted to its instant, and its
      // skipped keys, each in key order (classifyKeys): no sort, no walk of every copy.
      this.emit('snapshot', { quorum: status.quorum, nodes: status.nodes, locks, skipped, truncated: status.truncated });
    } else if (added.length || changed.length || removed.length) {
      this.emit('change', { at: new Date(nowMs).toISOString(), added, changed, removed: removed.map((k) => k.entry.key) }, status);
    }
    this.emit('status', status);
  }

  /**
   * Drops the ids no node's reads hold any more, once the table has doubled since it was
   * last pruned: a walk over every node's keys, paid once per as many new keys.
   */
  private pruneIds(scans: readonly NodeScan[], first: boolean): void {
    if (this.ctx.keys === undefined) {
      // A cluster's masters number their own keys (withKeyTable): each compacts its own.
      for (const s of scans) if (s.reads.table.size > 2 * s.reads.size + 256) s.reads.table.compact([s.reads]);
      return;
    }
    // The first tick's table is what it listed: nothing to drop yet.
    if (first) this.idsKept = this.keys.size;
    if (this.keys.size <= 2 * this.idsKept + 256) return;
    this.keys.compact(scans.map((s) => s.reads));
    this.idsKept = this.keys.size;
  }

  /** A key no node holds any more: out of the watch, and listed as removed if it was a lock. */
  private forget(id: string, scans: NodeScan[], removed: KeptState[]): void {
    for (const s of scans) s.reads.delete(id);
    const kept = this.known.keptState(id);
    if (kept !== undefined) removed.push(kept);
    this.known.delete(id);
  }

  /**
   * Notes the renewal pulse of reclassified locks, then judges every lock the watch knows
   * (a verdict moves with time alone: a holder stops renewing without any key changing).
   * Gives the reclassified locks judged, replaces the known ones' entries, and the ids of
   * known, not reclassified locks whose verdict changed.
   */
  private async refreshLiveness(ctx: InspectContext, scans: NodeScan[], c: Classified, nowMs: number): Promise<{ classified: Classified; changed: Set<string> }> {
    // Built only where a known lock falls due: a first tick knows none.
    let fresh: Set<string> | undefined;
    this.pulse.noteAll(c.locks, c.lockIds, scans, ctx.ownerOnly === true, nowMs);
    const entries = [...c.locks];
    const knownIds: string[] = [];
    // Not before its verdict may have moved (judgeAgainAt): a holder its token does not
    // name moves only with its renewal pulse. Such locks are most of a large keyspace;
    // judging each of them every tick cost a watch of 10,000 renewed locks a tenth of its tick.
    this.known.dueForJudging(nowMs, (id) => {
      if ((fresh ??= new Set(c.lockIds)).has(id)) return;
      knownIds.push(id);
      entries.push(this.known.entryOf(id)!);
    });
    // A lock the tick did not read keeps its entry while its verdict stands: the evidence's
    // times ("renewed 3.0 s ago") move every tick, so comparing them copied every judged
    // lock each tick (old-generation garbage that kept an extension host's RSS climbing
    // for minutes); a change is emitted only when the verdict moves anyway.
    const judged = await judgeHolders(ctx, scans, entries, nowMs, this.pulse, (a, b) => a.verdict === b.verdict);
    const changed = new Set<string>();
    knownIds.forEach((id, j) => {
      const now = judged[c.locks.length + j];
      if (now.liveness?.verdict !== this.known.entryOf(id)!.liveness?.verdict) changed.add(id);
      this.known.update(id, { entry: now, judgeAt: this.judgeAgainAt(now) });
    });
    return { classified: { ...c, locks: judged.slice(0, c.locks.length) }, changed };
  }

  /**
   * Until when `e`'s liveness verdict stands without a new read: for a holder its token
   * does not name, until a late renewal would count as stopped (or for good: a lock not
   * held, or judged "unknown" or "stopped-renewing", moves only when read anew).
   * Any other lock is judged at every tick (its holder's connections and process move
   * without its key changing).
   */
  private judgeAgainAt(e: LockEntry): number {
    if (e.holder != null) return -Infinity;
    if (e.liveness?.verdict !== 'alive') return Infinity;
    const token = quorumTokenOf(e);
    return token === null ? -Infinity : this.pulse.stopsAt(e.key, token);
  }

  /**
   * Reads the waiters of reclassified locks whose pages did not find them without any
   * (classifyKeys' waitersToRead), of locks whose waiter set or log changed, and of locks
   * that had waiters (an entry expires by its score, with no write to notice); then
   * re-flags deadlocks over every lock. Gives the reclassified locks with theirs (their
   * waiters' process ids into `freshProcesses`), replaces the known ones' entries, and the
   * ids of known, not reclassified locks whose waiters or deadlock changed.
   */
  private async refreshWaiters(ctx: InspectContext, scans: NodeScan[], c: Classified, dirty: Set<string>, freshProcesses: Map<string, WaiterProcesses>): Promise<{ classified: Classified; changed: Set<string> }> {
    // Only the locks a tick reclassified whose waiters may be anywhere: a first tick of
    // 100k locks without any walked all of them on every node, a tenth of its stages' time.
    const which = c.waitersToRead;
    const ids = which.map((li) => c.lockIds[li]);
    const entries = which.map((li) => c.locks[li]);
    // Built only where a known lock is looked at: a first tick knows none.
    let fresh: Set<string> | undefined;
    const isFresh = (id: string): boolean => (fresh ??= new Set(c.lockIds)).has(id);
    const before = new Map<string, string>();
    const consider = (id: string): void => {
      const entry = this.known.entryOf(id);
      if (entry === undefined || before.has(id) || isFresh(id)) return;
      before.set(id, waitersText(entry));
      ids.push(id);
      entries.push(entry);
    };
    for (const id of dirty) {
      const lockId = lockIdOfInternal(id);
      if (lockId !== null) consider(lockId);
    }
    for (const id of this.known.inPlay()) if ((this.known.entryOf(id)!.waiters?.length ?? 0) > 0) consider(id);
    const read = await readWaiters(ctx, scans, entries, ids);
    const locks = which.length > 0 ? c.locks.slice() : c.locks;
    /** Where each fresh lock read here sits in `locks`, by its entry as read (for the cycles below). */
    const at = new Map<LockEntry, number>();
    // Only a lock with waiters is on a cycle, and a fresh entry carries no deadlock flag to
    // clear: of the fresh locks, only those read here can be in play.
    const all: Waits[] = [];
    which.forEach((li, j) => {
      locks[li] = read.entries[j];
      if (read.processes[j].length > 0) freshProcesses.set(c.lockIds[li], read.processes[j]);
      if (!inPlay(locks[li])) return;
      at.set(locks[li], li);
      all.push({ entry: locks[li], processes: read.processes[j] });
    });
    for (let j = which.length; j < ids.length; j++) {
      this.known.update(ids[j], { entry: read.entries[j], waiterProcesses: read.processes[j].length > 0 ? read.processes[j] : undefined });
    }
    // Cycles over every lock the watch knows: a new wait may close one with old waits. Only
    // one flagged before has a flag to clear: the rest (nearly all of a large watch) are
    // not handed over at each tick.
    const others = new Map<LockEntry, string>();
    for (const id of this.known.inPlay()) {
      if (isFresh(id)) continue;
      const entry = this.known.entryOf(id)!;
      others.set(entry, id);
      all.push({ entry, processes: this.known.waiterProcessesOf(id) ?? NO_PROCESSES });
    }
    const changed = new Set<string>();
    for (const [was, now] of flagDeadlocks(all)) {
      const id = others.get(was);
      if (id === undefined) {
        const li = at.get(was);
        if (li !== undefined) locks[li] = now;
        continue;
      }
      this.known.update(id, { entry: now });
      changed.add(id);
    }
    for (const [id, was] of before) if (was !== waitersText(this.known.entryOf(id))) changed.add(id);
    return { classified: { ...c, locks }, changed };
  }

  private fullSnapshot(status: WatchStatus, scans: NodeScan[], nowMs: number): Snapshot {
    const ids: string[] = [];
    this.known.forEachId((id) => void ids.push(id));
    ids.sort();
    const locks: LockEntry[] = [];
    const skipped: SkippedKey[] = [];
    for (const id of ids) {
      const entry = this.known.entryOf(id);
      if (entry !== undefined) locks.push(countedDown(entry, scans, id, this.ctx.ownerOnly === true, nowMs));
      else skipped.push(this.known.skippedOf(id)!);
    }
    return { quorum: status.quorum, nodes: status.nodes, locks, skipped, truncated: status.truncated };
  }
}

/**
 * `e` counted down to `nowMs`, each counted copy's node (`copies`: copiesOf) now holding it,
 * stamped at `nowMs` with the same error (one stamp per stamp the copies had, in
 * `restamped`): the expiries the nodes' reads give stay what they were, and a later
 * countdown starts from the new stamp.
 * A node that holds another copy than the entry's is left as it was, and so is that copy.
 * One walk, no copy of a lock that needs none: this runs for every lock of a first tick
 * (whose copies were counted before classification, countFirstReads, so it copies only
 * what a stage read again) and for each lock a later tick hands out.
 */
function keptCounted(e: LockEntry, copies: Copies, nowMs: number, restamped: Map<Stamp, Stamp>): LockEntry {
  let nodes: Observation[] | undefined;
  // The first counted copy: the copies after it with the same token share its token's
  // string and its holder.
  let like: Observation | undefined;
  for (let i = 0; i < e.nodes.length; i++) {
    const o = e.nodes[i];
    if (o.state !== 'present' || o.pttlMs === null || o.pttlMs < 0) continue;
    const k = copies.ks[i];
    const reads = copies.reads[i];
    if (k < 0 || reads!.obsAt(k) !== o) continue;
    const same = like !== undefined && sameToken(o, like);
    like ??= o;
    const was = reads!.stampAt(k);
    const pttlMs = pttlAt(was, o.pttlMs, nowMs);
    if (pttlMs === o.pttlMs) continue;
    let stamp = restamped.get(was);
    if (stamp === undefined) restamped.set(was, (stamp = { at: nowMs, err: was.err }));
    nodes ??= e.nodes.slice();
    nodes[i] = !same ? { ...o, pttlMs } : o.holder === undefined ? { ...o, pttlMs, token: like.token } : { ...o, pttlMs, token: like.token, holder: like.holder };
    reads!.setAt(k, nodes[i], stamp);
  }
  return nodes === undefined ? e : withNodes(e, nodes);
}

/**
 * The ids some node holds other than as absent. Where the scans share a key table, each
 * key's copies are looked at in turn: one Set add per key, not per copy (500,000 at
 * 100k x 5, a Set add each). forEach, not for..of: no entry pair and result object per key
 * and node.
 */
function heldIds(scans: readonly NodeScan[]): Set<string> {
  const union = new Set<string>();
  const table = sharedTable(scans);
  if (table === undefined) {
    for (const s of scans) s.reads.forEach((o, id) => void (o !== s.absent && union.add(id)));
    return union;
  }
  for (let k = 0; k < table.size; k++) {
    for (let i = 0; i < scans.length; i++) {
      const o = scans[i].reads.obsAt(k);
      if (o !== undefined && o !== scans[i].absent) {
        union.add(table.nameOf(k));
        break;
      }
    }
  }
  return union;
}

/** Two copies of one lock whose token (string and holder) one can share with the other. */
function sameToken(o: Observation, like: Observation): boolean {
  return o.token === like.token && o.format === like.format && (o.holder === undefined) === (like.holder === undefined);
}

/**
 * A first tick's copies counted down to its instant where they are, before any entry is
 * built from them: the tick decoded them, nothing but its node reads holds them, and
 * classifying them as counted gives the entries the first snapshot hands out with no
 * second observation per copy or second entry per lock (keptCounted then finds nothing to
 * count; 100k locks x 5 nodes: about 60 MB of garbage, the first tick's largest
 * collections). A key's copies with one token also come to share its holder (each node's
 * was decoded apart), and its string where decoding could not share it (SharedTokens: a
 * token that is not printable).
 */
function countFirstReads(scans: readonly NodeScan[], nowMs: number): void {
  const restamped = new Map<Stamp, Stamp>();
  for (const { reads } of scans) {
    reads.forEach((o, _id, k) => {
      if (o.state !== 'present' || o.pttlMs === null || o.pttlMs < 0) return;
      const was = reads.stampAt(k);
      let stamp = restamped.get(was);
      if (stamp === undefined) restamped.set(was, (stamp = { at: nowMs, err: was.err }));
      o.pttlMs = pttlAt(was, o.pttlMs, nowMs);
      reads.setAt(k, o, stamp);
    });
  }
  const table = sharedTable(scans);
  if (table === undefined) return;
  for (let k = 0; k < table.size; k++) {
    let like: Observation | undefined;
    for (const { reads } of scans) {
      const o = reads.obsAt(k);
      if (o === undefined || o.state !== 'present' || o.token === null) continue;
      if (like === undefined) like = o;
      else if (sameToken(o, like)) {
        o.token = like.token;
        if (o.holder !== undefined) o.holder = like.holder;
      }
    }
  }
}
