// The inspector's view of fence counters: for each lock shown, the highest counter any
// node holds for its resource, and whether a quorum of nodes holds that value (if not,
// the next fenced acquisition may be granted by nodes that never saw it, and its fence
// can repeat an old one: docs/fencing.md). Reads only (MGET, or GET per key on a
// cluster), one call per thousand keys per node; a node that refuses or misses the
// deadline contributes nothing. On a standalone node the scan learns the counters of its
// keys itself (a walk of the internal keys beside the SCAN pages, src/core/read/internalWalk.ts)
// and classifyKeys takes them from the slots; keys read otherwise (gaps, a cluster, a
// watch tick) are asked for after classification, for the locks only.
import { readable, type InspectContext, type NodeScan } from './context';
import { withDeadline } from '../connection/deadline';
import { internalKey } from '../bookkeeping/internalKeys';
import type { RedisNode } from '../connection/nodes';
import type { LockEntry } from '../vocabulary/types';
import { withFence } from './entryCopy';
import { sendableKey } from './keyTable';

const BATCH = 1000;
const COUNTER = /^\d{1,15}$/;

/** The counter key of a key id (latin1 form of the key's bytes), ready to send. */
function counterKeyOf(id: string): string | Buffer {
  return sendableKey(internalKey('fence', id));
}

function counterValue(v: unknown): number | null {
  if (typeof v !== 'string' || !COUNTER.test(v)) return null;
  const n = Number(v);
  return n > 0 ? n : null;
}

/** The counters of `ids` on one node; null where there is none or the read failed. */
async function readCounters(node: RedisNode, ids: readonly string[], ms: number): Promise<Array<number | null>> {
  const out: Array<number | null> = new Array(ids.length).fill(null);
  const batches: Array<Promise<void>> = [];
  for (let from = 0; from < ids.length; from += BATCH) {
    const chunk = ids.slice(from, from + BATCH).map(counterKeyOf);
    // A cluster refuses one MGET over several slots: GETs, pipelined by ioredis.
    const read = node.clusterMember
      ? Promise.all(chunk.map((k) => node.client.get(k).catch(() => null)))
      : node.client.mget(...chunk);
    batches.push(
      withDeadline(read, ms).then(
        (values) => values.forEach((v, j) => (out[from + j] = counterValue(v))),
        () => undefined,
      ),
    );
  }
  await Promise.all(batches);
  return out;
}

/** A counter as the SCAN page script read it (its first bytes, or null: none). */
export function pageCounter(raw: Buffer | null | undefined): number | null {
  return raw ? counterValue(raw.toString('latin1')) : null;
}

/**
 * `locks` with `fence` and `fenceRisk` read for each index of `which` (`lockIds[i]` is
 * the latin1 id of `locks[i]`) on every reachable node: a new array (the same one when
 * `which` is empty), the entries read replaced by new ones. A node out of reach holds no counter as far as the inspector knows.
 */
export async function readFences(ctx: InspectContext, scans: readonly NodeScan[], locks: LockEntry[], lockIds: readonly string[], which: readonly number[]): Promise<LockEntry[]> {
  // Nothing to read (a snapshot whose pages carried every counter): the same list, no copy.
  if (which.length === 0) return locks;
  const out = locks.slice();
  const ms = ctx.commandTimeoutMs;
  if (ctx.ownerOnly) {
    // Each key (and its counter, in the same slot) lives on one master.
    const byOwner = new Map<number, number[]>();
    for (const li of which) {
      const owner = scans.findIndex((s) => s.reads.has(lockIds[li]));
      if (owner < 0 || !readable(scans[owner].status)) continue;
      const list = byOwner.get(owner) ?? [];
      list.push(li);
      byOwner.set(owner, list);
    }
    await Promise.all(
      [...byOwner].map(async ([owner, lis]) => {
        const values = await readCounters(ctx.nodes[owner], lis.map((li) => lockIds[li]), ms);
        lis.forEach((li, j) => (out[li] = fencedBy(locks[li], [values[j]])));
      }),
    );
    return out;
  }
  const ids = which.map((li) => lockIds[li]);
  const perNode = await Promise.all(
    ctx.nodes.map((node, i) => (readable(scans[i].status) ? readCounters(node, ids, ms) : Promise.resolve(null))),
  );
  which.forEach((li, j) => (out[li] = fencedBy(locks[li], perNode.map((values) => values?.[j] ?? null))));
  return out;
}

function fencedBy(entry: LockEntry, counters: ReadonlyArray<number | null>): LockEntry {
  let max: number | null = null;
  for (const c of counters) if (c !== null && (max === null || c > max)) max = c;
  let holding = 0;
  for (const c of counters) if (c !== null && c === max) holding++;
  const fenceRisk = max !== null && holding < entry.quorum;
  return entry.fence === max && entry.fenceRisk === fenceRisk ? entry : withFence(entry, max, fenceRisk);
}
