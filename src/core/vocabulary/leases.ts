// A lock's history as leases: who held it from when to when, and how each hold ended.
// The audit and the hold-time stats both read a history this way, so they agree on what
// a hold is (docs/audit.md).
import type { LockEvent } from './lockEvents';

/** How a hold ended: released in time, released after its lease, lost, or run out. */
export type LeaseEnd = 'released' | 'released-late' | 'lost' | 'expired' | 'open';

export interface Lease {
  token: string;
  holder: LockEvent['holder'];
  /** Epoch ms of the grant, by the recording client's clock. */
  start: number;
  /** Epoch ms the validity ran out, as last extended; null when the events do not say. */
  validUntil: number | null;
  end: LeaseEnd;
  /** Epoch ms the hold ended: the release or loss, or `validUntil` when it ran out. */
  endAt: number | null;
  fence?: number;
  /** The events of this hold, oldest first. */
  events: LockEvent[];
}

/**
 * Events of one ms in the order a hold lives them (a fast client acquires and releases
 * within one ms). Across holders the order within a ms does not matter: every rule
 * allows the clocks a tolerance far above it.
 */
const ORDER: Record<string, number> = { acquired: 0, extended: 1, failed: 2, lost: 3, released: 3, expired: 3 };

/** Readable events, oldest first (the history lists them newest first). */
export function chronological(events: readonly LockEvent[]): LockEvent[] {
  return events
    .filter((e) => e.at !== null && e.token !== null)
    // Grants of one ms by fence: fences are handed out in order, and a ms is no evidence against it.
    .sort((a, b) => a.at! - b.at! || (ORDER[a.type] ?? 9) - (ORDER[b.type] ?? 9) || (a.fence ?? 0) - (b.fence ?? 0));
}

/**
 * The holds a history records, oldest first. A hold starts at `acquired`; `extended` moves
 * its lease; `released`, `lost` or an `expired` observation ends it. One still open whose
 * lease ran out before `nowMs` ended `expired` at its lease end.
 */
export function leasesOf(events: readonly LockEvent[], nowMs: number): Lease[] {
  const leases: Lease[] = [];
  const open = new Map<string, Lease>();
  for (const e of chronological(events)) {
    const token = e.token!;
    const at = e.at!;
    if (e.type === 'acquired') {
      const lease: Lease = { token, holder: e.holder, start: at, validUntil: e.validityMs !== undefined ? at + e.validityMs : null, end: 'open', endAt: null, events: [e] };
      if (e.fence !== undefined) lease.fence = e.fence;
      leases.push(lease);
      open.set(token, lease);
      continue;
    }
    const lease = open.get(token);
    if (!lease) continue;
    lease.events.push(e);
    if (e.type === 'extended') {
      if (e.validityMs !== undefined) lease.validUntil = at + e.validityMs;
    } else if (e.type === 'released' || e.type === 'lost' || (e.type as string) === 'expired') {
      lease.end = e.type === 'released' ? (e.held === false ? 'released-late' : 'released') : e.type === 'lost' ? 'lost' : 'expired';
      lease.endAt = at;
      open.delete(token);
    }
  }
  for (const lease of open.values()) {
    if (lease.validUntil !== null && lease.validUntil < nowMs) {
      lease.end = 'expired';
      lease.endAt = lease.validUntil;
    }
  }
  return leases;
}

/** How long a hold that ended lasted: to its release or loss, or to its lease end when it ran out first. */
export function holdMsOf(l: Lease): number | null {
  if (l.end === 'open' || l.endAt === null) return null;
  const end = l.validUntil !== null && (l.end === 'released-late' || l.validUntil < l.endAt) ? l.validUntil : l.endAt;
  return Math.max(0, end - l.start);
}
