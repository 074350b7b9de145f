// Other libraries' bookkeeping keys (docs/formats.md, "Their bookkeeping") attached to the
// lock they serve: a Redisson fair lock's timeout zset becomes the lock's waiters (with
// their deadlines), its fenced lock's counter the lock's fence; the rest (read-write
// timeouts, unlock latches, python-redis-lock's signal lists) only stop being rows. One
// whose lock is gone is a leftover of that lock, never a lock. Reads only (ZRANGE).
import { bookkeepingOf } from '../vocabulary/foreignKeys';
import { redissonHolder } from '../vocabulary/foreignHolders';
import { withDeadline } from '../connection/deadline';
import { readable, type Classified, type InspectContext, type NodeScan } from './context';
import type { LockEntry, Waiter } from '../vocabulary/types';

/** Waiters read per fair lock: a queue longer than this is cut (the lock row says how many are shown). */
const MAX_WAITERS = 32;
const COUNTER = /^[0-9]{1,15}$/;

/**
 * Attaches each bookkeeping key of `ids` to its lock among `locks` (`lockIds[i]` is the
 * latin1 id of `locks[i]`), or lists it in `skipped` as orphaned when it is present and no
 * lock it may serve is. `display` turns an id into its shown key.
 */
export async function attachBookkeeping(ctx: InspectContext, scans: NodeScan[], out: Classified, display: (id: string) => string): Promise<void> {
  const { locks, lockIds, bookkeeping: ids } = out;
  if (ids.length === 0) return;
  const index = new Map<string, number>();
  lockIds.forEach((id, i) => index.set(id, i));
  const fairs: Array<[LockEntry, string]> = [];
  let orphaned = false;
  for (const id of ids) {
    const b = bookkeepingOf(id)!;
    const present = scans.some((s) => readable(s.status) && s.reads.get(id)?.obs.state === 'present');
    const owner = b.owners.find((o) => index.has(o));
    if (owner === undefined) {
      // On a cluster the lock was not looked up by name: say nothing rather than guess.
      if (present && !ctx.ownerOnly) {
        out.skipped.push({ key: display(id), reason: 'orphaned', of: display(b.owners[0]) });
        out.skippedIds.push(id);
        orphaned = true;
      }
      continue;
    }
    const entry = locks[index.get(owner)!];
    if (b.kind === 'fence' && entry.fence === null) entry.fence = counterOf(scans, id);
    if (b.kind === 'fair-timeout' && present) fairs.push([entry, id]);
  }
  if (orphaned) sortSkipped(out);
  await Promise.all(fairs.map(([entry, id]) => attachFairWaiters(ctx, scans, entry, id)));
}

/** The highest counter any reachable node holds in a Redisson fence key. */
function counterOf(scans: NodeScan[], id: string): number | null {
  let best: number | null = null;
  for (const s of scans) {
    const t = readable(s.status) ? s.reads.get(id)?.obs.token : null;
    if (typeof t !== 'string' || !COUNTER.test(t)) continue;
    const n = Number(t);
    if (best === null || n > best) best = n;
  }
  return best;
}

/** The fair lock's waiters from the first node that answers, soonest deadline first. */
async function attachFairWaiters(ctx: InspectContext, scans: NodeScan[], entry: LockEntry, id: string): Promise<void> {
  const key = Buffer.from(id, 'latin1');
  for (let i = 0; i < scans.length; i++) {
    if (!readable(scans[i].status) || scans[i].reads.get(id)?.obs.state !== 'present') continue;
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
    entry.waiters = [...entry.waiters ?? [], ...waiters];
    return;
  }
}

/** Skipped keys back in byte order (latin1 ids compare as bytes), their ids beside them. */
export function sortSkipped(out: Pick<Classified, 'skipped' | 'skippedIds'>): void {
  const order = out.skippedIds.map((_, i) => i).sort((a, b) => (out.skippedIds[a] < out.skippedIds[b] ? -1 : out.skippedIds[a] > out.skippedIds[b] ? 1 : 0));
  const skipped = order.map((i) => out.skipped[i]);
  out.skippedIds = order.map((i) => out.skippedIds[i]);
  out.skipped = skipped;
}
