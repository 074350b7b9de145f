// One reading of what a node said when a call failed, shared by every write and read path
// (acquire, extend, release, force-release, snapshots, watch, node facts). The one
// distinction that matters to an operator: did the node answer and refuse (a permission,
// a replica, a cluster redirect, a wrong type: exit 1, "refused"), or is it out of reach
// for now (no reply in time, no connection, busy, loading, no master: exit 3,
// "unreachable")? See docs/decisions.md "Refused or unreachable".
import { ReplyError } from 'ioredis';
import { AUTH_FAILURE } from '../vocabulary/describe';
import { DeadlineError } from './deadline';
export { DeadlineError } from './deadline';
import type { NodeOutcome } from '../vocabulary/types';

export type FailureOutcome = 'timeout' | 'refused' | 'auth' | 'wrong-type';

/** No reply within a call's own deadline (ioredis' commandTimeout is per client). */
/** Any failure of a node call, in the contract's outcome words and a safe one-line reason. */
export interface Failure {
  outcome: FailureOutcome;
  reason: string;
  /** The node replied and refused (NOPERM, READONLY, MOVED, WRONGTYPE...): it answered. */
  answered: boolean;
}

/** The last connection error a node saw: what a "not writeable" failure really means. */
export interface ConnectionState {
  lastError: string | null;
}

const NOT_CONNECTED = /Stream isn't writeable|Connection is closed|enableOfflineQueue/i;
// Replies that say "not now" rather than "no": the node cannot serve at all for a while.
const NOT_SERVING = /^(BUSY|LOADING|MASTERDOWN|TRYAGAIN|CLUSTERDOWN)\b/;

export function firstLine(s: string): string {
  const line = s.split('\n')[0];
  return line.length > 300 ? line.slice(0, 300) + '…' : line;
}

const HINTS: Array<[RegExp, string]> = [
  [/^(MOVED|ASK)\b/, 'this node is part of a Redis Cluster: use redis+cluster://'],
  [/^READONLY\b/, 'a replica: point at the master'],
  [/^LOADING\b/, 'the node is starting: try again when it has loaded'],
  [/^BUSY\b/, 'the node is running a long script'],
  [/^MASTERDOWN\b/, 'a replica that lost its master'],
  [/^NOPERM\b|can't run this command/, 'the ACL user may not run it'],
];

function withHint(line: string): string {
  for (const [re, hint] of HINTS) if (re.test(line)) return `${line} (${hint})`;
  return line;
}

export const FOREIGN_PROTOCOL = /^Protocol error, got "(.{0,8})" as reply type byte/;

export function classifyFailure(err: unknown, node?: ConnectionState): Failure {
  if (err instanceof DeadlineError) return { outcome: 'timeout', reason: err.message, answered: false };
  let message = err instanceof Error ? err.message : String(err);
  // A command on a dead connection only says "not writeable"; the connection's own last
  // error (ECONNREFUSED, WRONGPASS, ...) is what the user needs.
  if (NOT_CONNECTED.test(message) && node?.lastError) message = node.lastError;
  const line = firstLine(message);
  // ioredis' parser met a reply that is no RESP (an HTTP or SSH server on that port).
  const foreign = FOREIGN_PROTOCOL.exec(line);
  if (foreign) return { outcome: 'refused', reason: `not a Redis server: it answered in another protocol (its reply starts with ${JSON.stringify(foreign[1])})`, answered: false };
  if (AUTH_FAILURE.test(message)) return { outcome: 'auth', reason: line, answered: false };
  // instanceof, not err.name: a minified bundle renames classes.
  const replied = err instanceof ReplyError;
  if (/^WRONGTYPE\b/.test(line)) return { outcome: 'wrong-type', reason: line, answered: true };
  if (NOT_CONNECTED.test(message)) return { outcome: 'refused', reason: 'not connected', answered: false };
  if (!replied) return { outcome: 'refused', reason: line, answered: false };
  // NOSCRIPT gets here only from a grant after the node's script cache was flushed
  // (connection/lua.ts, callScript): the script did not run, which says nothing about the lock.
  if (NOT_SERVING.test(line) || /^NOSCRIPT\b/.test(line)) return { outcome: 'refused', reason: withHint(line), answered: false };
  return { outcome: 'refused', reason: withHint(line), answered: true };
}

/** A failure in a node status' words: the outcome surfaces branch on instead of the text. */
export function nodeOutcome(f: Failure): Exclude<NodeOutcome, 'ok'> {
  if (f.outcome === 'auth' || f.outcome === 'timeout') return f.outcome;
  return f.answered ? 'refused' : 'unreachable';
}
