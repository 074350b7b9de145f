// Lock entries as the read pipeline builds them, and copies with a field or two replaced
// for the stages that learn more about a lock (entries are values: a stage gives a new one).
// A snapshot of 100k locks builds each entry once (with its liveness, where classification
// knows it: livenessRead.ts oneReadLiveness), so how an entry is made shows. Each derives
// its `holders` from its copies (holderCounts.ts), as every entry's is by definition: a
// spread would turn it into a record of its own, built for every lock, which is what
// deriving saves.
import { deriveHolders } from '../vocabulary/holderCounts';
import type { Classification, Flag, Holder, Liveness, LockEntry, Observation, Owner } from '../vocabulary/types';
import { NO_WAITERS } from './holdersRead';

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

/** `e` with its liveness. */
export function withLiveness(e: LockEntry, liveness: Liveness): LockEntry {
  return copy(e, e.validityMs, e.flags, e.nodes, liveness);
}

/** `e` with other copies of the same tokens (their PTTLs counted down): its holders stand. */
export function withNodes(e: LockEntry, nodes: Observation[]): LockEntry {
  return copy(e, e.validityMs, e.flags, nodes, e.liveness);
}
