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
      const near = closestName(name);
      throw new UsageError(`invalid --fail-on "${escapeText(name)}"${near ? ` (did you mean ${near}?)` : ''}: expected verdicts or flags (${FAIL_ON_NAMES.join(', ')}), comma-separated`);
    }
    names.add(name);
  }
  return names;
}

/** The name within two edits of a typo (`splt` -> split), as commander suggests commands. */
function closestName(typed: string): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const name of FAIL_ON_NAMES) {
    const d = editDistance(typed.toLowerCase(), name);
    if (d <= 2 && (!best || d < best.d)) best = { name, d };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}

/** Locks whose verdict or any flag is one of `names`. */
export function matchingLocks(locks: readonly LockEntry[], names: ReadonlySet<string>): LockEntry[] {
  return locks.filter((l) => names.has(l.verdict) || l.flags.some((f) => names.has(f)));
}
