// The inspector's public shapes: options in, snapshot pages and node facts out.
import type { NodeCapabilities, Snapshot } from './types';

/**
 * Lock-ish names in any case (`myLock`, `orders-LOCK`) and the libraries' own prefixes
 * (docs/formats.md). `lock:*`, `redlock:*` and `job-lock:*` are inside the first glob: each
 * pattern is one more walk of the keyspace, so they are not listed again.
 */
export const DEFAULT_PATTERNS: readonly string[] = Object.freeze(['*[lL][oO][cC][kK]*', 'mutex:*', 'semaphore:*']);

/** The default patterns, whatever their order or what a first read added: our own core's locks are then listed through their event logs too. */
export function isDefaultPatterns(patterns: readonly string[]): boolean {
  // The defaults widened by what a first read discovered (the CLI's status and watch) are
  // still no pattern of the user's: our own locks stay found through their event logs.
  return DEFAULT_PATTERNS.every((p) => patterns.includes(p));
}

export interface InspectOptions {
  /** SCAN MATCH globs; default DEFAULT_PATTERNS. */
  patterns?: string[];
  /** Cap on keys scanned per call (per node); a cut snapshot says `truncated`. Default 10,000. */
  maxKeys?: number;
  /** Time budget for one call; default 3,000 ms. */
  timeBudgetMs?: number;
  /** Validity below this flags `expiring`; default 2,000 ms. */
  expiringThresholdMs?: number;
  /** Continue a truncated scan ("load more"): the `next` of the previous page. */
  continueFrom?: ScanCursor | null;
}

/** Opaque continuation of a truncated scan. */
export interface ScanCursor {
  readonly patterns: string[];
  /** Per node id, per pattern: the SCAN cursor to continue from ('0' not started, 'done' finished). */
  readonly cursors: Record<string, string[]>;
}

export interface InspectPage {
  snapshot: Snapshot;
  /** Set when the snapshot was truncated: pass as `continueFrom` to read on. */
  next: ScanCursor | null;
  /** Epoch ms (local clock) when the page was complete. */
  takenAtMs: number;
  /**
   * Redis Cluster: masters that own part of the requested keyspace and did not answer
   * (their locks are unknown); empty for other deployments.
   */
  unread: string[];
}

export type Persistence = 'on' | 'off' | 'unknown';

export interface NodeFacts {
  node: string;
  reachable: boolean;
  latencyMs: number | null;
  version: string | null;
  /** From INFO replication. */
  role: 'master' | 'replica' | 'sentinel' | 'unknown';
  /** Node clock minus local clock (ms), from TIME at the midpoint of the round trip. */
  clockOffsetMs: number | null;
  uptimeS: number | null;
  persistence: Persistence;
  /** Uptime shorter than the longest live TTL with persistence off (the delayed-restart rule). */
  restartRisk: boolean | 'unknown';
  /** Lock libraries whose scripts this node has cached (SCRIPT EXISTS): a hint, not proof. */
  libraries: string[];
  error: string | null;
  /** `redis`, `valkey`, or INFO's server_name (null: INFO refused); `version` is that server's own. */
  server?: string | null;
  /** What the server can do for us, probed once per connection (see NodeCapabilities). */
  capabilities?: NodeCapabilities;
}

