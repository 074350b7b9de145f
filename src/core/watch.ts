// Live watch: a full snapshot first, then ticks that emit only what changed.
// A quiet tick costs almost nothing: each SCAN page is answered by one checksum of its
// keys' absolute expiries (see DIGEST_PAGE); only a page whose checksum moved is listed
// with PTTLs, and only a key that appeared, vanished, lost its TTL or whose expiry jumped
// (a new SET, an extend) has its value read again. Only those keys, and keys whose
// `expiring` flag may have flipped, are classified again. Ticks are single-flight.
import type Redis from 'ioredis';
import { performance } from 'node:perf_hooks';
import { classifyKeys, clockNow, DEFAULT_PATTERNS, fillGaps, InspectContext, NodeScan, readBatch, scanNode, validatePatterns, withDeadline } from './inspect';
import type { InspectOptions } from './inspectTypes';
import { describeFailure } from './nodes';
import { attachFences } from './fenceRead';
import { digestPage, scanTtlPage, UNDIGESTED } from './readScript';
import type { LockEntry, NodeStatus, SkippedKey, Snapshot } from './types';

export interface WatchOptions extends Omit<InspectOptions, 'continueFrom'> {
  /** Time between the start of two ticks; default 1,000 ms. */
  intervalMs?: number;
}

/** One watch JSON line after the first: what changed since the previous tick. */
export interface WatchChange {
  at: string;
  added: LockEntry[];
  changed: LockEntry[];
  removed: string[];
}

/** The node side of a snapshot, current at a change. */
export interface WatchStatus {
  quorum: number;
  nodes: NodeStatus[];
  truncated: boolean;
}

export interface WatchListener {
  snapshot?(snapshot: Snapshot): void;
  change?(change: WatchChange, status: WatchStatus): void;
  error?(error: unknown): void;
}

/** Expiry instants may differ by the read-instant error without being a jump. */
const JUMP_TOLERANCE_MS = 25;
const SCAN_COUNT = 1000;

interface PageMemo {
  digest: string;
  ids: string[];
}

interface NodeWatch {
  scan: NodeScan;
  /** `${pattern index} ${cursor}` -> what that page held when its digest was taken. */
  pages: Map<string, PageMemo>;
  /** false on Redis < 7.0 (no PEXPIRETIME): every page is listed with PTTLs. */
  digests: boolean;
}

interface Known {
  key: string;
  expiries: Array<number | null>;
  /** Local epoch ms after which the `expiring` flag may flip: classify again then. */
  recheckAt: number;
  kind: 'lock' | 'skipped';
  entry?: LockEntry;
  skipped?: SkippedKey;
}

/** The same entry with each present copy's PTTL counted down to `nowMs`. */
function countedDown(e: LockEntry, scans: NodeScan[], id: string, ownerOnly: boolean, nowMs: number): LockEntry {
  return {
    ...e,
    nodes: e.nodes.map((o, i) => {
      const slot = ownerOnly ? scans.find((s) => s.reads.has(id))?.reads.get(id) : scans[i].reads.get(id);
      if (o.state !== 'present' || o.pttlMs === null || o.pttlMs < 0 || !slot) return o;
      return { ...o, pttlMs: Math.max(0, Math.round(slot.at + o.pttlMs - nowMs)) };
    }),
  };
}

/** Each copy's expiry instant (local epoch ms; -1 no expiry, null no copy). */
function expiriesOf(counted: LockEntry, nowMs: number): Array<number | null> {
  return counted.nodes.map((o) => (o.pttlMs === null || o.pttlMs < 0 ? o.pttlMs : nowMs + o.pttlMs));
}

/** "Changed" is everything but the countdown itself; expiries may move by the read error. */
function sameEntry(a: Known, e: LockEntry, expiries: Array<number | null>): boolean {
  const b = a.entry!;
  if (b.verdict !== e.verdict || b.flags.join() !== e.flags.join() || b.nodes.length !== e.nodes.length) return false;
  if (b.fence !== e.fence || b.fenceRisk !== e.fenceRisk) return false;
  for (let i = 0; i < e.nodes.length; i++) {
    const x = b.nodes[i];
    const y = e.nodes[i];
    if (x.state !== y.state || x.token !== y.token || x.format !== y.format || x.holdCount !== y.holdCount || x.reason !== y.reason) return false;
    const ex = a.expiries[i];
    const ey = expiries[i];
    if (typeof ex === 'number' && typeof ey === 'number' && ex >= 0 && ey >= 0 ? Math.abs(ex - ey) > JUMP_TOLERANCE_MS : ex !== ey) return false;
  }
  return true;
}

