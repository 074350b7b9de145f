// How urgent a lock's state is, as one of four levels every surface colours the same way:
// derived from the anomaly order (src/shared/lockOrder.ts), so the panel's badge and the
// tree's icon never disagree about what is in trouble.
import type { LockEntry } from '../core/vocabulary/types';
import { FLAGS } from '../core/vocabulary/flags';
import { anomalyRank } from './lockOrder';

/** error: act now (split, deadlock, stuck forever); warning: look (partial, unknown, no TTL); caution: may turn bad; ok: held. */
export type Severity = 'error' | 'warning' | 'caution' | 'ok';

export function lockSeverity(e: Pick<LockEntry, 'verdict' | 'flags' | 'liveness'>): Severity {
  const rank = anomalyRank(e);
  // Below 0: a lock without TTL whose holder is gone, stuck forever.
  if (rank <= 0) return 'error';
  if (rank < 4) return 'warning';
  if (e.flags.some((f) => FLAGS[f].severity === 'caution')) return 'caution';
  return 'ok';
}
