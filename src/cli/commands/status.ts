// `status`: one snapshot. --json prints the core's Snapshot document plus what the human
// form also shows: each node's facts (version, role, clock offset, uptime, persistence,
// restart risk, script libraries) and the snapshot's time `at`. Reads only.
// --fail-on turns matching anomalies into exit 4 for monitoring; without it they never
// change the exit code, and too few nodes (exit 3) wins over a match.
import { Command, Option } from 'commander';
import type { NodeFacts } from '../../core/vocabulary';
import type { DiscoveredPattern, LockStats, Redlock } from '../../core';
import { DEFAULT_STATS_WINDOW_MS, formatDuration, lockStats, parseKeyArg, withHoldP95 } from '../../core/vocabulary';
import type { NodeStatus, Snapshot } from '../../core/vocabulary';
import type { CliContext } from '../context';
import { escapeText, safeJsonPieces } from '../escape';
import { EXIT, ExitCode } from '../exit';
import { FAIL_ON_NAMES, failOnParser, matchingLocks } from '../failOn';
import { linePieces, type Io } from '../io';
import { defaultPatterns, durationParser, readOptions, ReadOptions } from '../options';
import { renderStatusLines } from '../render';
import { styleFor } from '../style';

/** status and watch after parsing, defaults applied. */
export interface ReadArgs {
  patterns: string[];
  /** No --pattern given: the default patterns, which a first read may widen (withDiscovered). */
  defaulted?: boolean;
  /** What the short discover of withDiscovered found, when it ran: the empty-pattern check reuses it. */
  seen?: DiscoveredPattern[];
  expiringMs: number | undefined;
  json: boolean;
}

/** `connectionPatterns`: what a named connection reads when the command line gives no --pattern (never widened). */
export function readArgs(opts: ReadOptions, connectionPatterns?: string[]): ReadArgs {
  const patterns = opts.pattern ?? connectionPatterns;
  return { patterns: patterns ?? defaultPatterns(), defaulted: patterns === undefined, expiringMs: opts.expiringMs, json: opts.json === true };
}

/** What exit codes and node lines need: a snapshot, or a watch's status at a change. */
export type NodeSide = Pick<Snapshot, 'nodes' | 'quorum'>;

export function reachableCount(snap: NodeSide): number {
  return snap.nodes.filter((n) => n.reachable).length;
}

/** Nodes that answered and could serve the read (not `unsupported`). */
function readCount(snap: NodeSide): number {
  return snap.nodes.filter((n) => n.reachable && n.outcome !== 'unsupported').length;
}

/**
 * status and watch: 0 with a quorum of nodes read, 3 when fewer than a quorum answered at
 * all, 2 when they answered but too few can serve the read as configured (a missing
 * capability: the server's configuration, not an outage); anomalies never count.
 */
export function statusExit(snap: NodeSide): ExitCode {
  if (reachableCount(snap) < snap.quorum) return EXIT.noQuorum;
  return readCount(snap) >= snap.quorum ? EXIT.ok : EXIT.usage;
}

/** What stderr says when statusExit is not 0: every node that did not answer, or one line per node that cannot serve the read. */
export function tooFewNodesLine(snap: NodeSide): string {
  if (reachableCount(snap) >= snap.quorum) {
    const cannot = snap.nodes.filter((n) => n.outcome === 'unsupported').map((n) => `redlock-inspector: ${escapeText(n.node)}: ${escapeText(n.error ?? 'unsupported')}`);
    return [`redlock-inspector: only ${readCount(snap)} of ${snap.nodes.length} nodes can be read as configured (quorum ${snap.quorum}):`, ...cannot].join('\n');
  }
  const down = snap.nodes.filter((n) => !n.reachable).map((n) => `${escapeText(n.node)}: ${escapeText(n.error ?? 'no answer')}`);
  const auth = snap.nodes.some((n) => n.outcome === 'auth');
  const hint = auth ? ' (check the password in the node URL or REDLOCK_PASSWORD)' : '';
  return `redlock-inspector: only ${reachableCount(snap)} of ${snap.nodes.length} nodes answered (quorum ${snap.quorum}): ${down.join('; ')}${hint}`;
}

export function longestTtl(snap: Snapshot): number {
  let max = 0;
  for (const l of snap.locks) for (const o of l.nodes) if (o.state === 'present' && o.pttlMs !== null && o.pttlMs > max) max = o.pttlMs;
  return max;
}

/** Keys per node the empty-pattern check reads: cheap, and enough for a development Redis. */
export const EMPTY_CHECK_KEYS = 5_000;

