// Who held the lock when, drawn from the history: one span per hold, from the event that
// gave a token the lock (acquired, or a holder change seen by the watch) to the one that
// ended it (released, expired, lost, or the next holder). Recorded and observed events
// alike, so a foreign lock's handovers show as well as our own core's holds. Pure: the
// panel's timeline draws these, and its table lists them for a screen reader.
import type { HistoryEvent } from './protocol';

export type SpanEnd = 'released' | 'expired' | 'lost' | 'taken-over';

export interface HoldSpan {
  token: string;
  /** Epoch ms, in the events' clock. */
  from: number;
  /** null: still held at the newest event. */
  to: number | null;
  end: SpanEnd | null;
  /** Who recorded the grant, when a locking client did. */
  by: string | null;
  /** The fence the grant handed out, when the lock fences (recorded). */
  fence: number | null;
}

export type WaitEnd = 'granted' | 'gave-up';

/** A waiter: from its first refused attempt to its grant or give-up (recorded `waitMs`). */
export interface WaitSpan {
  from: number;
  to: number;
  end: WaitEnd;
  /** The token granted; null for a give-up. */
  token: string | null;
  by: string | null;
}

/** Spans kept at most: the newest, so a day of a busy lock stays drawable. */
export const MAX_SPANS = 2000;

/** Hold spans from `events` (any order), oldest first. */
export function holdSpans(events: readonly HistoryEvent[]): HoldSpan[] {
  const sorted = [...events].sort((a, b) => a.at - b.at);
  const spans: HoldSpan[] = [];
  const open = new Map<string, HoldSpan>();
  const close = (token: string | null, at: number, end: SpanEnd): void => {
    if (token === null) return;
    const s = open.get(token);
    if (!s) return;
    s.to = at;
    s.end = end;
    open.delete(token);
  };
  const start = (token: string | null, at: number, by: string | null, fence: number | null = null): void => {
    if (token === null || open.has(token)) return;
    const s: HoldSpan = { token, from: at, to: null, end: null, by, fence };
    open.set(token, s);
    spans.push(s);
  };
  for (const e of sorted) {
    switch (e.kind) {
      case 'acquired':
        start(e.token, e.at, e.recordedBy ?? null, e.fence ?? null);
        break;
      case 'extended':
        // A hold first seen by its extension (the panel opened mid-hold) starts there.
        start(e.token, e.at, e.recordedBy ?? null);
        break;
      case 'holder-changed':
        close(e.previousToken, e.at, 'taken-over');
        start(e.token, e.at, null);
        break;
      case 'released':
        close(e.token, e.at, 'released');
        break;
      case 'expired':
        close(e.token, e.at, 'expired');
        break;
      case 'lost':
        close(e.token, e.at, 'lost');
        break;
      default:
        break;
    }
  }
  return spans.length > MAX_SPANS ? spans.slice(spans.length - MAX_SPANS) : spans;
}

/**
 * Wait spans from `events` (any order), oldest first, at most MAX_SPANS. Only recorded
 * grants and give-ups carry how long their caller waited; a watch sees no waiter that
 * never got the lock, so a foreign lock's waits are not known.
 */
export function waitSpans(events: readonly HistoryEvent[]): WaitSpan[] {
  const waits: WaitSpan[] = [];
  for (const e of events) {
    if ((e.kind !== 'acquired' && e.kind !== 'failed') || e.waitMs === undefined || e.waitMs <= 0) continue;
    waits.push({ from: e.at - e.waitMs, to: e.at, end: e.kind === 'acquired' ? 'granted' : 'gave-up', token: e.kind === 'acquired' ? e.token : null, by: e.recordedBy ?? null });
  }
  waits.sort((a, b) => a.from - b.from);
  return waits.length > MAX_SPANS ? waits.slice(waits.length - MAX_SPANS) : waits;
}
