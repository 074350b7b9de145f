// A lock's `holders` record (token -> copies holding it) follows from its copies alone, so
// an entry the read pipeline builds derives it when it is read instead of carrying one.
// Building the record for every lock was a fifth of a 100k-key snapshot's CPU: each token
// became a property name (hashed into V8's string table) of a dictionary-mode object.
import type { LockEntry, Observation } from './types';
import { dataRecord } from './tokens';

/** token -> number of present copies holding it; a present copy without a token counts as ''. */
export function holdersOf(nodes: readonly Observation[]): Record<string, number> {
  const holders = dataRecord<number>();
  for (const o of nodes) {
    if (o.state !== 'present') continue;
    const token = o.token ?? '';
    holders[token] = (holders[token] ?? 0) + 1;
  }
  return holders;
}

/**
 * One descriptor for every derived `holders`: entries that share the getter share their
 * hidden classes. Enumerable, so JSON, spreads and Object.keys see the record as data.
 */
const DERIVED: PropertyDescriptor = {
  get(this: Pick<LockEntry, 'nodes'>): Record<string, number> {
    return holdersOf(this.nodes);
  },
  enumerable: true,
  configurable: true,
};

/** Gives `e` (its `nodes` set, or set before anyone reads it) a `holders` derived from its copies. */
export function deriveHolders<T extends object>(e: T): T {
  return Object.defineProperty(e, 'holders', DERIVED);
}