/**
 * Under the default patterns, the first read walks the keyspace a little (as discover,
 * within the same small budget as the empty-pattern check) and reads the patterns it found
 * whose locks the defaults missed, said once on stderr: a node-redlock `orders:42` or a
 * redsync `my-global-mutex` beside the locks the defaults do list. A user's own --pattern
 * is never widened.
 */
export async function withDiscovered(redlock: Redlock, cmd: ReadArgs, first: Snapshot, io: Io): Promise<ReadArgs> {
  if (!cmd.defaulted || statusExit(first) !== EXIT.ok) return cmd;
  const seen = await shortDiscover(redlock);
  const listed = new Set(first.locks.map((l) => l.key));
  // A pattern whose examples the first read listed already adds nothing.
  const found = seen?.filter((p) => !cmd.patterns.includes(p.pattern) && !p.examples.every((k) => listed.has(k))).map((p) => p.pattern) ?? [];
  if (found.length === 0) return { ...cmd, seen };
  const where = first.locks.length === 0 ? 'no lock under the default patterns' : 'locks outside the default patterns';
  io.err(`redlock-inspector: ${where}; found locks under ${found.map(escapeText).join(', ')}: reading them too (--pattern reads only yours)`);
  return { ...cmd, patterns: [...cmd.patterns, ...found], defaulted: false, seen };
}

/** A short walk (a few pages, half a second) for lock-shaped keys anywhere; undefined when it failed. */
async function shortDiscover(redlock: Redlock): Promise<DiscoveredPattern[] | undefined> {
  return (await redlock.discover({ budgetKeys: EMPTY_CHECK_KEYS, timeBudgetMs: 500 }).catch(() => null))?.patterns;
}

/** The status table's lines: write them with io.outPieces(linePieces(...)). */
export async function humanStatus(redlock: Redlock, snap: Snapshot, cmd: ReadArgs, io: Io): Promise<string[]> {
  const facts = await redlock.nodeFacts(longestTtl(snap));
  // Nothing matched: where else lock-shaped keys are (read once, if withDiscovered walked already).
  const outside = snap.locks.length === 0 ? (cmd.seen ?? (await shortDiscover(redlock))) : undefined;
  return renderStatusLines(snap, facts, { patterns: cmd.patterns, style: styleFor(io.colour), outside });
}

/**
 * A cluster's part of the keyspace on a master that did not answer holds unknown locks:
 * too few nodes answered for that part (exit 3), even though other masters did.
 */
export function unreadLine(unread: readonly string[], nodes: Snapshot['nodes'] = []): string {
  const why = (id: string): string => {
    const error = nodes.find((n) => n.node === id)?.error;
    return error ? ` (${escapeText(error)})` : '';
  };
  return `redlock-inspector: part of the keyspace was not read: ${unread.map((n) => `master ${escapeText(n)} could not be read${why(n)}`).join('; ')}; its locks are unknown`;
}

/** The node facts a `nodes[]` entry of the JSON document gains; unknown ones as the core says. */
export type NodeFactFields = Pick<NodeFacts, 'version' | 'role' | 'clockOffsetMs' | 'uptimeS' | 'persistence' | 'restartRisk' | 'libraries'>;

export type StatusDocument = Omit<Snapshot, 'nodes' | 'locks'> & { nodes: Array<Omit<NodeStatus, 'capabilities' | 'readPath'> & NodeFactFields & { capabilities: NodeStatus['capabilities'] | null; readPath: NodeStatus['readPath'] | null }>; locks: Array<Snapshot['locks'][number] & { stats?: LockStats | null }>; at: number };

const UNKNOWN_FACTS: NodeFactFields = { version: null, role: 'unknown', clockOffsetMs: null, uptimeS: null, persistence: 'unknown', restartRisk: 'unknown', libraries: [] };

/**
 * The JSON document: every field of the snapshot as the core gives it (reachable, latency
 * and error stay the snapshot's own), each node's facts appended, and `at` (epoch ms).
 */
export function statusDocument(snap: Snapshot, facts: readonly NodeFacts[], atMs: number): StatusDocument {
  const nodes = snap.nodes.map((n) => {
    const f = facts.find((x) => x.node === n.node);
    const extra: NodeFactFields = f ? { version: f.version, role: f.role, clockOffsetMs: f.clockOffsetMs, uptimeS: f.uptimeS, persistence: f.persistence, restartRisk: f.restartRisk, libraries: f.libraries } : UNKNOWN_FACTS;
    // server and capabilities come last, then readPath (null: never probed): the document only grows (version keeps its place).
    const { server, version, capabilities, readPath, ...base } = n;
    return { ...base, ...extra, version: extra.version ?? version ?? null, server: server ?? null, capabilities: capabilities ?? null, readPath: readPath ?? null };
  });
  return { ...snap, nodes, at: Math.floor(atMs) };
}

