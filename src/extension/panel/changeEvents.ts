// The panel's event history: consecutive states of one lock key turned into events
// (acquired, extended, released, expired, holder changed, split detected, verdict changed,
// node unreachable / back). Pure: no `vscode`, so it is tested without an editor. The
// states come from the core's watcher, which already decided that they differ; this only
// names the difference, with the watcher's own tolerance (docs/architecture.md).
import type { LockEntry, Observation } from '../../core/vocabulary';
import type { LockEvent } from '../../core';
import { holderText } from '../../shared/holderText';
import { JUMP_TOLERANCE_MS } from '../../core';
import type { HistoryEvent, HistoryKind } from '../../shared/protocol';

export interface HistoryOptions {
  /** Epoch ms at which `prev` was read: turns PTTLs into expiry instants. Default: `at`. */
  prevAt?: number;
  /** Epoch ms at which `next` was read. Default: `at`. */
  nextAt?: number;
  /** Node ids in configuration order, for a side that is null (the key had no copy anywhere). */
  nodes?: readonly string[];
}

function byNode(e: LockEntry | null | undefined): Map<string, Observation> {
  const m = new Map<string, Observation>();
  if (e) for (const o of e.nodes) m.set(o.node, o);
  return m;
}

const ABSENT = (node: string): Observation => ({ node, state: 'absent', token: null, pttlMs: null, type: null, format: null, holdCount: null, reason: null });

const present = (o: Observation): boolean => o.state === 'present';
const tokenOf = (o: Observation): string => o.token ?? '';
/** Expiry instant of a present copy read at `readAt` (Infinity: no expiry). */
const expiryOf = (o: Observation, readAt: number): number => (o.pttlMs === null || o.pttlMs < 0 ? Infinity : readAt + o.pttlMs);

/**
 * Events between two consecutive states of one key, oldest kind first:
 * node outages, per-token copy events (grouped over nodes), then verdict events.
 * `prev` / `next` null or undefined: the key had no copy on any node (not in the snapshot).
 * Both null, or two equal states: no events.
 */
export function buildHistory(prev: LockEntry | null | undefined, next: LockEntry | null | undefined, at: number, options: HistoryOptions = {}): HistoryEvent[] {
  if (!prev && !next) return [];
  const prevAt = options.prevAt ?? at;
  const nextAt = options.nextAt ?? at;
  const before = byNode(prev);
  const after = byNode(next);
  const order: string[] = [];
  for (const id of options.nodes ?? []) if (!order.includes(id)) order.push(id);
  for (const e of [prev, next]) if (e) for (const o of e.nodes) if (!order.includes(o.node)) order.push(o.node);

  const events: HistoryEvent[] = [];
  // kind + token (+ previous token) -> one event listing every node it happened on.
  const grouped = new Map<string, HistoryEvent>();
  const add = (kind: HistoryKind, node: string, token: string | null, previousToken: string | null = null): void => {
    const id = JSON.stringify([kind, token, previousToken]);
    let ev = grouped.get(id);
    if (!ev) {
      ev = { at, kind, nodes: [], token, previousToken, from: null, to: null };
      grouped.set(id, ev);
      events.push(ev);
    }
    ev.nodes.push(node);
  };

  for (const node of order) {
    const a = before.get(node) ?? ABSENT(node);
    const b = after.get(node) ?? ABSENT(node);
    if (a.state !== 'unreachable' && b.state === 'unreachable') {
      add('node-unreachable', node, null);
      continue;
    }
    if (a.state === 'unreachable' && b.state !== 'unreachable') {
      // What happened while it was away is unknown: only say it is back.
      add('node-back', node, null);
      continue;
    }
    if (a.state === 'unreachable') continue;
    if (!present(a) && present(b)) add('acquired', node, tokenOf(b));
    else if (present(a) && !present(b)) {
      // Gone: expired when its TTL had run out by the time it was seen gone.
      const expired = expiryOf(a, prevAt) <= nextAt + JUMP_TOLERANCE_MS;
      add(expired ? 'expired' : 'released', node, tokenOf(a));
    } else if (present(a) && present(b)) {
      if (tokenOf(a) !== tokenOf(b)) add('holder-changed', node, tokenOf(b), tokenOf(a));
      else {
        const ea = expiryOf(a, prevAt);
        const eb = expiryOf(b, nextAt);
        if (eb > ea + JUMP_TOLERANCE_MS) add('extended', node, tokenOf(b));
      }
    }
  }

  const from = prev ? prev.verdict : null;
  const to = next ? next.verdict : null;
  if (from !== to) {
    const kind: HistoryKind = to === 'split' ? 'split-detected' : 'verdict-changed';
    events.push({ at, kind, nodes: [], token: null, previousToken: null, from, to });
  }
  return events;
}

/** Appends events to a bounded history (oldest dropped first). Returns the same array. */
export function appendHistory(history: HistoryEvent[], events: readonly HistoryEvent[], max = 1000): HistoryEvent[] {
  history.push(...events);
  if (history.length > max) history.splice(0, history.length - max);
  return history;
}

/** The exported JSON document: the key, when, and the events newest first (as the panel shows them). */
export function historyDocument(key: string, history: readonly HistoryEvent[], exportedAt: number): string {
  return JSON.stringify({ key, exportedAt: new Date(exportedAt).toISOString(), events: [...history].reverse().map((e) => ({ ...e, at: new Date(e.at).toISOString() })) }, null, 2) + '\n';
}

/**
 * Events the locking clients recorded on the nodes (`events: true`) as panel history,
 * oldest first; unreadable entries are left out (the CLI's `history` shows them).
 */
export function recordedHistory(events: readonly LockEvent[]): HistoryEvent[] {
  const out: HistoryEvent[] = [];
  for (const e of events) {
    if (e.type === 'unreadable' || e.at === null) continue;
    const who = e.holder ? holderText({ ...e.holder, since: null }, e.at) : null;
    const ev: HistoryEvent = { at: e.at, kind: e.type, nodes: [], token: e.token, previousToken: null, from: null, to: null, recordedBy: who };
    if (e.reason !== undefined) ev.reason = e.reason;
    if (e.waitMs !== undefined) ev.waitMs = e.waitMs;
    if (e.fence !== undefined) ev.fence = e.fence;
    out.push(ev);
  }
  return out.sort((a, b) => a.at - b.at);
}

/**
 * Merges recorded events into a history (oldest first), once each, keeping the newest
 * `max`. Returns how many were new.
 */
export function mergeRecorded(history: HistoryEvent[], recorded: readonly HistoryEvent[], max = 1000): number {
  const id = (e: HistoryEvent): string => `${e.at} ${e.kind} ${e.token}`;
  const have = new Set(history.filter((e) => e.recordedBy !== undefined).map(id));
  const fresh = recorded.filter((e) => !have.has(id(e)));
  if (fresh.length === 0) return 0;
  const merged = [...history, ...fresh].sort((a, b) => a.at - b.at);
  history.splice(0, history.length, ...merged.slice(-max));
  return fresh.length;
}
