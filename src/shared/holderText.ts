// Holder and waiter phrases shared by the CLI, the tree and the panel:
// `billing-worker (pid 4121) for 3 min · 2 waiting`. Plain text: each surface escapes
// for its own medium (names come from other processes).
import type { Holder, LockEntry } from '../core/vocabulary/types';

/** Coarse age: a holder's "for 3 min" needs no more precision than that. */
export function ageText(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h`;
  return `${Math.floor(s / 86_400)} d`;
}

/**
 * An age as a row far from a person's attention says it: `< 1 min` until the first minute
 * is up, then as ageText. A new holder's row does not change every second (the tree
 * re-renders a row whose words change, and VS Code keeps each item it builds).
 */
export function roughAgeText(ms: number): string {
  return ms < 60_000 ? '< 1 min' : ageText(ms);
}

/** `billing-worker (pid 4121) for 3 min`, `Redisson thread 53`; null when nothing is known. */
export function holderText(h: Holder | null | undefined, nowMs: number, age: (ms: number) => string = ageText): string | null {
  if (!h) return null;
  if (h.thread !== undefined && h.name === null) return h.thread === null ? 'Redisson thread' : `Redisson thread ${h.thread}`;
  const parts: string[] = [h.name ?? 'unnamed'];
  if (h.pid !== null) parts.push(`(pid ${h.pid}${h.host ? ` on ${h.host}` : ''})`);
  if (h.since !== null) parts.push(`for ${age(nowMs - h.since)}`);
  return parts.join(' ');
}

/** The part after the verdict: ` · holder · 2 waiting`, or '' when there is neither. */
export function whoSuffix(entry: LockEntry, nowMs: number, withHost = false, age: (ms: number) => string = ageText): string {
  const h = entry.holder && !withHost ? { ...entry.holder, host: null } : entry.holder;
  const who = holderText(h, nowMs, age);
  const waiting = entry.waiters?.length ?? 0;
  return (who ? ` · ${who}` : '') + (waiting ? ` · ${waiting} waiting` : '');
}

/** One sentence for a lock on a wait-for cycle, or null. */
export function cycleText(entry: LockEntry): string | null {
  if (!entry.flags.includes('deadlock') || !entry.cycle) return null;
  const keys = entry.cycle;
  const list = keys.length === 1 ? keys[0] : `${keys.slice(0, -1).join(', ')} and ${keys[keys.length - 1]}`;
  return `Deadlock: the holders of ${list} each wait for a lock another of them holds.`;
}
