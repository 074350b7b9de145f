// The all-locks timeline's rows: one per lock over the last hour, worst first, from its
// history (recorded events, and what the watch observed of a foreign lock). Pure, and
// bounded (rows, holds, waits and marks per row), so the host sends at most a fixed
// amount however busy the locks are, and the webview draws only what is on screen.
import type { Verdict } from '../core/vocabulary/types';
import { escapeText } from '../core/vocabulary/escapeText';
import { formatDuration } from '../core/vocabulary/describe';
import { holdSpans, waitSpans } from './holdSpans';
import type { HistoryEvent } from './protocol';

/** The span the rows cover: the widest zoom the view offers. */
export const ALL_LOCKS_WINDOW_MS = 3600_000;
export const MAX_ROWS = 1000;
/** An hour of a hold every 5 s. */
export const MAX_HOLDS_PER_ROW = 720;
export const MAX_MARKS_PER_ROW = 200;
export const TOKEN_COLOURS = 8;

/** What a mark on a row stands for. */
export const MARK_FAILED = 0;
export const MARK_LOST = 1;
export const MARK_SPLIT = 2;
export const MARK_KINDS = 3;

/** How a hold ended, as the row carries it: 0 still held, then released, expired, lost, taken over. */
const END_CODES = { released: 1, expired: 2, lost: 3, 'taken-over': 4 } as const;

export interface AllLocksRow {
  key: string;
  /** Flat [from, to, colour, end] per hold, oldest first; `to` -1 while held (host clock). */
  holds: number[];
  /** Flat [from, to] per wait: a grant's first refused attempt to the grant, or a give-up's. */
  waits: number[];
  /** Flat [at, MARK_*] per failed acquire, lost lease or split seen. */
  marks: number[];
  lost: number;
  split: boolean;
  /** Waits that ended in a grant or a give-up. */
  contended: number;
  longestMs: number;
  holdCount: number;
}

export interface LockLog {
  key: string;
  events: readonly HistoryEvent[];
  /** The verdict in the current snapshot, if the lock is in it. */
  verdict?: Verdict | null;
}

/** Keeps the newest `max` tuples of `width` numbers. */
function newest(flat: number[], width: number, max: number): number[] {
  return flat.length > width * max ? flat.slice(flat.length - width * max) : flat;
}

/** One lock's row over [now - windowMs, now]. */
export function lockRow(log: LockLog, now: number, windowMs = ALL_LOCKS_WINDOW_MS): AllLocksRow {
  const start = now - windowMs;
  const colours = new Map<string, number>();
  const colourOf = (token: string): number => {
    let c = colours.get(token);
    if (c === undefined) colours.set(token, (c = colours.size % TOKEN_COLOURS));
    return c;
  };
  const holds: number[] = [];
  let longestMs = 0;
  let holdCount = 0;
  for (const s of holdSpans(log.events)) {
    const to = s.to ?? now;
    if (to < start) continue;
    holdCount++;
    longestMs = Math.max(longestMs, to - Math.max(s.from, start));
    holds.push(s.from, s.to ?? -1, colourOf(s.token), s.end === null ? 0 : END_CODES[s.end]);
  }
  const waits: number[] = [];
  for (const w of waitSpans(log.events)) if (w.to >= start) waits.push(w.from, w.to);
  const marks: number[] = [];
  let lost = 0;
  let split = log.verdict === 'split';
  // Every wait ended in a grant or a give-up; a give-up recorded without its wait counts too.
  let contended = waits.length / 2;
  for (const e of [...log.events].sort((a, b) => a.at - b.at)) {
    if (e.at < start) continue;
    if (e.kind === 'failed') {
      if (e.waitMs === undefined || e.waitMs <= 0) contended++;
      marks.push(e.at, MARK_FAILED);
    } else if (e.kind === 'lost') {
      lost++;
      marks.push(e.at, MARK_LOST);
    } else if (e.kind === 'split-detected') {
      split = true;
      marks.push(e.at, MARK_SPLIT);
    }
  }
  return {
    key: log.key,
    holds: newest(holds, 4, MAX_HOLDS_PER_ROW),
    waits: newest(waits, 2, MAX_MARKS_PER_ROW),
    marks: newest(marks, 2, MAX_MARKS_PER_ROW),
    lost, split, contended, longestMs, holdCount,
  };
}

/** Worst first: lost leases, then splits, then the most contended, then the longest hold; then by key. */
export function compareRows(a: AllLocksRow, b: AllLocksRow): number {
  return b.lost - a.lost || Number(b.split) - Number(a.split) || b.contended - a.contended || b.longestMs - a.longestMs || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

/** The rows of the locks that did anything in the window, worst first, at most `max`. */
export function allLocksRows(logs: readonly LockLog[], now: number, windowMs = ALL_LOCKS_WINDOW_MS, max = MAX_ROWS): AllLocksRow[] {
  const rows = logs.map((l) => lockRow(l, now, windowMs)).filter((r) => r.holdCount > 0 || r.marks.length > 0 || r.waits.length > 0 || r.split);
  return rows.sort(compareRows).slice(0, max);
}

/** A row in words (its text alternative): the key escaped, then what makes it stand out. */
export function rowText(r: AllLocksRow): string {
  const parts: string[] = [];
  if (r.lost > 0) parts.push(`lost ${r.lost}×`);
  if (r.split) parts.push('split');
  if (r.contended > 0) parts.push(`contended ${r.contended}×`);
  parts.push(`${r.holdCount} ${r.holdCount === 1 ? 'hold' : 'holds'}`);
  if (r.holdCount > 0) parts.push(`longest ${formatDuration(r.longestMs)}`);
  return `${escapeText(r.key)}: ${parts.join(', ')}`;
}
