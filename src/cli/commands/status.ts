// `status`: one snapshot. --json prints exactly the core's Snapshot document; the human
// form adds node facts (version, role, clock offset, restart risk). Reads only.
import type { Redlock } from '../../core/redlock';
import type { Snapshot } from '../../core/types';
import type { ReadArgs } from '../args';
import { escapeText, safeJson } from '../escape';
import { EXIT, ExitCode } from '../exit';
import type { Io } from '../io';
import { renderStatus } from '../render';
import { styleFor } from '../style';

/** What exit codes and node lines need: a snapshot, or a watch's status at a change. */
export type NodeSide = Pick<Snapshot, 'nodes' | 'quorum'>;

export function reachableCount(snap: NodeSide): number {
  return snap.nodes.filter((n) => n.reachable).length;
}

/** status and watch: 0 with a quorum of nodes answering, else 3; anomalies never count. */
export function statusExit(snap: NodeSide): ExitCode {
  return reachableCount(snap) >= snap.quorum ? EXIT.ok : EXIT.noQuorum;
}

/** One stderr line naming every node that did not answer. */
export function noQuorumLine(snap: NodeSide): string {
  const down = snap.nodes.filter((n) => !n.reachable).map((n) => `${escapeText(n.node)}: ${escapeText(n.error ?? 'no answer')}`);
  const auth = snap.nodes.some((n) => !n.reachable && /NOAUTH|WRONGPASS|AUTH/i.test(n.error ?? ''));
  const hint = auth ? ' (check the password in the node URL or REDLOCK_PASSWORD)' : '';
  return `redlock-inspector: only ${reachableCount(snap)} of ${snap.nodes.length} nodes answered (quorum ${snap.quorum}): ${down.join('; ')}${hint}`;
}

export function longestTtl(snap: Snapshot): number {
  let max = 0;
  for (const l of snap.locks) for (const o of l.nodes) if (o.state === 'present' && o.pttlMs !== null && o.pttlMs > max) max = o.pttlMs;
  return max;
}

export async function humanStatus(redlock: Redlock, snap: Snapshot, cmd: ReadArgs, io: Io): Promise<string> {
  const facts = await redlock.nodeFacts(longestTtl(snap));
  return renderStatus(snap, facts, { patterns: cmd.patterns, style: styleFor(io.colour) });
}

/**
 * A cluster's part of the keyspace on a master that did not answer holds unknown locks:
 * too few nodes answered for that part (exit 3), even though other masters did.
 */
export function unreadLine(unread: readonly string[]): string {
  return `redlock-inspector: part of the keyspace was not read: ${unread.map((n) => `master ${escapeText(n)} did not answer`).join('; ')} (its locks are unknown)`;
}

export async function runStatus(redlock: Redlock, cmd: ReadArgs, io: Io): Promise<ExitCode> {
  const page = await redlock.inspectPage({ patterns: cmd.patterns, expiringThresholdMs: cmd.expiringMs });
  const snap = page.snapshot;
  io.out(cmd.json ? safeJson(snap, 2) : await humanStatus(redlock, snap, cmd, io));
  const code = statusExit(snap);
  if (code !== EXIT.ok) io.err(noQuorumLine(snap));
  else if (page.unread.length > 0) {
    io.err(unreadLine(page.unread));
    return EXIT.noQuorum;
  }
  return code;
}
