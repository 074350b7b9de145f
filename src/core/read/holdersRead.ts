// The inspector's side of holders, waiters and deadlocks: who holds each copy (decoded
// from its token, no read), who waits (one read-only script per node and batch), and
// which locks sit on a wait-for cycle. Reads only.
import { findCycles, WaitNode } from '../vocabulary/deadlocks';
import { holderOf, processIdOf } from '../vocabulary/holderToken';
import { readable, type InspectContext, type NodeScan } from './context';
import { withDeadline } from '../connection/deadline';
import type { RedisNode } from '../connection/nodes';
import type { LockEntry, Owner, Waiter } from '../vocabulary/types';
import { internalKeyOf, mergeWaiters, readWaiting, WaitingRead } from '../bookkeeping/waiters';
import { internalKey } from '../bookkeeping/internalKeys';

/**
 * Waiter sets per script call. 1000 cost a node 3-4 ms on this machine, 20 ms once it was
 * descheduled under load; 500, as the page script's batches, keeps a call far inside the
 * 10 ms budget (docs/decisions.md, "Bounded reads").
 */
const WAIT_BATCH = 500;

/** The waiters of a lock without any: one frozen array shared by every such entry; waiters are replaced, never changed in place. */
export const NO_WAITERS = Object.freeze([]) as unknown as Waiter[];

/** Process ids behind an entry's holder and waiters: matched, never shown. */
const processIds = new WeakMap<LockEntry, { holder: string | null; waiters: Array<string | null> }>();

/** Sets each copy's holder and the entry's (the quorum token's, when known: classify's). */
export function attachHolders(entry: LockEntry, knownQuorumToken?: string | null): void {
  let quorumToken: string | null = knownQuorumToken ?? null;
  if (knownQuorumToken === undefined) for (const t in entry.holders) if (entry.holders[t] >= entry.quorum) quorumToken = t;
  let holder: LockEntry['holder'] = null;
  let format: string | null = null;
  for (const o of entry.nodes) {
    if (o.state !== 'present') {
      // Absent and unreachable copies are shared, frozen, and already say null.
      if (o.holder === undefined && !Object.isFrozen(o)) o.holder = null;
      continue;
    }
    o.holder = holderOf(o.token, o.format);
    if (o.token === quorumToken && holder === null) {
      holder = o.holder;
      format = o.format;
    }
  }
  entry.holder = holder;
  // Multi-holder layouts: the token is the sorted ids joined by ','; each id is one owner.
  if ((format === 'semaphore' || format === 'redisson-rwlock') && quorumToken !== null) entry.owners = ownersOf(quorumToken, format);
  else if (entry.owners !== undefined) delete entry.owners;
  if (entry.waiters === undefined) entry.waiters = NO_WAITERS;
  const prev = processIds.get(entry);
  const id = processIdOf(quorumToken, format);
  // No entry reads as no holder and no waiter: 100k plain-token locks add none.
  if (id !== null || prev !== undefined) processIds.set(entry, { holder: id, waiters: prev?.waiters ?? [] });
}

/** One owner per id of a multi-holder token; a `hex:` token cannot be split back into ids here. */
export function ownersOf(token: string, format: string): Owner[] {
  if (token.startsWith('hex:')) return [{ token, holder: null }];
  return token.split(',').map((id) => ({ token: id, holder: holderOf(id, format) }));
}

const ASCII = /^[\x00-\x7f]*$/;

/** The waiter set name of a lock id (latin1 bytes of its key); null for non-UTF-8 keys. */
function waiterKeyOf(id: string): string | null {
  // Most keys are ASCII: their latin1 form is their UTF-8 form, no conversion needed.
  return ASCII.test(id) ? internalKey('waiters', id) : internalKeyOf('waiters', Buffer.from(id, 'latin1'));
}

/**
 * Reads the live waiters of `entries` on every reachable node and attaches them. A node
 * whose read fails adds nothing (the lock's own reads already say how it is). Resolves
 * the number of entries that have waiters.
 */
