// Lock entries as the read pipeline builds them, and copies with a field or two replaced
// for the stages that learn more about a lock (entries are values: a stage gives a new one).
// A snapshot of 100k locks builds each entry once (with its liveness, where classification
// knows it: livenessRead.ts oneReadLiveness), so how an entry is made shows. Each derives
// its `holders` from its copies (holderCounts.ts), as every entry's is by definition: a
// spread would turn it into a record of its own, built for every lock, which is what
// deriving saves. Every stage copies through here, never by a spread: a spread reads the
// derived record into a property of its own and gives the entry hidden classes that only
// spreads make (docs/decisions.md, "Entries of one shape").
import { deriveHolders } from '../vocabulary/holderCounts';
import type { Classification, Flag, Holder, Liveness, LockEntry, Observation, Owner, Waiter } from '../vocabulary/types';

/** The waiters of a lock without any: one frozen array shared by every such entry; waiters are replaced, never changed in place. */
export const NO_WAITERS = Object.freeze([]) as unknown as Waiter[];

/** The fields the builders below name; `true` only while they are all of LockEntry's. */
type BuiltField = 'key' | 'verdict' | 'flags' | 'validityMs' | 'quorum' | 'holders' | 'fence' | 'fenceRisk' | 'nodes' | 'holder' | 'waiters' | 'cycle' | 'owners' | 'liveness';
type BuildsEvery = [Exclude<keyof LockEntry, BuiltField>] extends [never] ? true : never;
// A field added to LockEntry fails to compile here until the builders set it.
const EVERY_FIELD_BUILT: BuildsEvery = true;

/**
 * An entry with its fields in the order `status --json` prints them, `holders` derived from
 * `nodes`; the optional ones only where given. A constructor, not a literal and stores: V8
 * lays out every field a constructor sets inside the object (a literal of the first five
 * then six stores took a second, growing array per entry). Its prototype is
 * Object.prototype: an entry is a plain object to every reader, `deepStrictEqual` included.
 */
function EntryFields(this: LockEntry, key: string, verdict: LockEntry['verdict'], flags: Flag[], validityMs: number | null, quorum: number, fence: number | null, fenceRisk: boolean, nodes: Observation[], holder: Holder | null | undefined, waiters: LockEntry['waiters'], cycle: string[] | undefined, owners: Owner[] | undefined, liveness: Liveness | undefined): void {
  this.key = key;
  this.verdict = verdict;
  this.flags = flags;
  this.validityMs = validityMs;
  this.quorum = quorum;
  deriveHolders(this);
  this.fence = fence;
  this.fenceRisk = fenceRisk;
  this.nodes = nodes;
  if (holder !== undefined) this.holder = holder;
  if (waiters !== undefined) this.waiters = waiters;
  // A field added to LockEntry fails to compile at EVERY_FIELD_BUILT until it is set here.
  if (EVERY_FIELD_BUILT && cycle !== undefined) this.cycle = cycle;
  if (owners !== undefined) this.owners = owners;
  if (liveness !== undefined) this.liveness = liveness;
}
EntryFields.prototype = Object.prototype;
const Entry = EntryFields as unknown as new (...args: Parameters<typeof EntryFields>) => LockEntry;

/** A classified key's entry: no waiters read yet, `holders` derived from its copies. */
export function newEntry(key: string, c: Omit<Classification, 'holders' | 'quorumToken'>, fence: number | null, fenceRisk: boolean, nodes: Observation[], holder: Holder | null, owners: Owner[] | undefined, liveness?: Liveness): LockEntry {
  return new Entry(key, c.verdict, c.flags, c.validityMs, c.quorum, fence, fenceRisk, nodes, holder, NO_WAITERS, undefined, owners, liveness);
}

/** `e` with some of its fields replaced, its `holders` derived from its (new) copies. */
function copy(e: LockEntry, validityMs: number | null, flags: Flag[], nodes: Observation[], liveness: Liveness | undefined): LockEntry {
  return new Entry(e.key, e.verdict, flags, validityMs, e.quorum, e.fence, e.fenceRisk, nodes, e.holder, e.waiters, e.cycle, e.owners, liveness);
}

/** `e` with its liveness; without one, given undefined. */
export function withLiveness(e: LockEntry, liveness: Liveness | undefined): LockEntry {
  return copy(e, e.validityMs, e.flags, e.nodes, liveness);
}

/** `e` with its fence counter's highest value and whether too few nodes hold it. */
export function withFence(e: LockEntry, fence: number | null, fenceRisk: boolean): LockEntry {
  return new Entry(e.key, e.verdict, e.flags, e.validityMs, e.quorum, fence, fenceRisk, e.nodes, e.holder, e.waiters, e.cycle, e.owners, e.liveness);
}

/** `e` with its live waiters. */
export function withWaiters(e: LockEntry, waiters: Waiter[]): LockEntry {
  return new Entry(e.key, e.verdict, e.flags, e.validityMs, e.quorum, e.fence, e.fenceRisk, e.nodes, e.holder, waiters, e.cycle, e.owners, e.liveness);
}

/** `e` on the wait cycle `cycle` (undefined: on none), with `flags`. */
export function withCycle(e: LockEntry, flags: Flag[], cycle: string[] | undefined): LockEntry {
  return new Entry(e.key, e.verdict, flags, e.validityMs, e.quorum, e.fence, e.fenceRisk, e.nodes, e.holder, e.waiters, cycle, e.owners, e.liveness);
}

/** `e` with other copies of the same tokens (their PTTLs counted down): its holders stand. */
export function withNodes(e: LockEntry, nodes: Observation[]): LockEntry {
  return copy(e, e.validityMs, e.flags, nodes, e.liveness);
}
