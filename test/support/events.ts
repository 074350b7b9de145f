// A shared builder for recorded lock events in unit tests (audit rules, hold and wait times).
import type { LockEvent } from '../../src/core/vocabulary/lockEvents';

/** One recorded event as the core writes it (validity given as the lease length). */
export function ev(type: LockEvent['type'], at: number, token: string, extra: Partial<LockEvent> = {}): LockEvent {
  return { at, type, token, holder: null, ...extra };
}
