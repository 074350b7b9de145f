// `status --fail-on VERDICT_OR_FLAG[,...]`: the names a monitoring job may alert on, and
// the match. The record makes the compiler ask for an entry whenever the core gains a
// verdict or a flag, so the list users may type never falls behind.
import type { Flag, LockEntry, Verdict } from '../core/vocabulary';
import { escapeText } from './escape';
import { UsageError } from './exit';

const NAMES: Record<Verdict | Flag, true> = {
  split: true,
  held: true,
  unknown: true,
  partial: true,
  'no-ttl': true,
  'ttl-skew': true,
  expiring: true,
  degraded: true,
  reentrant: true,
  deadlock: true,
};

export const FAIL_ON_NAMES = Object.keys(NAMES) as Array<Verdict | Flag>;

/** Comma-separated names, repeatable; every name must be a verdict or a flag. */
export function failOnParser(text: string, previous: Set<string> | undefined): Set<string> {
  const names = new Set(previous);
  for (const raw of text.split(',')) {
    const name = raw.trim();
    if (name === '') throw new UsageError(`invalid --fail-on "${escapeText(text)}": an empty name; expected verdicts or flags (${FAIL_ON_NAMES.join(', ')}), comma-separated`);
    if (!Object.prototype.hasOwnProperty.call(NAMES, name)) {
      throw new UsageError(`invalid --fail-on "${escapeText(name)}": expected verdicts or flags (${FAIL_ON_NAMES.join(', ')}), comma-separated`);
    }
    names.add(name);
  }
  return names;
}

/** Locks whose verdict or any flag is one of `names`. */
export function matchingLocks(locks: readonly LockEntry[], names: ReadonlySet<string>): LockEntry[] {
  return locks.filter((l) => names.has(l.verdict) || l.flags.some((f) => names.has(f)));
}
