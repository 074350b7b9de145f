// Observed history: what a watcher saw happen to each lock, for any library's lock (a
// foreign library records nothing). Derived from consecutive classifications of one key:
// taken (acquired, also when the token changed hands), extended, released or expired
// (told apart by the TTL left at the last read), split. Kept in the watching process
// only, capped per key and in keys, from the moment watching began (docs/formats.md,
// "Observed history").
import type { LockEvent } from '../bookkeeping/events';
import { quorumTokenOf } from '../vocabulary/actions';
import type { Holder, LockEntry } from '../vocabulary/types';

export type ObservedType = 'acquired' | 'extended' | 'released' | 'expired' | 'split';

export interface ObservedEvent {
  at: number;
  type: ObservedType;
  holder: Holder | null;
  token: string | null;
  source: 'observed';
}

/** A recorded event marked as such, or an observed one: what merged histories list. */
export type HistoryEvent = (LockEvent & { source: 'recorded' }) | ObservedEvent;

interface Last {
  token: string | null;
  holder: Holder | null;
  /** Local epoch ms the quorum token's copy would expire (Infinity: no TTL). */
  expiresAt: number;
  split: boolean;
}

/** A lock as a watch last classified it (`change`): its entry, and when its quorum token's copy expires (local epoch ms; Infinity without a TTL). */
export interface KeptState {
  entry: LockEntry;
  expiresAt: number;
}

/** A key's expiry must move by more than this to count as an extension, not read jitter. */
const EXTEND_SLACK_MS = 100;
/** A copy gone within this of its expiry instant expired (ticks are not instant). */
const EXPIRE_SLACK_MS = 100;

export class ObservedHistory {
  /** The state of each key seen by seed() and observe(); a watch keeps its own and calls change(). */
  private readonly last = new Map<string, Last>();
  private readonly events = new Map<string, ObservedEvent[]>();

  constructor(private readonly perKey = 50, private readonly maxKeys = 10_000) {}

  /** The key's state at a tick before any transition is derived (the first snapshot). */
  seed(entry: LockEntry, atMs: number): void {
    this.last.set(entry.key, lastOf(entry, atMs));
  }

  /** A tick's classification of `key`: its entry, or undefined once it is gone. */
  observe(key: string, entry: LockEntry | undefined, atMs: number): void {
    const before = this.last.get(key);
    const now = entry === undefined ? undefined : lastOf(entry, atMs);
    if (now === undefined) this.last.delete(key);
    else this.last.set(key, now);
    this.transition(key, before, now, atMs);
  }

  /**
   * `key` went from `before` (as the caller last classified it; undefined: not a lock) to
   * `after` (undefined: gone) at `atMs`. Keeps nothing per key but its events: a watch
   * already keeps every lock's last state (a second record of each was 10 MB at 100k locks).
   */
  change(key: string, before: KeptState | undefined, after: LockEntry | undefined, atMs: number): void {
    const was = before === undefined ? undefined : { ...lastOf(before.entry, atMs), expiresAt: before.expiresAt };
    this.transition(key, was, after === undefined ? undefined : lastOf(after, atMs), atMs);
  }

  private transition(key: string, before: Last | undefined, now: Last | undefined, atMs: number): void {
    if (now === undefined) {
      if (before !== undefined && before.token !== null) this.push(key, gone(before, atMs));
      return;
    }
    if (now.split && !before?.split) this.push(key, { at: atMs, type: 'split', holder: null, token: null, source: 'observed' });
    if (now.token === null) return;
    if (before === undefined || before.token !== now.token) {
      if (before?.token) this.push(key, gone(before, atMs));
      this.push(key, { at: atMs, type: 'acquired', holder: now.holder, token: now.token, source: 'observed' });
    } else if (now.expiresAt > before.expiresAt + EXTEND_SLACK_MS) {
      this.push(key, { at: atMs, type: 'extended', holder: now.holder, token: now.token, source: 'observed' });
    }
  }

  /** The key's observed events, newest first. */
  eventsOf(key: string): ObservedEvent[] {
    return [...(this.events.get(key) ?? [])].reverse();
  }

  private push(key: string, e: ObservedEvent): void {
    let list = this.events.get(key);
    if (!list) {
      // The oldest key watched makes room: a watch over many keys keeps the recent ones.
      if (this.events.size >= this.maxKeys) this.events.delete(this.events.keys().next().value!);
      this.events.set(key, (list = []));
    }
    list.push(e);
    if (list.length > this.perKey) list.shift();
  }
}

function lastOf(entry: LockEntry, atMs: number): Last {
  const token = quorumTokenOf(entry);
  const copy = entry.nodes.find((o) => o.state === 'present' && o.token === token);
  const pttl = copy?.pttlMs ?? null;
  return { token, holder: entry.holder ?? null, expiresAt: pttl === null || pttl < 0 ? Infinity : atMs + pttl, split: entry.verdict === 'split' };
}

function gone(before: Last, atMs: number): ObservedEvent {
  const type = before.expiresAt <= atMs + EXPIRE_SLACK_MS ? 'expired' : 'released';
  return { at: atMs, type, holder: before.holder, token: before.token, source: 'observed' };
}

/** Recorded and observed events of one key, newest first; recorded ones marked so. */
export function mergeHistory(recorded: readonly LockEvent[], observed: readonly ObservedEvent[]): HistoryEvent[] {
  const all: HistoryEvent[] = [...recorded.map((e) => ({ ...e, source: 'recorded' as const })), ...observed];
  // Unreadable recorded entries (no instant) stay last, as `history` lists them.
  return all.sort((a, b) => (b.at ?? -Infinity) - (a.at ?? -Infinity));
}
