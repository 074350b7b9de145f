// The exporter's view of what happened: hold and wait histograms and safety findings,
// from the recorded events of the locks the watch lists, read at most once per
// `everyMs` when scraped. Labelled by key pattern, never by key, so the series stay
// bounded however many locks come and go (docs/audit.md, "In Prometheus").
import { Counter, Histogram, Registry } from 'prom-client';
import type { Redlock } from '../core';
import { AUDIT_KINDS, auditHistory, holdMsOf, leasesOf, parseKeyArg } from '../core/vocabulary';
import type { LockEvent } from '../core/vocabulary';

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

  constructor(registry: Registry, private readonly redlock: Redlock, private readonly everyMs: number) {
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

  /** Reads the listed keys' events when the last read is older than `everyMs`; concurrent scrapes share one read. */
  refresh(keys: readonly string[]): Promise<void> {
    if (Date.now() - this.readAt < this.everyMs) return Promise.resolve();
    this.reading ??= this.read(keys).finally(() => {
      this.readAt = Date.now();
      this.reading = undefined;
    });
    return this.reading;
  }

  private async read(keys: readonly string[]): Promise<void> {
    const histories = await this.redlock.lockHistories(keys.map((k) => parseKeyArg(k)));
    const now = Date.now();
    keys.forEach((key, i) => {
      const events = histories[i];
      if (events) this.count(key, events, now);
    });
    // Keys no longer listed are forgotten: their counts stay in the histograms.
    for (const k of [...this.seen.keys()]) if (!keys.includes(k)) this.seen.delete(k);
  }

  private count(key: string, events: readonly LockEvent[], now: number): void {
    let seen = this.seen.get(key);
    if (!seen) this.seen.set(key, (seen = new Set()));
    const pattern = this.label(key);
    for (const l of leasesOf(events, now)) {
      const id = `hold ${l.token} ${l.start}`;
      const held = holdMsOf(l);
      if (held === null || seen.has(id)) continue;
      seen.add(id);
      this.hold.observe({ pattern }, held / 1000);
    }
    for (const e of events) {
      if (e.waitMs === undefined || (e.type !== 'acquired' && e.type !== 'failed')) continue;
      const id = `wait ${e.type} ${e.token} ${e.at}`;
      if (seen.has(id)) continue;
      seen.add(id);
      this.wait.observe({ pattern }, e.waitMs / 1000);
    }
    for (const f of auditHistory(key, events, { nowMs: now })) {
      const id = `finding ${f.kind} ${f.at} ${f.holders.map((h) => h.token).join(' ')}`;
      if (seen.has(id)) continue;
      seen.add(id);
      this.violations.inc({ kind: f.kind });
    }
  }
}