export async function jsonStatus(redlock: Redlock, snap: Snapshot, atMs: number): Promise<StatusDocument> {
  return statusDocument(snap, await redlock.nodeFacts(longestTtl(snap)), atMs);
}

/** `--stats`: one line per lock with recorded holds or waits in the window. */
export function renderStats(keys: readonly string[], stats: ReadonlyArray<LockStats | null>, windowMs: number): string {
  const pct = (p: LockStats['holdMs']): string => (p.count === 0 ? '-' : `p50 ${formatDuration(p.p50!)}, p95 ${formatDuration(p.p95!)}, p99 ${formatDuration(p.p99!)}, max ${formatDuration(p.max!)} (${p.count})`);
  const lines = keys.flatMap((key, i) => {
    const s = stats[i];
    if (!s || (s.holdMs.count === 0 && s.waitMs.count === 0 && s.acquisitionsPerMin === 0)) return [];
    return [`  ${escapeText(key)}  hold ${pct(s.holdMs)} · wait ${pct(s.waitMs)} · ${s.acquisitionsPerMin}/min acquired, ${s.failuresPerMin}/min failed`];
  });
  const head = `Hold and wait times over the last ${formatDuration(windowMs)} (recorded events):`;
  return lines.length === 0 ? `${head} none recorded.` : [head, ...lines].join('\n');
}

export async function runStatus(redlock: Redlock, asked: ReadArgs & { failOn?: ReadonlySet<string>; statsWindowMs?: number }, io: Io): Promise<ExitCode> {
  let cmd = asked;
  let page = await redlock.inspectPage({ patterns: cmd.patterns, expiringThresholdMs: cmd.expiringMs });
  const widened = await withDiscovered(redlock, cmd, page.snapshot, io);
  if (widened !== cmd) {
    cmd = { ...asked, ...widened };
    page = await redlock.inspectPage({ patterns: cmd.patterns, expiringThresholdMs: cmd.expiringMs });
  }
  const read = page.snapshot;
  const window = cmd.statsWindowMs;
  const histories = window === undefined ? undefined : await redlock.lockHistories(read.locks.map((l) => parseKeyArg(l.key)));
  const stats = histories?.map((h) => (h ? lockStats(h, Date.now(), window) : null));
  // A holder past its own p95 hold time is worth a look: the liveness line says so (a new entry: entries are values).
  const snap = stats ? { ...read, locks: read.locks.map((l, i) => (l.liveness ? { ...l, liveness: withHoldP95(l.liveness, stats[i]?.holdMs.p95 ?? null) } : l)) } : read;
  if (cmd.json) {
    const doc = await jsonStatus(redlock, snap, page.takenAtMs);
    if (stats) doc.locks = doc.locks.map((l, i) => ({ ...l, stats: stats[i] }));
    await io.outPieces(safeJsonPieces(doc, 2));
  } else {
    await io.outPieces(linePieces(await humanStatus(redlock, snap, cmd, io)));
    if (stats) io.out(renderStats(snap.locks.map((l) => l.key), stats, window!));
  }
  const code = statusExit(snap);
  if (code !== EXIT.ok) {
    io.err(tooFewNodesLine(snap));
    return code;
  }
  // Exit 3 (too few nodes for part of the keyspace) wins over --fail-on's 4.
  if (page.unread.length > 0) {
    io.err(unreadLine(page.unread, snap.nodes));
    return EXIT.noQuorum;
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
    .option('--stats', 'add hold and wait times from recorded events (p50, p95, p99, max) and acquisitions per minute')
    .addOption(new Option('--stats-window <duration>', `the window of --stats (default ${formatDuration(DEFAULT_STATS_WINDOW_MS)})`).argParser(durationParser('--stats-window', 1000)))
    .action(ctx.action(async (opts: ReadOptions & { failOn?: Set<string>; stats?: boolean; statsWindow?: number }, cmd: Command) => {
      const statsWindowMs = opts.stats || opts.statsWindow !== undefined ? (opts.statsWindow ?? DEFAULT_STATS_WINDOW_MS) : undefined;
      return ctx.withRedlock(cmd, opts, {}, (redlock) => runStatus(redlock, { ...readArgs(opts, ctx.connectionPatterns(cmd)), failOn: opts.failOn, statsWindowMs }, ctx.io));
    }));
}