export class Watcher {
  private states: NodeWatch[] = [];
  private known = new Map<string, Known>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private started = false;
  private ctx!: InspectContext;
  private readonly patterns: string[];

  constructor(
    /** Read at every tick: a cluster's masters may change under a running watch. */
    private readonly context: () => InspectContext,
    private readonly options: WatchOptions,
    private readonly listener: WatchListener,
  ) {
    this.patterns = options.patterns?.length ? options.patterns : DEFAULT_PATTERNS;
    validatePatterns(this.patterns);
  }

  start(): void {
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      const started = performance.now();
      this.running = this.tick()
        .catch((e: unknown) => this.listener.error?.(e))
        .then(() => {
          this.running = undefined;
          this.schedule(Math.max(0, (this.options.intervalMs ?? 1000) - (performance.now() - started)));
        });
    }, delay);
  }

  /** One tick: refresh what each node holds, classify what may have changed, emit. */
  async tick(): Promise<void> {
    const ctx = this.context();
    const ids = (c: InspectContext): string => c.nodes.map((n) => n.id).join('\n');
    if (this.ctx && ids(ctx) !== ids(this.ctx)) this.states = [];
    this.ctx = ctx;
    const maxKeys = this.options.maxKeys ?? 100_000;
    const deadline = performance.now() + (this.options.timeBudgetMs ?? 3_000);

    const dirty = new Set<string>();
    let everything = false;
    this.states = await Promise.all(
      ctx.nodes.map(async (node, i): Promise<NodeWatch> => {
        const known = this.states[i];
        // A node seen for the first time, or back from an outage, is read in full.
        if (!known || !known.scan.status.reachable || node.clusterMember) {
          everything = true;
          const scan = await scanNode(ctx, node, this.patterns, this.patterns.map(() => '0'), maxKeys, deadline);
          return { scan, pages: new Map(), digests: known?.digests ?? true };
        }
        const before = known.scan.status.reachable;
        await this.refresh(known, i, maxKeys, deadline, dirty);
        if (known.scan.status.reachable !== before) everything = true;
        return known;
      }),
    );
    const scans = this.states.map((s) => s.scan);

    // Keys some node holds; a key new to the watch is read on every other node too.
    const union = new Set<string>();
    if (everything) {
      for (const s of scans) for (const [id, slot] of s.reads) if (slot.obs !== s.absent) union.add(id);
    } else {
      for (const id of this.known.keys()) union.add(id);
      for (const id of dirty) {
        if (scans.some((s) => { const slot = s.reads.get(id); return slot !== undefined && slot.obs !== s.absent; })) union.add(id);
        else union.delete(id);
      }
    }
    if (!ctx.ownerOnly) await fillGaps(ctx, scans, everything ? union : new Set([...dirty].filter((id) => union.has(id))));
    for (const s of scans) for (const id of s.reads.keys()) if (!union.has(id)) s.reads.delete(id);

    const nowMs = clockNow();
    const toClassify = new Set<string>();
    if (everything) for (const id of union) toClassify.add(id);
    else {
      for (const id of dirty) if (union.has(id)) toClassify.add(id);
      // A fence read between a grant and its raise looks at risk: read it again next tick.
      for (const [id, k] of this.known) if (k.recheckAt <= nowMs || k.entry?.fenceRisk) toClassify.add(id);
    }
    const removed: string[] = [];
    for (const [id, k] of this.known) {
      if (!union.has(id)) {
        if (k.kind === 'lock') removed.push(k.key);
        this.known.delete(id);
      }
    }
    const threshold = this.options.expiringThresholdMs ?? 2_000;
    const { locks, lockIds, skipped, skippedIds, fencesToRead } = classifyKeys(ctx, scans, toClassify, nowMs, threshold);
    await attachFences(ctx, scans, locks, lockIds, fencesToRead);
    const added: LockEntry[] = [];
    const changed: LockEntry[] = [];
    locks.forEach((e, li) => {
      const id = lockIds[li];
      const counted = countedDown(e, scans, id, ctx.ownerOnly === true, nowMs);
      const expiries = expiriesOf(counted, nowMs);
      const before = this.known.get(id);
      const recheckAt = e.validityMs !== null && e.validityMs >= threshold ? nowMs + (e.validityMs - threshold) : Infinity;
      if (!before || before.kind !== 'lock') added.push(counted);
      else if (!sameEntry(before, e, expiries)) changed.push(counted);
      this.known.set(id, { key: e.key, expiries, recheckAt, kind: 'lock', entry: e });
    });
    skipped.forEach((sk, i) => {
      const id = skippedIds[i];
      const before = this.known.get(id);
      if (before?.kind === 'lock') removed.push(before.key);
      this.known.set(id, { key: sk.key, expiries: [], recheckAt: Infinity, kind: 'skipped', skipped: sk });
    });

    const status: WatchStatus = {
      quorum: ctx.ownerOnly ? 1 : Math.floor(ctx.nodes.length / 2) + 1,
      nodes: scans.map((s) => s.status),
      truncated: scans.some((s) => s.truncated),
    };
    if (!this.started) {
      this.started = true;
      this.listener.snapshot?.(this.fullSnapshot(status, scans, nowMs));
    } else if (added.length || changed.length || removed.length) {
      this.listener.change?.({ at: new Date(nowMs).toISOString(), added, changed, removed }, status);
    }
  }

  private fullSnapshot(status: WatchStatus, scans: NodeScan[], nowMs: number): Snapshot {
    const ids = [...this.known.keys()].sort();
    const locks: LockEntry[] = [];
    const skipped: SkippedKey[] = [];
    for (const id of ids) {
      const k = this.known.get(id)!;
      if (k.kind === 'lock') locks.push(countedDown(k.entry!, scans, id, this.ctx.ownerOnly === true, nowMs));
      else skipped.push(k.skipped!);
    }
    return { quorum: status.quorum, nodes: status.nodes, locks, skipped, truncated: status.truncated };
  }

  /** Brings one node's reads up to date; adds every key that may have changed to `dirty`. */
  private async refresh(w: NodeWatch, i: number, maxKeys: number, deadline: number, dirty: Set<string>): Promise<void> {
    const node = this.ctx.nodes[i];
    const client = node.client as Redis;
    const known = w.scan;
    const pages = new Map<string, PageMemo>();
    let listed = false;
    let scanned = 0;
    let complete = true;
    try {
      for (let p = 0; p < this.patterns.length && complete; p++) {
        const pattern = this.patterns[p];
        let cursor = '0';
        do {
          if (scanned >= maxKeys || performance.now() > deadline) {
            complete = false;
            break;
          }
          const memoKey = `${p} ${cursor}`;
          let digest: string | undefined;
          if (w.digests) {
            try {
              const d = await withDeadline(digestPage(client, cursor, pattern, SCAN_COUNT), this.ctx.commandTimeoutMs);
              digest = d.digest;
              const memo = w.pages.get(memoKey);
              if (memo && memo.digest === digest && digest !== UNDIGESTED) {
                pages.set(memoKey, memo);
                scanned += memo.ids.length;
                cursor = d.cursor;
                continue;
              }
            } catch (e) {
              if (!/unknown command|PEXPIRETIME/i.test(e instanceof Error ? e.message : '')) throw e;
              w.digests = false;
            }
          }
          listed = true;
          const page = await withDeadline(scanTtlPage(client, cursor, pattern, SCAN_COUNT), this.ctx.commandTimeoutMs);
          const at = page.nodeTimeMs - known.offsetMs;
          const ids: string[] = new Array(page.keys.length);
          const toRead: Buffer[] = [];
          for (let k = 0; k < page.keys.length; k++) {
            const id = page.keys[k].toString('latin1');
            ids[k] = id;
            const pttl = page.pttls[k];
            if (pttl === -2) continue;
            const slot = known.reads.get(id);
            const o = slot?.obs;
            // New here, not a lock copy before, without expiry, or its expiry jumped: read it.
            if (!o || o.state !== 'present' || o.pttlMs === null || pttl === -1 || o.pttlMs === -1 || Math.abs(at + pttl - (slot!.at + o.pttlMs)) > JUMP_TOLERANCE_MS) {
              toRead.push(page.keys[k]);
              dirty.add(id);
            }
          }
          await readBatch(this.ctx, node, toRead, known);
          if (digest !== undefined) pages.set(memoKey, { digest, ids });
          else pages.set(memoKey, { digest: '', ids });
          scanned += page.keys.length;
          cursor = page.cursor;
        } while (cursor !== '0');
      }
      if (complete && listed) {
        // A key this node held but no longer lists is gone from it.
        const seen = new Set<string>();
        for (const memo of pages.values()) for (const id of memo.ids) seen.add(id);
        for (const [id, slot] of known.reads) {
          if (!seen.has(id) && slot.obs !== known.absent) {
            known.reads.set(id, { obs: known.absent, at: clockNow() });
            dirty.add(id);
          }
        }
      }
      w.pages = pages;
      known.truncated = !complete;
    } catch (e) {
      known.status = { ...known.status, reachable: false, error: describeFailure(e, node).reason };
      for (const id of known.reads.keys()) dirty.add(id);
      known.reads.clear();
      w.pages = new Map();
    }
  }
}
