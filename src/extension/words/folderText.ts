// The word a folder row uses for its worst lock: the headline's first words, as the lock
// row itself leads with them (src/shared/lockRow.ts), so a folder and its row agree.
import { FLAGS, HEADLINE_FLAGS, type LockEntry } from '../../core';
import { needsAttention } from '../../shared/lockOrder';

/** `split`, `deadlock`, `partial`, `unknown`, `holder gone`, `no TTL`, `TTL skew`, `degraded`; undefined when nothing needs attention. */
export function worstWord(e: Pick<LockEntry, 'verdict' | 'flags' | 'liveness'>): string | undefined {
  if (!needsAttention(e)) return undefined;
  if (e.flags.includes('deadlock')) return 'deadlock';
  if (e.verdict !== 'held') return e.verdict;
  if (e.liveness?.verdict === 'gone') return 'holder gone';
  return HEADLINE_FLAGS.find(([flag]) => FLAGS[flag].attention && e.flags.includes(flag))?.[1];
}
