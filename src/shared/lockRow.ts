// What a lock row says, split for a narrow sidebar: the headline (verdict and the flags
// that change what to do) leads the label and is never clipped, the key follows and may be,
// and the rest (time left, holder, waiters) is the description (docs/decisions.md, "What a
// narrow Locks view still shows"). Words come from the presentation module.
import type { LockEntry } from '../core/vocabulary/types';
import { HEADLINE_FLAGS } from '../core/vocabulary/flags';
import { formatDuration, verdictHead } from '../core/vocabulary/describe';
import { whoSuffix } from './holderText';

/** Between the headline and the key. */
export const HEAD_SEPARATOR = ' — ';

export interface RowHeadline {
  text: string;
  /** [start, end) of the words that call for action (an anomalous verdict, action flags). */
  emphasis: Array<[number, number]>;
}

/** `split 2+2/5`, `held 3/5 · no TTL`, `held 5/5 · TTL skew · expiring`. */
export function rowHeadline(entry: Pick<LockEntry, 'verdict' | 'holders' | 'flags' | 'nodes'>): RowHeadline {
  let text = verdictHead(entry, entry.nodes.length);
  const emphasis: Array<[number, number]> = entry.verdict === 'held' ? [] : [[0, text.length]];
  for (const [flag, word] of HEADLINE_FLAGS) {
    if (!entry.flags.includes(flag)) continue;
    text += ' · ';
    emphasis.push([text.length, text.length + word.length]);
    text += word;
  }
  return { text, emphasis };
}

/**
 * The description after the key: `4.2 s · billing-worker (pid 4121) for 3 min · 2 waiting`.
 * timeLeft words the validity another way (the tree's rough wording far from expiry).
 */
export function rowDetail(entry: LockEntry, nowMs: number, timeLeft: (ms: number) => string = formatDuration, age?: (ms: number) => string): string {
  const left = entry.verdict === 'held' && entry.validityMs !== null ? timeLeft(entry.validityMs) : '';
  const who = whoSuffix(entry, nowMs, false, age);
  return left ? left + who : who.replace(/^ · /, '');
}
