// The lock detail panel's words: one sentence per lock, phrased from what the
// core's classification already decided (verdict, flags, validity, holders). Nothing here
// classifies again: counts come from `holders`, the quorum from `quorum`, validity from
// `validityMs`. Pure and DOM-free, shared by the webview and the tests.
import { quorumTokenOf } from '../core/vocabulary/actions';
import { describeVerdict, formatDuration, shortToken, TOKEN_IN_SENTENCE } from '../core/vocabulary/describe';
import type { LockEntry, Observation } from '../core/vocabulary/types';
import { agedEntryWithCopies } from './countdown';
import type { HistoryEvent } from './protocol';

export { agedEntryWithCopies, describeVerdict };

/** A long token as `7f3a…c2` (first 4, last 2); short ones stay whole. */
/** A token in a sentence: `7f3a…c2` (the panel shows the whole token in its table). */
/** A token cut the way every sentence cuts it. */
const tokenInSentence = (token: string): string => shortToken(token, TOKEN_IN_SENTENCE);

/** The tree's short form (`held 3/5 · 4.2 s`, `split 2+2/5`), from the core. */
export function verdictBadge(entry: LockEntry): string {
  return describeVerdict(entry, entry.nodes.length);
}

/** Holder tokens, most copies first, ties in configuration order of their first copy. */
export function holderTokens(entry: LockEntry): Array<[string, number]> {
  const order = new Map<string, number>();
  entry.nodes.forEach((o, i) => {
    if (o.state === 'present' && !order.has(o.token ?? '')) order.set(o.token ?? '', i);
  });
  return Object.keys(entry.holders)
    .map((t): [string, number] => [t, entry.holders[t]])
    .sort((a, b) => b[1] - a[1] || (order.get(a[0]) ?? 0) - (order.get(b[0]) ?? 0));
}

const nodesWord = (n: number): string => (n === 1 ? 'node' : 'nodes');

function listNodes(obs: Observation[]): string {
  return obs.map((o) => o.node).join(', ');
}

/**
 * The verdict in one sentence, e.g.
 * "Held by 7f3a…c2 on 3 of 5 nodes; node-e unreachable; valid for 4.1 s",
 * "Split: 7f3a…c2 on 2 nodes, 91bc…0d on 2 nodes; no holder has a quorum".
 * `entry` null: the key has no copy on any node.
 */
export function verdictSentence(entry: LockEntry | null): string {
  if (entry === null) return 'No copy on any node: released, expired or never acquired';
  const n = entry.nodes.length;
  const tokens = holderTokens(entry);
  const [top, topCount] = tokens[0] ?? ['', 0];
  const quorumToken = quorumTokenOf(entry) ?? undefined;
  const parts: string[] = [];
  switch (entry.verdict) {
    case 'held':
      parts.push(`Held by ${tokenInSentence(top)} on ${topCount} of ${n} ${nodesWord(n)}`);
      break;
    case 'split':
      parts.push(`Split: ${tokens.map(([t, c]) => `${tokenInSentence(t)} on ${c} ${nodesWord(c)}`).join(', ')}`);
      parts.push(quorumToken === undefined ? 'no holder has a quorum' : `${tokenInSentence(quorumToken)} has a quorum of ${entry.quorum}`);
      break;
    case 'unknown':
      parts.push(`Unknown: ${tokenInSentence(top)} on ${topCount} of ${n} ${nodesWord(n)}, short of the quorum of ${entry.quorum}; with the unreachable ${nodesWord(2)} it might be held`);
      break;
    case 'partial':
      parts.push(`Partial: ${tokenInSentence(top)} on ${topCount} of ${n} ${nodesWord(n)}, short of the quorum of ${entry.quorum} (a failed or decaying acquisition)`);
      break;
  }
  const unreachable = entry.nodes.filter((o) => o.state === 'unreachable');
  if (unreachable.length > 0) parts.push(`${listNodes(unreachable)} unreachable`);
  for (const o of entry.nodes) if (o.state === 'unreadable') parts.push(`${o.node} unreadable${o.reason ? ` (${o.reason})` : ''}`);
  if (entry.validityMs !== null) {
    parts.push(`valid for ${formatDuration(entry.validityMs)}${entry.flags.includes('expiring') ? ' (expiring)' : ''}`);
  } else if (quorumToken !== undefined) {
    parts.push('never expires (no TTL on a quorum of copies)');
  }
  if (entry.flags.includes('no-ttl') && (entry.validityMs !== null || quorumToken === undefined)) parts.push('a copy has no TTL');
  if (entry.flags.includes('ttl-skew')) parts.push('the copies\u2019 expiries differ by more than the drift allowance');
  if (entry.flags.includes('reentrant')) {
    const most = Math.max(...entry.nodes.map((o) => o.holdCount ?? 0));
    parts.push(`re-entered (hold count ${most})`);
  }
  return parts.join('; ');
}

/** The format column: `string`, `Redisson lock · hold 2`, `Redisson read/write lock`, `semaphore · 3 holders`. */
export function describeFormat(o: Observation): string {
  switch (o.format) {
    case 'string':
      return 'string';
    case 'redisson-lock':
      return `Redisson lock${o.holdCount !== null ? ` · hold ${o.holdCount}` : ''}`;
    case 'redisson-rwlock':
      return `Redisson read/write lock${o.holdCount !== null ? ` · hold ${o.holdCount}` : ''}`;
    case 'semaphore': {
      const holders = o.token ? o.token.split(',').length : 0;
      return `semaphore · ${holders} ${holders === 1 ? 'holder' : 'holders'}`;
    }
    default:
      return o.type ?? '—';
  }
}

const VERDICT_WORD = (v: string | null): string => v ?? 'no copy';

/** One history entry as a line of text (the panel and the chart's tooltips). */
export function describeEvent(e: HistoryEvent): string {
  const on = e.nodes.length > 0 ? ` on ${e.nodes.join(', ')}` : '';
  const tok = e.recordedBy ? e.recordedBy : e.recordedBy === null ? `${tokenInSentence(e.token ?? '')} (recorded)` : tokenInSentence(e.token ?? '');
  const why = e.reason ? `: ${e.reason}` : '';
  switch (e.kind) {
    case 'acquired':
      return `Acquired by ${tok}${on}`;
    case 'extended':
      return `Extended by ${tok}${on}`;
    case 'released':
      return `Released by ${tok}${on}`;
    case 'expired':
      return `Expired: ${tok}${on}`;
    case 'holder-changed':
      return `Holder changed${on}: ${tokenInSentence(e.previousToken ?? '')} → ${tok}`;
    case 'split-detected':
      return `Split detected (${VERDICT_WORD(e.from)} → split)`;
    case 'verdict-changed':
      return `Verdict ${VERDICT_WORD(e.from)} → ${VERDICT_WORD(e.to)}`;
    case 'node-unreachable':
      return `${e.nodes.join(', ')} unreachable`;
    case 'node-back':
      return `${e.nodes.join(', ')} back`;
    case 'lost':
      return `Lease lost by ${tok}${why}`;
    case 'failed':
      return `Acquire by ${tok} gave up${why}`;
  }
}
