// One node's part of a read: what it holds of each key, the instant it was read and what
// its page found beside it, in three arrays by the key's number (keyTable.ts) instead of a
// record per key (a 100k x 5 watch held 500,000 of them: 23 MB, and as many allocations
// in its first tick). See docs/architecture.md, "The read state".
import type { Observation } from '../vocabulary/types';
import type { KeyTable, Numbered } from './keyTable';

/**
 * When a read's keys were read: one per page or read batch, shared by its keys (a number
 * per copy would be a boxed double each: two per copy, a million at 100k locks x 5).
 */
export interface Stamp {
  /** The node's clock after the read's last PTTL, in local epoch ms. */
  at: number;
  /**
   * How late `at` may be (ms): the node's clock is read by the script after the command
   * began, and a node descheduled in between stamps its PTTLs later than it read them.
   * At most the time from sending the call to the node's stamp.
   */
  err: number;
}

/**
 * What a scan's page found beside a key, for the stages that follow; each takes its part
 * by giving the key new facts (factsOf), never by changing these: most keys share one.
 */
export interface ScanFacts {
  /** The resource's fence counter as the scan found it (undefined: read apart); taken by classifyKeys. */
  readonly fence: number | null | undefined;
  /** The scan found no waiter set beside this key; taken by readWaiters. */
  readonly noWaiters: boolean;
}

/** No counter, then unknown; each with and without waiters (factsOf's index). */
const SHARED_FACTS: readonly ScanFacts[] = [
  Object.freeze({ fence: null, noWaiters: true }),
  Object.freeze({ fence: null, noWaiters: false }),
  Object.freeze({ fence: undefined, noWaiters: true }),
  Object.freeze({ fence: undefined, noWaiters: false }),
];

/**
 * The facts `fence` and `noWaiters`, shared unless a counter was found: a fresh pair per
 * key and node was 20 MB of a 100k x 5 watch's first tick, let go at its end.
 */
export function factsOf(fence: number | null | undefined, noWaiters: boolean): ScanFacts {
  if (typeof fence === 'number') return { fence, noWaiters };
  return SHARED_FACTS[(fence === null ? 0 : 2) + (noWaiters ? 0 : 1)];
}

/** Nothing known yet: the counter still to read, waiters still to look for. */
export const UNKNOWN_FACTS = factsOf(undefined, false);

/** `a` grown with empty places up to index `k`: an index past the end would make it sparse (a dictionary). */
export function reach<T>(a: Array<T | undefined>, k: number): void {
  while (a.length <= k) a.push(undefined);
}

/** Given each key, once, as it comes to be held in a node's reads (scanNode's `onRead`). */
export type KeySink = (id: string, obs: Observation) => void;

/**
 * One node's reads by key number, with the lookups by id the read stages use. A key is
 * held when it has an observation here. Iteration runs in the table's order (first seen by
 * any node), not this node's: every reader sorts or looks up by key.
 */
export class NodeReads implements Numbered {
  private obs: Array<Observation | undefined> = [];
  private stamps: Array<Stamp | undefined> = [];
  /** Set by a scan's page; emptied at once by dropFacts (a watch, once its tick's stages ran). */
  private facts: Array<ScanFacts | undefined> = [];
  private count = 0;

  /** `onNew`: given each key as it comes to be held here (see scanNode's `onRead`). */
  constructor(readonly table: KeyTable, private readonly onNew?: KeySink) {}

  get size(): number {
    return this.count;
  }

  /**
   * The number of `id` if this node holds it, else -1. `shared`: its number in the table
   * the scans share, looked up once for all nodes (sharedNumbers; -1 where none).
   */
  numberOf(id: string, shared?: number): number {
    const k = shared ?? this.table.find(id) ?? -1;
    return k >= 0 && this.obs[k] !== undefined ? k : -1;
  }

  has(id: string): boolean {
    return this.numberOf(id) >= 0;
  }

  /** What this node holds of `id`, if it was read here. */
  obsOf(id: string): Observation | undefined {
    const k = this.table.find(id);
    return k === undefined ? undefined : this.obs[k];
  }

  /** When `id` was read here, if it was. */
  stampOf(id: string): Stamp | undefined {
    const k = this.numberOf(id);
    return k < 0 ? undefined : this.stamps[k];
  }

