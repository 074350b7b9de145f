// Live watch: a full snapshot first, then ticks that emit only what changed. A tick does
// not re-read every value: it pages through names and PTTLs, and re-reads a key only when
// it appears, vanishes from a node, carries no TTL, or its expiry instant jumps (a new SET
// or an extend). Ticks are single-flight: a slow one is never overlapped by the next.
import type Redis from 'ioredis';
import { performance } from 'node:perf_hooks';
import { classifyKeys, clockNow, DEFAULT_PATTERNS, fillGaps, InspectContext, NodeScan, readBatch, scanNode, validatePatterns, withDeadline } from './inspect';
import type { InspectOptions } from './inspectTypes';
import { describeFailure } from './nodes';
import { scanTtlPage } from './readScript';
import type { LockEntry, Snapshot } from './types';

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

export interface WatchListener {
  snapshot?(snapshot: Snapshot): void;
  change?(change: WatchChange, snapshot: Snapshot): void;
  error?(error: unknown): void;
}

/** Expiry instants may differ by the read-instant error without being a jump. */
const JUMP_TOLERANCE_MS = 25;
const SCAN_COUNT = 1000;
const DONE = '0';

/** What makes an entry "changed": everything but the countdown itself. */
function signature(e: LockEntry, scans: NodeScan[], id: string): string {
  return JSON.stringify([
    e.verdict,
    e.flags,
    e.nodes.map((o, i) => {
      const slot = scans[i].reads.get(id);
      const expiry = o.state === 'present' && o.pttlMs !== null && o.pttlMs >= 0 && slot ? Math.round(slot.at + o.pttlMs) : null;
      return [o.state, o.token, o.format, o.holdCount, o.reason, o.pttlMs === -1 ? -1 : expiry];
    }),
  ]);
}

/** The same entry with each present copy's PTTL counted down to `nowMs`. */
function countedDown(e: LockEntry, scans: NodeScan[], id: string, nowMs: number): LockEntry {
  return {
    ...e,
    nodes: e.nodes.map((o, i) => {
      const slot = scans[i].reads.get(id);
      if (o.state !== 'present' || o.pttlMs === null || o.pttlMs < 0 || !slot) return o;
      return { ...o, pttlMs: Math.max(0, Math.round(slot.at + o.pttlMs - nowMs)) };
    }),
  };
}

export class Watcher {
  private scans: NodeScan[] = [];
  private previous = new Map<string, { key: string; sig: string }>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private readonly patterns: string[];

  private ctx!: InspectContext;
  private started = false;

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

  /** One tick: refresh what each node holds, classify, emit the snapshot or the diff. */
  async tick(): Promise<void> {
    const ctx = this.context();
    if (this.ctx && ctx.nodes.map((n) => n.id).join('\n') !== this.ctx.nodes.map((n) => n.id).join('\n')) this.scans = [];
    this.ctx = ctx;
    const first = !this.started;
    this.started = true;
    const maxKeys = this.options.maxKeys ?? 100_000;
    const deadline = performance.now() + (this.options.timeBudgetMs ?? 3_000);
    this.scans = await Promise.all(
      this.ctx.nodes.map((node, i) => {
        const known = this.scans[i];
        // A node seen for the first time, or back from an outage, is read in full.
        if (!known || !known.status.reachable || node.clusterMember) {
          return scanNode(this.ctx, node, this.patterns, this.patterns.map(() => '0'), maxKeys, deadline);
        }
        return this.refresh(known, i, maxKeys, deadline);
      }),
    );
    const union = new Set<string>();
    for (const s of this.scans) for (const [id, slot] of s.reads) if (slot.obs !== s.absent) union.add(id);
    if (!this.ctx.ownerOnly) await fillGaps(this.ctx, this.scans, union);
    const nowMs = clockNow();
    const threshold = this.options.expiringThresholdMs ?? 2_000;
    const { locks, lockIds, skipped } = classifyKeys(this.ctx, this.scans, union, nowMs, threshold);
    const snapshot: Snapshot = {
      quorum: this.ctx.ownerOnly ? 1 : Math.floor(this.ctx.nodes.length / 2) + 1,
      nodes: this.scans.map((s) => s.status),
      locks,
      skipped,
      truncated: this.scans.some((s) => s.truncated),
    };
    this.forgetVanished(union);
    const current = new Map<string, { key: string; sig: string }>();
    const added: LockEntry[] = [];
    const changed: LockEntry[] = [];
    for (let li = 0; li < locks.length; li++) {
      const e = locks[li];
      const id = lockIds[li];
      const sig = signature(e, this.scans, id);
      current.set(e.key, { key: e.key, sig });
      const before = this.previous.get(e.key);
      if (!before) added.push(countedDown(e, this.scans, id, nowMs));
      else if (before.sig !== sig) changed.push(countedDown(e, this.scans, id, nowMs));
    }
    const removed = [...this.previous.keys()].filter((k) => !current.has(k));
    this.previous = current;
    if (first) this.listener.snapshot?.(snapshot);
    else if (added.length || changed.length || removed.length) {
      this.listener.change?.({ at: new Date(nowMs).toISOString(), added, changed, removed }, snapshot);
    }
  }

  /** Keys absent on every node are dropped from memory. */
  private forgetVanished(union: Set<string>): void {
    for (const s of this.scans) for (const id of s.reads.keys()) if (!union.has(id)) s.reads.delete(id);
  }

  private async refresh(known: NodeScan, i: number, maxKeys: number, deadline: number): Promise<NodeScan> {
    const node = this.ctx.nodes[i];
    const client = node.client as Redis;
    const seen = new Set<string>();
    const toRead: Buffer[] = [];
    let scanned = 0;
    let complete = true;
    try {
      for (const pattern of this.patterns) {
        let cursor = '0';
        do {
          if (scanned >= maxKeys || performance.now() > deadline) {
            complete = false;
            break;
          }
          const page = await withDeadline(scanTtlPage(client, cursor, pattern, SCAN_COUNT), this.ctx.commandTimeoutMs);
          cursor = page.cursor;
          scanned += page.keys.length;
          const at = page.nodeTimeMs - known.offsetMs;
          for (let k = 0; k < page.keys.length; k++) {
            const id = page.keys[k].toString('latin1');
            if (seen.has(id)) continue;
            seen.add(id);
            const slot = known.reads.get(id);
            const pttl = page.pttls[k];
            if (pttl === -2) continue;
            const o = slot?.obs;
            if (!o || o.state !== 'present' || o.pttlMs === null || pttl === -1 || o.pttlMs === -1) {
              // New here, not a lock copy before, or without expiry: its value may have changed.
              toRead.push(page.keys[k]);
            } else if (Math.abs(at + pttl - (slot.at + o.pttlMs)) > JUMP_TOLERANCE_MS) {
              toRead.push(page.keys[k]);
            }
          }
        } while (cursor !== DONE);
        if (!complete) break;
      }
      if (complete) {
        // A key this node held but no longer lists is gone from it.
        for (const [id, slot] of known.reads) if (!seen.has(id) && slot.obs !== known.absent) known.reads.set(id, { obs: known.absent, at: clockNow() });
      }
      await readBatch(this.ctx, node, toRead, known);
      known.truncated = !complete;
      return known;
    } catch (e) {
      known.status = { ...known.status, reachable: false, error: describeFailure(e, node).reason };
      known.reads.clear();
      return known;
    }
  }
}
