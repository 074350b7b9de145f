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
  const start = (token: string | null, at: number, by: string | null): void => {
    if (token === null || open.has(token)) return;
    const s: HoldSpan = { token, from: at, to: null, end: null, by };
    open.set(token, s);
    spans.push(s);
  };
  for (const e of sorted) {
    switch (e.kind) {
      case 'acquired':
        start(e.token, e.at, e.recordedBy ?? null);
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