export async function attachWaiters(ctx: InspectContext, scans: NodeScan[], entries: LockEntry[], ids: string[]): Promise<number> {
  if (entries.length === 0) return 0;
  // Named only for the keys some node is asked about.
  const keys: Array<string | null | undefined> = new Array(entries.length);
  const perNode: Array<Array<WaitingRead | undefined>> = ctx.nodes.map(() => new Array(entries.length));
  await Promise.all(
    ctx.nodes.map(async (node, n) => {
      const scan = scans[n];
      if (!scan || !readable(scan.status)) return;
      const wanted: number[] = [];
      for (let i = 0; i < entries.length; i++) {
        const slot = scan.reads.get(ids[i]);
        // On a cluster each key (and its waiter set, same slot) lives on one master only.
        if (ctx.ownerOnly && !slot) continue;
        // The key's SCAN page already found no waiter set beside it (taken once: a later
        // read, a watch tick, asks the node again).
        if (slot?.noWaiters) {
          slot.noWaiters = false;
          continue;
        }
        if (keys[i] === undefined) keys[i] = waiterKeyOf(ids[i]);
        if (keys[i] !== null) wanted.push(i);
      }
      try {
        await readInto(ctx, node, wanted, keys, perNode[n]);
      } catch {
        // Waiters are a hint beside the lock: a failed read leaves them out.
      }
    }),
  );
  let waited = 0;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    const p = processIds.get(e);
    let read = false;
    for (let n = 0; n < perNode.length && !read; n++) read = perNode[n][i] !== undefined;
    if (!read) {
      // No node lists a waiter (the common case): nothing to merge or match.
      if (e.waiters === undefined || e.waiters.length > 0) e.waiters = NO_WAITERS;
      if (p !== undefined && p.waiters.length > 0) processIds.set(e, { holder: p.holder, waiters: [] });
      continue;
    }
    const merged = mergeWaiters(perNode.map((r) => r[i]));
    e.waiters = merged.map((m) => m.waiter);
    if (merged.length > 0) waited++;
    processIds.set(e, { holder: p?.holder ?? null, waiters: merged.map((m) => m.processId) });
  }
  return waited;
}

async function readInto(ctx: InspectContext, node: RedisNode, wanted: number[], keys: ReadonlyArray<string | null | undefined>, out: Array<WaitingRead | undefined>): Promise<void> {
  const batches: Array<Promise<void>> = [];
  // Every batch goes out at once (pipelined): the node works while replies are decoded.
  for (let b = 0; b < wanted.length; b += WAIT_BATCH) {
    const batch = wanted.slice(b, b + WAIT_BATCH);
    const names = batch.map((i) => keys[i]!);
    // A cluster refuses one script over keys of several slots: one call per key, pipelined.
    const read = node.clusterMember ? Promise.all(names.map((k) => readWaiting(node.client, [k]))).then((rs) => rs.map((r) => r[0])) : readWaiting(node.client, names);
    batches.push(withDeadline(read, ctx.commandTimeoutMs).then((reads) => batch.forEach((i, j) => (out[i] = reads[j]))));
  }
  await Promise.all(batches);
}

/**
 * Flags every lock on a wait-for cycle `deadlock` with its `cycle`, and clears both on
 * the others. Returns the entries whose flag or cycle changed.
 */
export function flagDeadlocks(entries: Iterable<LockEntry>): LockEntry[] {
  const all = [...entries];
  const nodes: WaitNode[] = [];
  for (const e of all) {
    // An entry's waiters and their process ids are set together: no waiter, no wait edge.
    if (e.waiters === undefined || e.waiters.length === 0) continue;
    const p = processIds.get(e);
    if (p && p.holder !== null && p.waiters.length > 0) nodes.push({ key: e.key, holder: p.holder, waiters: p.waiters });
  }
  const cycles = nodes.length > 1 ? findCycles(nodes) : new Map<string, string[]>();
  const touched: LockEntry[] = [];
  for (const e of all) {
    // Most entries have no flag at all and sit on no cycle: nothing to look up.
    if (cycles.size === 0 && e.flags.length === 0) continue;
    const cycle = cycles.size === 0 ? undefined : cycles.get(e.key);
    const had = e.flags.includes('deadlock');
    if (cycle) {
      const same = had && e.cycle !== undefined && e.cycle.join('\n') === cycle.join('\n');
      if (!had) e.flags = [...e.flags, 'deadlock'];
      e.cycle = cycle;
      if (!same) touched.push(e);
    } else if (had) {
      e.flags = e.flags.filter((f) => f !== 'deadlock');
      delete e.cycle;
      touched.push(e);
    }
  }
  return touched;
}
