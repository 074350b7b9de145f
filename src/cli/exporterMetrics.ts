// The Prometheus side of `exporter`: lock state kept current by the core's Watcher (one
// full snapshot, then changes), node facts refreshed at most once per interval when
// scraped, recorded events (hold and wait times, safety findings) of every lock under the
// patterns likewise at most once per interval (exporterHistory.ts), and one registry
// rendered per scrape. Until the first snapshot /metrics
// answers 503, so a scrape never reports an empty set that was merely not read yet.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Gauge, Registry } from 'prom-client';
import type { NodeFacts } from '../core/vocabulary';
import type { Redlock } from '../core';
import { FLAG_ORDER, LIVENESS_VERDICTS } from '../core/vocabulary';
import type { Flag, LockEntry, Snapshot, Verdict } from '../core/vocabulary';
import type { Watcher, WatchStatus } from '../core';
import { HistoryMetrics } from './exporterHistory';

export const VERDICTS: readonly Verdict[] = ['held', 'split', 'unknown', 'partial'];
// Every flag the classifier can set, in its order: a flag the core gains is exported too.
export const FLAGS: readonly Flag[] = FLAG_ORDER;

export interface ExporterOptions {
  patterns: string[];
  intervalMs: number;
  expiringThresholdMs?: number;
  /** Where watcher failures are reported (stderr in the CLI). */
  onError?(message: string): void;
  /** Recorded events (hold, wait, safety findings) read at most this often; default: the interval. */
  historyEveryMs?: number;
}

interface Held {
  entry: LockEntry;
  /** Local epoch ms at which the entry's PTTLs were current. */
  at: number;
}

function gauge(registry: Registry, name: string, help: string, labelNames: string[] = []): Gauge<string> {
  return new Gauge({ name, help, labelNames, registers: [registry] });
}

export class Exporter {
  readonly registry = new Registry();
  private readonly locks = new Map<string, Held>();
  private status: WatchStatus | undefined;
  private facts: NodeFacts[] | undefined;
  private factsAt = -Infinity;
  private factsRefresh: Promise<void> | undefined;
  private watcher: Watcher | undefined;
  private readonly g = {
    locks: gauge(this.registry, 'redlock_locks', 'Lock keys by verdict (split, held, unknown, partial).', ['verdict']),
    holders: gauge(this.registry, 'redlock_lock_holders', 'Held lock keys by whether their holder is alive (alive, stopped-renewing, gone, unknown; docs/liveness.md).', ['liveness']),
    flags: gauge(this.registry, 'redlock_lock_flags', 'Lock keys carrying each flag (no-ttl, ttl-skew, expiring, degraded, reentrant, deadlock).', ['flag']),
    longestTtl: gauge(this.registry, 'redlock_longest_ttl_seconds', 'Longest remaining TTL among present lock copies with an expiry; 0 without locks (copies without expiry show in redlock_lock_flags{flag="no-ttl"}).'),
    quorum: gauge(this.registry, 'redlock_quorum', 'Nodes that must agree for a lock to hold (Q = floor(N/2) + 1; 1 on a Redis Cluster).'),
    up: gauge(this.registry, 'redlock_node_up', 'Whether the node answered its last read (1) or not (0).', ['node']),
    latency: gauge(this.registry, 'redlock_node_latency_seconds', 'Round trip of a TIME call to the node.', ['node']),
    offset: gauge(this.registry, 'redlock_node_clock_offset_seconds', 'Node clock minus the exporter\'s clock, at the midpoint of a TIME round trip.', ['node']),
    restartRisk: gauge(this.registry, 'redlock_node_restart_risk', 'Up for less than the longest live TTL without persistence (1), else 0; absent when unknown.', ['node']),
    truncated: gauge(this.registry, 'redlock_scan_truncated', 'Whether the last scan hit its key or time budget (1): counts then cover part of the keys.'),
    scrape: gauge(this.registry, 'redlock_scrape_duration_seconds', 'Time this scrape took, node facts included.'),
  };

  private readonly history: HistoryMetrics;

  constructor(private readonly redlock: Redlock, private readonly options: ExporterOptions) {
    this.history = new HistoryMetrics(this.registry, () => redlock.reader.eventFeed(), options.patterns, options.historyEveryMs ?? options.intervalMs);
  }

  /** True once the watcher delivered its first snapshot. */
  get ready(): boolean {
    return this.status !== undefined;
  }

  /** Starts the watcher; /metrics answers 503 until its first snapshot. */
  start(): void {
    this.watcher ??= this.redlock.watch(
      { patterns: this.options.patterns, intervalMs: this.options.intervalMs, expiringThresholdMs: this.options.expiringThresholdMs },
      {
        snapshot: (s: Snapshot) => {
          const at = Date.now();
          this.locks.clear();
          for (const e of s.locks) this.locks.set(e.key, { entry: e, at });
          this.status = { quorum: s.quorum, nodes: s.nodes, truncated: s.truncated };
        },
        change: (c, status) => {
          const at = Date.now();
          for (const e of [...c.added, ...c.changed]) this.locks.set(e.key, { entry: e, at });
          for (const k of c.removed) this.locks.delete(k);
          this.status = status;
        },
        // Every tick, changed or not: truncation and node reachability stay current even
        // while no lock changes. Only after the first snapshot, which alone makes /metrics ready.
        status: (status) => {
          if (this.status) this.status = status;
        },
        error: (e) => this.options.onError?.(e instanceof Error ? e.message : String(e)),
      },
    );
  }

