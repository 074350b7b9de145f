// Copies of a lock entry with a field or two replaced, for the stages that learn more about
// a lock (entries are values: a stage gives a new one). A snapshot of 100k locks copies
// every entry twice (its validity at the snapshot's instant, then its liveness), so how a
// copy is made shows: a spread took 13-18 ms per 100k copies, Object.assign 25-40 ms and a
// property array per copy (8 MB at 100k), one literal of every field 3 ms.
import type { Flag, Liveness, LockEntry } from '../vocabulary/types';

/** The fields the literals below name; `true` only while they are all of LockEntry's. */
type CopiedField = 'key' | 'verdict' | 'flags' | 'validityMs' | 'quorum' | 'holders' | 'fence' | 'fenceRisk' | 'nodes' | 'holder' | 'waiters' | 'cycle' | 'owners' | 'liveness';
type CopiesEvery = [Exclude<keyof LockEntry, CopiedField>] extends [never] ? true : never;
// A field added to LockEntry fails to compile here until the literals copy it.
const EVERY_FIELD_COPIED: CopiesEvery = true;

/**
 * Whether `e` has exactly the fields classifyKey (inspect.ts) builds an entry with, in its
 * order: such an entry is copied as one literal with the same keys in the same order. Any
 * other (with owners, a cycle, a liveness already) is copied generically.
 */
function asBuilt(e: LockEntry): boolean {
  return EVERY_FIELD_COPIED && e.holder !== undefined && e.waiters !== undefined && e.owners === undefined && e.cycle === undefined && e.liveness === undefined;
}

/** `e` with its validity and flags at another instant. */
export function entryAt(e: LockEntry, validityMs: number | null, flags: Flag[]): LockEntry {
  if (!asBuilt(e)) return { ...e, validityMs, flags };
  return { key: e.key, verdict: e.verdict, flags, validityMs, quorum: e.quorum, holders: e.holders, fence: e.fence, fenceRisk: e.fenceRisk, nodes: e.nodes, holder: e.holder, waiters: e.waiters };
}

/** `e` with its liveness (a spread gives each copy that gains a property a hidden class of its own: 8 MB per 20,000 locks). */
export function withLiveness(e: LockEntry, liveness: Liveness): LockEntry {
  if (!asBuilt(e)) return Object.assign({}, e, { liveness });
  return { key: e.key, verdict: e.verdict, flags: e.flags, validityMs: e.validityMs, quorum: e.quorum, holders: e.holders, fence: e.fence, fenceRisk: e.fenceRisk, nodes: e.nodes, holder: e.holder, waiters: e.waiters, liveness };
}
