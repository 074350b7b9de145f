// The shared vocabulary (docs/vocabulary.md). The CLI, the trees and the webview render these
// types; none of them classifies anything on its own.
import type { Flag } from './flags';

export type { Flag } from './flags';
export type Verdict = 'split' | 'held' | 'unknown' | 'partial';
export type ObservationState = 'present' | 'absent' | 'unreachable' | 'unreadable';

/** Lock layouts the inspector recognises (see formats.ts). */
export type LockFormat =
  | 'string'            // SET NX PX token: node-redlock and forks, redsync, redis-semaphore mutex, hand-written
  | 'redisson-lock'     // hash <uuid>:<threadId> -> hold count
  | 'redisson-rwlock'   // hash with mode = read | write
  | 'semaphore';        // zset of holder ids (redis-semaphore)

/** One key on one node, as read at `readAt` (ms since epoch, local clock). */
export interface Observation {
  node: string;
  state: ObservationState;
  /** Display form (printable UTF-8 as is, else `hex:<hex>`); multi-holder formats join sorted ids with ','. */
  token: string | null;
  /** -1 for no expiry. */
  pttlMs: number | null;
  type: string | null;
  format: LockFormat | null;
  holdCount: number | null;
  reason: string | null;
  /** Who holds this copy, when its token says so (ours, Redisson's thread); else null. */
  holder?: Holder | null;
}

/** A lock's holder as its token reveals it (docs/formats.md); null fields are not revealed. */
export interface Holder {
  name: string | null;
  host: string | null;
  pid: number | null;
  /** Epoch ms of the acquisition. */
  since: number | null;
  /** Redisson's thread id. */
  thread?: number | null;
  /** The library whose convention it was decoded from (docs/formats.md, "Their holders"). */
  library?: string | null;
}

/** One permit or reader of a multi-holder lock (semaphore, read lock). */
export interface Owner {
  token: string;
  holder: Holder | null;
}

/** A client whose acquire is retrying; `since` is its first refused attempt (epoch ms). */
export interface Waiter {
  name: string | null;
  host: string | null;
  pid: number | null;
  since: number | null;
  /** Set only for an entry that could not be decoded ('unreadable'). */
  reason?: string;
  /** A foreign library's waiter: the instant it gives up (Redisson's fair lock), else absent. */
  deadline?: number | null;
  thread?: number | null;
  library?: string | null;
}

export interface ClassifyOptions {
  driftFactor: number;
  expiringThresholdMs: number;
}

export interface Classification {
  verdict: Verdict;
  flags: Flag[];
  validityMs: number | null;
  quorum: number;
  /** token -> number of nodes holding it. A null-prototype object: tokens may be any string. */
  holders: Record<string, number>;
  /**
   * The token on a quorum of nodes (at most one can be, even in a split), else null. It is
   * the lock's holder: validity is its validity, and Extend extends it (docs/decisions.md).
   * Not part of a LockEntry (the `status --json` shape is fixed): read it with quorumTokenOf().
   */
  quorumToken: string | null;
}

export interface LockEntry extends Omit<Classification, 'quorumToken'> {
  key: string;
  /** The highest fence counter any node holds for this resource; null when none does. */
  fence: number | null;
  /** Fewer than a quorum of reachable nodes hold `fence`: the next fence may repeat one. */
  fenceRisk: boolean;
  nodes: Observation[];
  /** The quorum token's holder; null when no token has a quorum or it carries no identity. */
  holder?: Holder | null;
  /** Clients retrying an acquire of this key, merged across nodes, oldest first. */
  waiters?: Waiter[];
  /** Set with the `deadlock` flag: every key of the wait cycle, sorted. */
  cycle?: string[];
  /** Multi-holder locks only: one entry per permit or reader of the quorum token. */
  owners?: Owner[];
  /** Held locks only: is the holder alive, with the evidence (docs/liveness.md). */
  liveness?: Liveness;
}

/**
 * How a node's last read ended, decided once from its reply (src/core/connection/replies.ts): `ok`;
 * `auth` (a password missing or wrong); `timeout` (no reply within the deadline);
 * `refused` (it replied and refused: NOPERM, READONLY, MOVED...); `unreachable` (no
 * connection, or not serving for now: BUSY, LOADING, MASTERDOWN).
 */
/** Each true, false, or null when the server would not say (docs/architecture.md "Their servers"). */
export interface NodeCapabilities {
  /** EVAL/EVALSHA. */
  scripts: boolean | null;
  /** EVAL_RO/EVALSHA_RO (Redis 7.0+), enough for a role granted only those. */
  readOnlyScripts: boolean | null;
  /** `#!lua flags=no-writes` shebangs (Redis 7.0+; 6.2 rejects them when compiling). */
  scriptFlags: boolean | null;
  pexpiretime: boolean | null;
  memoryUsage: boolean | null;
  time: boolean | null;
  config: boolean | null;
  /** A native compare-and-delete (Valkey 9 DELIFEQ, Redis 8.4 DELEX ... IFEQ). */
  compareAndDelete: boolean | null;
}

/** `unsupported`: the node answered, but cannot serve the read as it is configured (a missing capability, named in `error`). */
export type NodeOutcome = 'ok' | 'auth' | 'timeout' | 'refused' | 'unreachable' | 'unsupported';

export interface NodeStatus {
  node: string;
  reachable: boolean;
  latencyMs: number | null;
  /** The node's words (or the connection's) when it did not answer; for people, not tests. */
  error: string | null;
  outcome: NodeOutcome;
  /** `redis`, `valkey`, or INFO's server_name; null when unknown (additive). */
  server?: string | null;
  /** The server's own version, e.g. Valkey `8.0.1` (additive). */
  version?: string | null;
  capabilities?: NodeCapabilities;
  /** How its keys were read: read-only scripts, or plain commands where scripts are refused (additive). */
  readPath?: 'scripts' | 'commands';
}

export interface SkippedKey {
  key: string;
  reason: string;
  /** reason 'orphaned': the lock this bookkeeping key served (docs/formats.md, "Their bookkeeping"). */
  of?: string;
}

/** The document `status --json` prints. */
export interface Snapshot {
  quorum: number;
  nodes: NodeStatus[];
  locks: LockEntry[];
  skipped: SkippedKey[];
  truncated: boolean;
}

// Is the holder alive? (docs/liveness.md); judged and worded in liveness.ts.
export type LivenessVerdict = 'alive' | 'stopped-renewing' | 'gone' | 'unknown';
export type EvidenceKind = 'connection' | 'process' | 'renewal' | 'history';

/** One signal and what it says, in words every surface shows as they are. */
export interface LivenessEvidence {
  kind: EvidenceKind;
  says: string;
  /** Which way the signal points: the holder works, it stopped, it is gone, or nothing either way. */
  points: 'alive' | 'stopped' | 'gone' | 'none';
  /** connection: nodes where a connection names the holder, of the nodes asked. */
  connectedOn?: number;
  asked?: number;
  /** connection: the least idle of its connections (ms). */
  idleMs?: number | null;
  /** process: the holder's pid on this host. */
  pid?: number;
  /** renewal: ms since the last renewal seen, and the interval it kept. */
  lastRenewalMs?: number | null;
  everyMs?: number | null;
  /** history: how long the holder has held the lock. */
  heldMs?: number;
  p95Ms?: number | null;
}

/** The `liveness` object of a held lock (docs/formats.md, "Liveness"). */
export interface Liveness {
  verdict: LivenessVerdict;
  evidence: LivenessEvidence[];
  suggestion: string;
}
