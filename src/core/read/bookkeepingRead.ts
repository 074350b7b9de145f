// Other libraries' bookkeeping keys (docs/formats.md, "Their bookkeeping") attached to the
// lock they serve: a Redisson fair lock's timeout zset becomes the lock's waiters (with
// their deadlines), its fenced lock's counter the lock's fence; the rest (read-write
// timeouts, unlock latches, python-redis-lock's signal lists) only stop being rows. One
// whose lock is gone is a leftover of that lock, never a lock. Reads only (ZRANGE).
import { bookkeepingOf } from '../vocabulary/foreignKeys';
import { redissonHolder } from '../vocabulary/foreignHolders';
import { withDeadline } from '../connection/deadline';
import { readable, type Classified, type InspectContext, type NodeScan } from './context';
import type { Waiter } from '../vocabulary/types';

/** Waiters read per fair lock: a queue longer than this is cut (the lock row says how many are shown). */
const MAX_WAITERS = 32;
const COUNTER = /^[0-9]{1,15}$/;

/**
 * `out` with each bookkeeping key of its `bookkeeping` attached to its lock among `locks`
 * (`lockIds[i]` is the latin1 id of `locks[i]`: that entry is replaced), or listed in
 * `skipped` as orphaned when it is present and no lock it may serve is. `display` turns an
 * id into its shown key.
 */
export async function readBookkeeping(ctx: InspectContext, scans: NodeScan[], out: Classified, display: (id: string) => string): Promise<Classified> {
  const { lockIds, bookkeeping: ids } = out;
  if (ids.length === 0) return out;
  const locks = out.locks.slice();
  let skipped = out.skipped;
  let skippedIds = out.skippedIds;
  const index = new Map<string, number>();
  lockIds.forEach((id, i) => index.set(id, i));
  const fairs: Array<[number, string]> = [];
  let orphaned = false;
  for (const id of ids) {
    const b = bookkeepingOf(id)!;
    const present = scans.some((s) => readable(s.status) && s.reads.obsOf(id)?.state === 'present');
    const owner = b.owners.find((o) => index.has(o));
    if (owner === undefined) {
      // On a cluster the lock was not looked up by name: say nothing rather than guess.
      if (present && !ctx.ownerOnly) {
        if (!orphaned) [skipped, skippedIds] = [skipped.slice(), skippedIds.slice()];
        skipped.push({ key: display(id), reason: 'orphaned', of: display(b.owners[0]) });
        skippedIds.push(id);
        orphaned = true;
      }
      continue;
    }
    const li = index.get(owner)!;
    if (b.kind === 'fence' && locks[li].fence === null) locks[li] = { ...locks[li], fence: counterOf(scans, id) };
    if (b.kind === 'fair-timeout' && present) fairs.push([li, id]);
  }
  const sorted = orphaned ? sortSkipped({ skipped, skippedIds }) : { skipped, skippedIds };
  const waiters = await Promise.all(fairs.map(([, id]) => readFairWaiters(ctx, scans, id)));
  fairs.forEach(([li], j) => {
    const w = waiters[j];
    if (w !== null && w.length > 0) locks[li] = { ...locks[li], waiters: [...(locks[li].waiters ?? []), ...w] };
  });
  return { ...out, locks, ...sorted };
}

/** The highest counter any reachable node holds in a Redisson fence key. */
function counterOf(scans: NodeScan[], id: string): number | null {
  let best: number | null = null;
  for (const s of scans) {
    const t = readable(s.status) ? s.reads.obsOf(id)?.token : null;
    if (typeof t !== 'string' || !COUNTER.test(t)) continue;
    const n = Number(t);
    if (best === null || n > best) best = n;
  }
  return best;
}

/** The fair lock's waiters from the first node that answers, soonest deadline first; null when none answers. */
async function readFairWaiters(ctx: InspectContext, scans: NodeScan[], id: string): Promise<Waiter[] | null> {
  const key = Buffer.from(id, 'latin1');
  for (let i = 0; i < scans.length; i++) {
    if (!readable(scans[i].status) || scans[i].reads.obsOf(id)?.state !== 'present') continue;
    let flat: Buffer[];
    try {
      flat = await withDeadline(ctx.nodes[i].client.zrangeBuffer(key, 0, MAX_WAITERS - 1, 'WITHSCORES'), ctx.commandTimeoutMs);
    } catch {
      continue;
    }
    const waiters: Waiter[] = [];
    for (let j = 0; j + 1 < flat.length; j += 2) {
      const field = flat[j].toString('latin1');
      const deadline = Number(flat[j + 1].toString('latin1'));
      const h = redissonHolder(field);
      waiters.push({ name: null, host: null, pid: null, since: null, thread: h?.thread ?? null, deadline: Number.isFinite(deadline) ? deadline : null, library: 'redisson', ...(h ? {} : { reason: 'unreadable' }) });
    }
    return waiters;
  }
  return null;
}

/** Skipped keys in byte order (latin1 ids compare as bytes), their ids beside them: new lists. */
export function sortSkipped(out: Pick<Classified, 'skipped' | 'skippedIds'>): Pick<Classified, 'skipped' | 'skippedIds'> {
  const order = out.skippedIds.map((_, i) => i).sort((a, b) => (out.skippedIds[a] < out.skippedIds[b] ? -1 : out.skippedIds[a] > out.skippedIds[b] ? 1 : 0));
  return { skipped: order.map((i) => out.skipped[i]), skippedIds: order.map((i) => out.skippedIds[i]) };
}
