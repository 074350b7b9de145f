// Words and icons of the Locks tree, as plain data so they can be tested without VS Code.
import { extendable } from '../core/actions';
import type { LockEntry, Observation } from '../core';
import { formatTtl, shortToken, TOKEN_IN_ROW } from '../core/present';
import { printable } from './markdown';
import { anomalyRank } from '../shared/lockOrder';
import { describeVerdict } from '../core';
import { whoSuffix } from '../shared/holderText';

/** A lock row: `held 5/5 · 4.2 s · billing-worker (pid 4121) for 3 min · 2 waiting` (no host: the sidebar is narrow). */
export function lockDescription(entry: LockEntry, nowMs = Date.now()): string {
  return printable(describeVerdict(entry, entry.nodes.length) + whoSuffix(entry, nowMs));
}

/** A token in a tree row or a dialog: escaped, then cut like every surface cuts (src/core/present.ts). */
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
 * `extendable` is the core's rule (src/core/actions.ts), which the detail panel follows too.
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

/** Codicon and theme color per verdict and flag, worst first. */
export function lockIcon(e: Pick<LockEntry, 'verdict' | 'flags'>, mine: boolean): IconSpec {
  switch (anomalyRank(e)) {
    case 0:
      return { id: 'error', color: 'errorForeground' };
    case 1:
      return { id: 'warning', color: 'list.warningForeground' };
    case 2:
      return { id: 'question', color: 'list.warningForeground' };
    case 3:
      return { id: 'lock', color: 'list.warningForeground' };
  }
  if (e.flags.includes('expiring')) return { id: 'watch', color: 'charts.yellow' };
  if (e.flags.includes('ttl-skew') || e.flags.includes('degraded')) return { id: 'lock', color: 'charts.yellow' };
  return { id: mine ? 'account' : 'lock', color: mine ? 'charts.blue' : 'charts.green' };
}

export function copyIcon(o: Observation): IconSpec {
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