  async stop(): Promise<void> {
    await this.watcher?.stop();
  }

  /** Longest remaining finite TTL (ms); copies without expiry count in the no-ttl flag instead. */
  private longestTtlMs(now: number): { finite: number; unbounded: boolean } {
    let finite = 0;
    let unbounded = false;
    for (const { entry, at } of this.locks.values()) {
      for (const o of entry.nodes) {
        if (o.state !== 'present' || o.pttlMs === null) continue;
        if (o.pttlMs < 0) unbounded = true;
        else finite = Math.max(finite, o.pttlMs - (now - at));
      }
    }
    return { finite, unbounded };
  }

  /** Node facts cost a few reads per node: at most once per interval, shared by concurrent scrapes. */
  private refreshFacts(): Promise<void> {
    if (performance.now() - this.factsAt < this.options.intervalMs) return Promise.resolve();
    this.factsRefresh ??= this.redlock
      .nodeFacts(((t) => (t.unbounded ? Number.MAX_SAFE_INTEGER : t.finite))(this.longestTtlMs(Date.now())))
      .then((f) => {
        this.facts = f;
        this.factsAt = performance.now();
      })
      .finally(() => {
        this.factsRefresh = undefined;
      });
    return this.factsRefresh;
  }

  /** The exposition text, or undefined before the first snapshot. */
  async metrics(): Promise<string | undefined> {
    if (!this.status) return undefined;
    const t0 = performance.now();
    await Promise.all([this.refreshFacts(), this.history.refresh()]);
    const g = this.g;
    const byVerdict = new Map<string, number>();
    const byFlag = new Map<string, number>();
    const byLiveness = new Map<string, number>();
    for (const { entry } of this.locks.values()) {
      byVerdict.set(entry.verdict, (byVerdict.get(entry.verdict) ?? 0) + 1);
      if (entry.liveness) byLiveness.set(entry.liveness.verdict, (byLiveness.get(entry.liveness.verdict) ?? 0) + 1);
      for (const f of entry.flags) byFlag.set(f, (byFlag.get(f) ?? 0) + 1);
    }
    for (const v of VERDICTS) g.locks.set({ verdict: v }, byVerdict.get(v) ?? 0);
    for (const f of FLAGS) g.flags.set({ flag: f }, byFlag.get(f) ?? 0);
    for (const v of LIVENESS_VERDICTS) g.holders.set({ liveness: v }, byLiveness.get(v) ?? 0);
    g.longestTtl.set(this.longestTtlMs(Date.now()).finite / 1000);
    g.quorum.set(this.status.quorum);
    g.truncated.set(this.status.truncated ? 1 : 0);
    // Node series are rebuilt each scrape: a node removed from a cluster disappears.
    g.up.reset();
    g.latency.reset();
    g.offset.reset();
    g.restartRisk.reset();
    const facts = new Map((this.facts ?? []).map((f) => [f.node, f]));
    const ids = this.facts?.map((f) => f.node) ?? this.status.nodes.map((n) => n.node);
    for (const node of ids) {
      const f = facts.get(node);
      const s = this.status.nodes.find((n) => n.node === node);
      const up = f ? f.reachable : s?.reachable ?? false;
      g.up.set({ node }, up ? 1 : 0);
      const latency = f?.latencyMs ?? s?.latencyMs ?? null;
      if (up && latency !== null) g.latency.set({ node }, latency / 1000);
      if (up && f?.clockOffsetMs != null) g.offset.set({ node }, f.clockOffsetMs / 1000);
      if (f && f.restartRisk !== 'unknown') g.restartRisk.set({ node }, f.restartRisk ? 1 : 0);
    }
    g.scrape.set((performance.now() - t0) / 1000);
    return this.registry.metrics();
  }

  /** The HTTP handler: /metrics (503 before the first snapshot), a pointer at /, 404 elsewhere. */
  handle(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }).end('method not allowed\n');
      return;
    }
    if (path === '/') {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' }).end('redlock-inspector exporter: metrics at /metrics\n');
      return;
    }
    if (path !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found: metrics are at /metrics\n');
      return;
    }
    this.metrics().then(
      (text) => {
        if (text === undefined) {
          res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', 'Retry-After': '1' }).end('no snapshot yet: the first read of the nodes is under way\n');
        } else {
          res.writeHead(200, { 'Content-Type': this.registry.contentType }).end(req.method === 'HEAD' ? undefined : text);
        }
      },
      (e: unknown) => {
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`scrape failed: ${e instanceof Error ? e.message : String(e)}\n`);
      },
    );
  }
}
