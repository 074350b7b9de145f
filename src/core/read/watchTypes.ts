// The watch's contract with its consumers: options, the change document, the listener.
import type { InspectOptions, NodeFacts } from '../vocabulary/inspectTypes';
import type { LockEntry, NodeStatus, Snapshot } from '../vocabulary/types';

export interface WatchOptions extends Omit<InspectOptions, 'continueFrom'> {
  /** Time between the start of two ticks; default 1,000 ms. */
  intervalMs?: number;
  /**
   * Keys scanned per node and tick (one "page"); default 100,000. `loadMore()` raises the
   * bound by one page at a time, and later ticks keep watching that far.
   */
  maxKeys?: number;
  /**
   * Time budget for one tick's listing; default 3,000 ms. A node's full read (the first tick,
   * a node back from an outage, a cluster's masters) is bounded by `maxKeys` alone.
   */
  timeBudgetMs?: number;
  /** Node facts (INFO, CONFIG, SCRIPT EXISTS) every this many ms; default never. */
  factsEveryMs?: number;
}

/** One watch JSON line after the first: what changed since the previous tick. */
export interface WatchChange {
  at: string;
  added: LockEntry[];
  changed: LockEntry[];
  removed: string[];
}

/** The node side of a snapshot, current at a change. */
export interface WatchStatus {
  quorum: number;
  nodes: NodeStatus[];
  truncated: boolean;
}

export interface WatchListener {
  /** The full state: after the first tick, or at once for a consumer subscribing later. */
  snapshot?(snapshot: Snapshot): void;
  change?(change: WatchChange, status: WatchStatus): void;
  /** After every tick, changed or not (node reachability, truncation). */
  status?(status: WatchStatus): void;
  /** Node facts, read every `factsEveryMs` and on `refresh({ facts: true })`. */
  facts?(facts: NodeFacts[]): void;
  error?(error: unknown): void;
}

/** A consumer's hold on a watcher: dispose() stops its callbacks. */
export interface WatchSubscription {
  dispose(): void;
}
