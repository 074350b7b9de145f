// The exporter's view of what happened: hold and wait histograms and safety findings,
// from the recorded events of every lock under the exporter's patterns, whether or not a
// scrape ever saw it held, read at most once per `everyMs` when scraped and only where
// something new was recorded (the core's EventFeed). Labelled by key pattern, never by
// key, so the series stay bounded however many locks come and go (docs/audit.md, "In
// Prometheus").
import { Counter, Histogram, Registry } from 'prom-client';
import type { EventFeed } from '../core';
import { AUDIT_KINDS, auditHistory, holdMsOf, leasesOf } from '../core/vocabulary';
import type { LockEvent } from '../core/vocabulary';

/**
 * Logs whose counted ids are kept: ten times the logs one read looks at, so a log is
 * forgotten only long after it stopped changing (the feed reads a log again only when
 * its newest entry moves, and that entry is then new).
 */
const MAX_SEEN_LOGS = 10_000;

/** Distinct pattern labels at most; keys beyond them count under `other`. */
export const MAX_PATTERN_LABELS = 50;
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];

/** A key's pattern: its name up to the last `:`, then `*` (`orders:42` -> `orders:*`). */
export function patternOf(key: string): string {
  const i = key.lastIndexOf(':');
  return i < 0 ? '*' : `${key.slice(0, i + 1)}*`;
}

export class HistoryMetrics {
  private readonly hold: Histogram<string>;
  private readonly wait: Histogram<string>;
  private readonly violations: Counter<string>;
  private readonly labels = new Set<string>();
  /** Per key: what was already counted (hold ids, wait event ids, finding ids). */
  private readonly seen = new Map<string, Set<string>>();
  private readAt = -Infinity;
  private reading: Promise<void> | undefined;

  private feed: EventFeed | undefined;

  /** `feedOf` is called at the first read: nothing touches the nodes before a scrape. */
  constructor(registry: Registry, private readonly feedOf: () => EventFeed, private readonly patterns: readonly string[], private readonly everyMs: number) {
    this.hold = new Histogram({ name: 'redlock_hold_seconds', help: 'Grant to release or loss, from recorded events; a hold that ran out counts to its lease end.', labelNames: ['pattern'], buckets: BUCKETS, registers: [registry] });
    this.wait = new Histogram({ name: 'redlock_wait_seconds', help: 'First refused attempt to grant or give-up, from recorded events.', labelNames: ['pattern'], buckets: BUCKETS, registers: [registry] });
    this.violations = new Counter({ name: 'redlock_safety_violations_total', help: 'Safety audit findings in the recorded events (docs/audit.md).', labelNames: ['kind'], registers: [registry] });
    for (const kind of AUDIT_KINDS) this.violations.inc({ kind }, 0);
  }

  private label(key: string): string {
    const p = patternOf(key);
    if (this.labels.has(p)) return p;
    if (this.labels.size >= MAX_PATTERN_LABELS) return 'other';
    this.labels.add(p);
    return p;
  }

  /** Reads what is new when the last read is older than `everyMs`; concurrent scrapes share one read. */
  refresh(): Promise<void> {
    if (Date.now() - this.readAt < this.everyMs) return Promise.resolve();
    this.reading ??= this.read().finally(() => {
      this.readAt = Date.now();
      this.reading = undefined;
    });
    return this.reading;
  }

  private async read(): Promise<void> {
    const { changed } = await (this.feed ??= this.feedOf()).read(this.patterns);
    const now = Date.now();
    for (const { resource, events, horizon } of changed) this.count(resource, events, horizon, now);
  }

  private count(key: string, events: readonly LockEvent[], horizon: number | null, now: number): void {
    const before = this.seen.get(key) ?? new Set<string>();
    // What the log still holds is all that could be counted twice: the set keeps no more.
    const seen = new Set<string>();
    // Most recently counted last: the oldest logs are forgotten first (MAX_SEEN_LOGS).
    this.seen.delete(key);
    this.seen.set(key, seen);
    if (this.seen.size > MAX_SEEN_LOGS) this.seen.delete(this.seen.keys().next().value!);
    const pattern = this.label(key);
    for (const l of leasesOf(events, now)) {
      const id = `hold ${l.token} ${l.start}`;
      const held = holdMsOf(l);
      if (held === null) continue;
      seen.add(id);
      if (before.has(id)) continue;
      this.hold.observe({ pattern }, held / 1000);
    }
    for (const e of events) {
      if (e.waitMs === undefined || (e.type !== 'acquired' && e.type !== 'failed')) continue;
      const id = `wait ${e.type} ${e.token} ${e.at}`;
      seen.add(id);
      if (before.has(id)) continue;
      this.wait.observe({ pattern }, e.waitMs / 1000);
    }
    for (const f of auditHistory(key, events, { nowMs: now, horizonMs: horizon })) {
      const id = `finding ${f.kind} ${f.at} ${f.holders.map((h) => h.token).join(' ')}`;
      seen.add(id);
      if (before.has(id)) continue;
      this.violations.inc({ kind: f.kind });
    }
  }
}
