// What happened to a lock, as the clients that locked it recorded it (docs/formats.md,
// "Event logs"): pure words, read by the history, the audit and the stats alike.
import type { Holder } from './types';

export type EventType = 'acquired' | 'extended' | 'released' | 'lost' | 'failed';

/** One entry as `history --json` shows it; garbage shows as type 'unreadable'. */
export interface LockEvent {
  /** Epoch ms, the recording client's clock; null for an unreadable entry. */
  at: number | null;
  type: EventType | 'unreadable';
  holder: Holder | null;
  token: string | null;
  /** Why an acquire failed, or why an entry is unreadable. */
  reason?: string;
  /** acquired, extended: the TTL asked for, so a reader knows when the lease ran out. */
  ttlMs?: number;
  /** acquired, extended: the validity at success, in ms: the lease ran out at `at` + this. */
  validityMs?: number;
  /** acquired with fencing: the fence handed out (single-resource locks). */
  fence?: number;
  /** acquired, failed: ms from the call's first refused attempt to its grant or give-up. */
  waitMs?: number;
  /** released: false when no node still held the token (the lease was gone already). */
  held?: boolean;
  /** failed: the operation that failed, when it was not an acquire. */
  operation?: 'extend';
  /** released: deleted by a force-release (an operator, compare-and-delete on the token), not by its holder. */
  forced?: boolean;
}

/** What an event may carry beside its type and token (docs/formats.md, "Event logs"). */
export type EventDetail = Pick<LockEvent, 'reason' | 'ttlMs' | 'validityMs' | 'fence' | 'waitMs' | 'held' | 'operation' | 'forced'>;
