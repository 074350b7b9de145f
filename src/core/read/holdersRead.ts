// The inspector's side of holders, waiters and deadlocks: who holds each copy (decoded
// from its token, no read), who waits (one read-only script per node and batch), and
// which locks sit on a wait-for cycle. Reads only.
import { findCycles, WaitNode } from '../vocabulary/deadlocks';
import { holderOf, processOfCopies } from '../vocabulary/holderToken';
import { factsOf, readable, sharedNumbers, type InspectContext, type NodeScan } from './context';
import { withDeadline } from '../connection/deadline';
import type { RedisNode } from '../connection/nodes';
import type { Holder, LockEntry, Observation, Owner } from '../vocabulary/types';
import { quorumTokenOf } from '../vocabulary/actions';
import { NO_WAITERS, withCycle, withWaiters } from './entryCopy';
import { internalKeyOf, mergeWaiters, readWaiting, WaitingRead } from '../bookkeeping/waiters';
import { internalKey } from '../bookkeeping/internalKeys';

/**
 * Waiter sets per script call. 1000 cost a node 3-4 ms on this machine, 20 ms once it was
 * descheduled under load; 500, as the page script's batches, keeps a call far inside the
 * 10 ms budget (docs/decisions.md, "Bounded reads").
 */
const WAIT_BATCH = 500;

/**
 * The process ids behind a lock's waiters, in the order of its `waiters`: matched with
 * holders to find wait cycles, never shown. Handed from the waiters stage to the deadlock
 * stage as a value (the watcher keeps it beside each lock it knows).
 */
export type WaiterProcesses = ReadonlyArray<string | null>;

/** No waiter, no process to match. */
export const NO_PROCESSES: WaiterProcesses = Object.freeze([]);

/**
 * What the copies' tokens say of who holds the lock (no read): the quorum token's holder
 * (each copy decoded its own when it was read), and for multi-holder layouts each owner.
 */
export function holderFields(nodes: readonly Observation[], quorumToken: string | null): { holder: Holder | null; owners: Owner[] | undefined } {
  if (quorumToken === null) return { holder: null, owners: undefined };
  let holder: Holder | null = null;
  let format: string | null = null;
  for (const o of nodes) {
    if (o.state !== 'present' || o.token !== quorumToken) continue;
    // A copy built elsewhere than the read (a test's builder) may not carry its holder.
    holder = o.holder !== undefined ? o.holder : holderOf(o.token, o.format);
    format = o.format;
    if (holder !== null) break;
  }
  // Multi-holder layouts: the token is the sorted ids joined by ','; each id is one owner.
  const owners = format === 'semaphore' || format === 'redisson-rwlock' ? ownersOf(quorumToken, format) : undefined;
  return { holder, owners };
}

/** The id that matches the lock's holder with its waits elsewhere (our process id, Redisson's client). */
function holderProcessOf(e: LockEntry): string | null {
  const token = quorumTokenOf(e);
  return token === null ? null : processOfCopies(e.nodes, token);
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

/** What the waiters stage gives for the entries it was handed, in their order. */
export interface WaitersRead {
  /** Each entry, replaced where its waiters changed. */
  entries: LockEntry[];
  /** Each entry's waiters' process ids. */
  processes: WaiterProcesses[];
  /** How many of them have waiters. */
  waited: number;
}

/**
 * Reads the live waiters of `entries` on every reachable node. A node whose read fails
 * adds nothing (the lock's own reads already say how it is). Entries are values: one whose
 * waiters differ comes back as a new entry.
 */
export async function readWaiters(ctx: InspectContext, scans: NodeScan[], entries: readonly LockEntry[], ids: readonly string[]): Promise<WaitersRead> {
  const out: WaitersRead = { entries: entries.slice(), processes: new Array(entries.length).fill(NO_PROCESSES), waited: 0 };
  if (entries.length === 0) return out;
  // Named only for the keys some node is asked about.
  const keys: Array<string | null | undefined> = new Array(entries.length);
  const perNode: Array<Array<WaitingRead | undefined>> = ctx.nodes.map(() => new Array(entries.length));
  const numbers = sharedNumbers(scans, ids);
  await Promise.all(
    ctx.nodes.map(async (node, n) => {
      const scan = scans[n];
      if (!scan || !readable(scan.status)) return;
      const wanted: number[] = [];
      for (let i = 0; i < entries.length; i++) {
        const k = scan.reads.numberOf(ids[i], numbers?.[i]);
        // On a cluster each key (and its waiter set, same slot) lives on one master only.
        if (ctx.ownerOnly && k < 0) continue;
        // The key's SCAN page already found no waiter set beside it (taken once: a later
        // read, a watch tick, asks the node again).
        const facts = k < 0 ? undefined : scan.reads.factsAt(k);
        if (facts?.noWaiters) {
          scan.reads.setFactsAt(k, factsOf(facts.fence, false));
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
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    let read = false;
    for (let n = 0; n < perNode.length && !read; n++) read = perNode[n][i] !== undefined;
    const merged = read ? mergeWaiters(perNode.map((r) => r[i])) : [];
    if (merged.length === 0) {
      // No node lists a waiter (the common case): nothing to merge or match.
      if (e.waiters !== undefined && e.waiters.length > 0) out.entries[i] = withWaiters(e, NO_WAITERS);
      continue;
    }
    out.entries[i] = withWaiters(e, merged.map((m) => m.waiter));
    out.processes[i] = merged.map((m) => m.processId);
    out.waited++;
  }
  return out;
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

/** A lock as the deadlock stage sees it: its entry and its waiters' process ids. */
export interface Waits {
  entry: LockEntry;
  processes: WaiterProcesses;
}

/**
 * Every lock on a wait-for cycle gets the `deadlock` flag and its `cycle`; a lock that
 * had them and is on no cycle loses both. Returns the new entry of each lock whose flag or
 * cycle changed, by its old entry; the others stand as they are.
 */
export function flagDeadlocks(locks: Iterable<Waits>): Map<LockEntry, LockEntry> {
  const all = [...locks];
  const nodes: WaitNode[] = [];
  for (const { entry: e, processes } of all) {
    // No waiter, no wait edge.
    if (e.waiters === undefined || e.waiters.length === 0 || processes.length === 0) continue;
    const holder = holderProcessOf(e);
    if (holder !== null) nodes.push({ key: e.key, holder, waiters: [...processes] });
  }
  const cycles = nodes.length > 1 ? findCycles(nodes) : new Map<string, string[]>();
  const replaced = new Map<LockEntry, LockEntry>();
  for (const { entry: e } of all) {
    // Most entries have no flag at all and sit on no cycle: nothing to look up.
    if (cycles.size === 0 && e.flags.length === 0) continue;
    const cycle = cycles.size === 0 ? undefined : cycles.get(e.key);
    const had = e.flags.includes('deadlock');
    if (cycle) {
      if (had && e.cycle !== undefined && e.cycle.join('\n') === cycle.join('\n')) continue;
      replaced.set(e, withCycle(e, had ? e.flags : [...e.flags, 'deadlock'], cycle));
    } else if (had) {
      replaced.set(e, withCycle(e, e.flags.filter((f) => f !== 'deadlock'), undefined));
    }
  }
  return replaced;
}