  /** By the key's number (KeyTable.find): a lock's copies on every node by one lookup. */
  obsAt(k: number): Observation | undefined {
    return this.obs[k];
  }

  /** The stamp of a key this node holds. */
  stampAt(k: number): Stamp {
    return this.stamps[k]!;
  }

  factsAt(k: number): ScanFacts | undefined {
    return this.facts[k];
  }

  setFactsAt(k: number, facts: ScanFacts | undefined): void {
    reach(this.facts, k);
    this.facts[k] = facts;
  }

  /** Holds `obs` for `id`, read at `stamp`; gives the key's number. */
  set(id: string, obs: Observation, stamp: Stamp, facts: ScanFacts | undefined): number {
    return this.hold(this.table.number(id), obs, stamp, facts);
  }

  /** `set` for the key whose name is `key`'s bytes: no string made for a key the table has. */
  setBytes(key: Buffer, obs: Observation, stamp: Stamp, facts: ScanFacts | undefined): number {
    return this.hold(this.table.numberOfBytes(key), obs, stamp, facts);
  }

  /** `setBytes` for the key whose name is buf[start, end) (a packed page's, packedReply.ts). */
  setRange(buf: Buffer, start: number, end: number, obs: Observation, stamp: Stamp, facts: ScanFacts | undefined): number {
    return this.hold(this.table.numberOfRange(buf, start, end), obs, stamp, facts);
  }

  /** `set` for the key numbered `k` in this node's table (numbered as its page was decoded). */
  setNumbered(k: number, obs: Observation, stamp: Stamp, facts: ScanFacts | undefined): number {
    return this.hold(k, obs, stamp, facts);
  }

  private hold(k: number, obs: Observation, stamp: Stamp, facts: ScanFacts | undefined): number {
    // The copies and stamps grow together.
    while (this.obs.length <= k) {
      this.obs.push(undefined);
      this.stamps.push(undefined);
    }
    const added = this.obs[k] === undefined;
    if (added) this.count++;
    this.obs[k] = obs;
    this.stamps[k] = stamp;
    if (facts !== undefined || k < this.facts.length) this.setFactsAt(k, facts);
    if (added && this.onNew !== undefined) this.onNew(this.table.nameOf(k), obs);
    return k;
  }

  /** Replaces the copy of a key this node holds (counted down to a new stamp). */
  setAt(k: number, obs: Observation, stamp: Stamp): void {
    this.obs[k] = obs;
    this.stamps[k] = stamp;
  }

  delete(id: string): boolean {
    const k = this.numberOf(id);
    if (k < 0) return false;
    this.obs[k] = undefined;
    this.stamps[k] = undefined;
    if (k < this.facts.length) this.facts[k] = undefined;
    this.count--;
    return true;
  }

  clear(): void {
    this.obs = [];
    this.stamps = [];
    this.facts = [];
    this.count = 0;
  }

  /** Every key's facts let go of. */
  dropFacts(): void {
    this.facts = [];
  }

  /** Each key held, with its observation and number; deleting the current one meanwhile is allowed, as in a Map. */
  forEach(f: (obs: Observation, id: string, k: number) => void): void {
    const obs = this.obs;
    for (let k = 0; k < obs.length; k++) {
      const o = obs[k];
      if (o !== undefined) f(o, this.table.nameOf(k), k);
    }
  }

  markHeld(held: Uint8Array): void {
    for (let k = 0; k < this.obs.length; k++) if (this.obs[k] !== undefined) held[k] = 1;
  }

  renumber(to: Int32Array, size: number): void {
    const obs: Array<Observation | undefined> = [];
    const stamps: Array<Stamp | undefined> = [];
    const facts: Array<ScanFacts | undefined> = [];
    reach(obs, size - 1);
    reach(stamps, size - 1);
    for (let k = 0; k < this.obs.length; k++) {
      if (this.obs[k] === undefined) continue;
      obs[to[k]] = this.obs[k];
      stamps[to[k]] = this.stamps[k];
      if (this.facts[k] !== undefined) {
        reach(facts, to[k]);
        facts[to[k]] = this.facts[k];
      }
    }
    this.obs = obs;
    this.stamps = stamps;
    this.facts = facts;
  }
}
