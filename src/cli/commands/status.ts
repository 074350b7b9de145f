// `status`: one snapshot. --json prints exactly the core's Snapshot document; the human
// form adds node facts (version, role, clock offset, restart risk). Reads only.
// --fail-on turns matching anomalies into exit 4 for monitoring; without it they never
// change the exit code, and too few nodes (exit 3) wins over a match.
import { Command, Option } from 'commander';
import type { Redlock } from '../../core/redlock';
import type { Snapshot } from '../../core/types';
import type { CliContext } from '../context';
import { escapeText, safeJson } from '../escape';
import { EXIT, ExitCode } from '../exit';
import { FAIL_ON_NAMES, failOnParser, matchingLocks } from '../failOn';
import type { Io } from '../io';
import { DEFAULT_PATTERN, readOptions, ReadOptions } from '../options';
import { renderStatus } from '../render';
import { styleFor } from '../style';

/** status and watch after parsing, defaults applied. */
export interface ReadArgs {
  patterns: string[];
  expiringMs: number | undefined;
  json: boolean;
}

export function readArgs(opts: ReadOptions): ReadArgs {
  return { patterns: opts.pattern ?? [DEFAULT_PATTERN], expiringMs: opts.expiringMs, json: opts.json === true };
}

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

export async function runStatus(redlock: Redlock, cmd: ReadArgs & { failOn?: ReadonlySet<string> }, io: Io): Promise<ExitCode> {
  const snap = await redlock.inspect({ patterns: cmd.patterns, expiringThresholdMs: cmd.expiringMs });
  io.out(cmd.json ? safeJson(snap, 2) : await humanStatus(redlock, snap, cmd, io));
  const code = statusExit(snap);
  if (code !== EXIT.ok) {
    io.err(noQuorumLine(snap));
    return code;
  }
  if (!cmd.failOn) return code;
  const matched = matchingLocks(snap.locks, cmd.failOn);
  if (matched.length === 0) return code;
  const shown = matched.slice(0, 5).map((l) => `${escapeText(l.key)} (${[l.verdict, ...l.flags].join(', ')})`);
  const more = matched.length > shown.length ? `, and ${matched.length - shown.length} more` : '';
  io.err(`redlock-inspector: ${matched.length === 1 ? '1 lock matches' : `${matched.length} locks match`} --fail-on ${[...cmd.failOn].join(',')}: ${shown.join('; ')}${more}`);
  return EXIT.matched;
}

export function register(program: Command, ctx: CliContext): void {
  readOptions(program.command('status').description('print one snapshot of every lock on the nodes (reads only)'))
    .addOption(new Option('--fail-on <names>', `exit 4 when a lock has one of these verdicts or flags (comma-separated: ${FAIL_ON_NAMES.join(', ')})`).argParser(failOnParser))
    .action(ctx.action(async (opts: ReadOptions & { failOn?: Set<string> }, cmd: Command) =>
      ctx.withRedlock(cmd, opts, {}, (redlock) => runStatus(redlock, { ...readArgs(opts), failOn: opts.failOn }, ctx.io))));
}
