// Words and icons of the Locks tree, as plain data so they can be tested without VS Code.
import { extendable } from '../../core/vocabulary';
import type { LockEntry, Observation } from '../../core';
import { FLAGS, FLAGS_BY_URGENCY, formatTtl, shortToken, TOKEN_IN_ROW } from '../../core/vocabulary';
import { printable } from './markdown';
import { anomalyRank } from '../../shared/lockOrder';
import { describeVerdict } from '../../core';
import { whoSuffix } from '../../shared/holderText';
import { HEAD_SEPARATOR, rowDetail, rowHeadline } from '../../shared/lockRow';
import { tokenLabels, tokenThemeColour } from '../../shared/tokenLabels';

/** A lock row in one line, for screen readers: `held 5/5 · 4.2 s · billing-worker (pid 4121) for 3 min · 2 waiting`. */
export function lockDescription(entry: LockEntry, nowMs = Date.now()): string {
  return printable(describeVerdict(entry, entry.nodes.length) + whoSuffix(entry, nowMs));
}

/**
 * A lock row as the tree shows it: the headline first (verdict and the flags that change
 * what to do, emphasised), then the key, which a narrow sidebar may clip; the rest in the
 * description (`4.2 s · billing-worker (pid 4121) for 3 min`, no host: the sidebar is narrow).
 */
export function lockRowText(entry: LockEntry, nowMs = Date.now(), timeLeft?: (ms: number) => string, age?: (ms: number) => string): { label: string; highlights: Array<[number, number]>; description: string; headline: string } {
  const head = rowHeadline(entry);
  return { label: head.text + HEAD_SEPARATOR + printable(entry.key), highlights: head.emphasis, description: printable(rowDetail(entry, nowMs, timeLeft, age)), headline: head.text };
}

/** A token in a tree row or a dialog: escaped, then cut like every surface cuts (src/core/vocabulary/describe.ts). */
export function rowToken(token: string, keep = TOKEN_IN_ROW.keep): string {
  return shortToken(printable(token), { keep, head: keep - 1 });
}

/** One node row: `a1b2c3d4e5f6… · 4.2 s`, `absent`, `unreachable: <reason>`. */
export function copyDescription(o: Observation, pttlMs: number | null): string {
  switch (o.state) {
    case 'present': {
      const ttl = formatTtl(pttlMs);
      const hold = o.holdCount !== null && o.holdCount > 1 ? ` · ×${o.holdCount}` : '';
      return `${rowToken(o.token ?? '')} · ${ttl}${hold}`;
    }
    case 'absent':
      return 'absent';
    default:
      return `${o.state}${o.reason ? `: ${printable(o.reason)}` : ''}`;
  }
}

/**
 * `lock;<verdict>;<flags>;[token;][extendable;][mine;]`, matched by regex in package.json
 * `when` clauses (e.g. `viewItem =~ /;mine;/`). `token` means a token to copy;
 * `extendable` is the core's rule (src/core/vocabulary/actions.ts), which the detail panel follows too.
 */
export function lockContextValue(e: Pick<LockEntry, 'verdict' | 'flags' | 'holders' | 'quorum'>, mine: boolean): string {
  const parts = ['lock', e.verdict, ...e.flags];
  if (Object.keys(e.holders).length > 0) parts.push('token');
  if (extendable(e, mine)) parts.push('extendable');
  if (mine) parts.push('mine');
  return parts.join(';') + ';';
}

export function copyContextValue(o: Observation): string {
  return `copy;${o.state};${o.state === 'present' && o.token !== null ? 'token;' : ''}`;
}

export interface IconSpec {
  id: string;
  color: string;
}

/**
 * Codicon and theme colour per verdict and flag, worst first: every flag that changes what
 * to do has its own icon (docs/decisions.md, "What a narrow Locks view still shows").
 */
export function lockIcon(e: Pick<LockEntry, 'verdict' | 'flags' | 'liveness'>, mine: boolean): IconSpec {
  if (e.flags.includes('deadlock')) return FLAGS.deadlock.icon as IconSpec;
  switch (anomalyRank(e)) {
    // Without TTL, and its holder gone: stuck forever.
    case -1:
    case 0:
      return { id: 'error', color: 'errorForeground' };
    case 1:
      return { id: 'warning', color: 'list.warningForeground' };
    case 2:
      return { id: 'question', color: 'list.warningForeground' };
  }
  // The held lock's worst flag, by the table's urgency (no TTL first).
  const flag = FLAGS_BY_URGENCY.find((f) => e.flags.includes(f) && FLAGS[f].icon);
  if (flag) return FLAGS[flag].icon as IconSpec;
  return { id: mine ? 'account' : 'lock', color: mine ? 'charts.blue' : 'charts.green' };
}

/** A node copy's letter (A, B, ...) and its colour, when the key has two tokens or more. */
export function copyTokenMark(entry: Pick<LockEntry, 'nodes'>, o: Observation): { letter: string; color: string } | null {
  const labels = tokenLabels(entry);
  if (labels.size < 2 || o.state !== 'present' || o.token === null) return null;
  const letter = labels.get(o.token);
  if (letter === undefined) return null;
  return { letter, color: tokenThemeColour([...labels.keys()].indexOf(o.token)) };
}

export function copyIcon(o: Observation, mark: { color: string } | null = null): IconSpec {
  if (mark) return { id: 'key', color: mark.color };
  switch (o.state) {
    case 'present':
      return { id: o.pttlMs !== null && o.pttlMs < 0 ? 'lock' : 'key', color: o.pttlMs !== null && o.pttlMs < 0 ? 'list.warningForeground' : 'foreground' };
    case 'absent':
      return { id: 'circle-outline', color: 'disabledForeground' };
    case 'unreachable':
      return { id: 'debug-disconnect', color: 'errorForeground' };
    default:
      return { id: 'eye-closed', color: 'list.warningForeground' };
  }
}
