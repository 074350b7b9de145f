// acquire / extend / release. --json prints { resources, token, validityMs, nodes: [{ node,
// outcome }] } on success and on failure alike, so scripts always get every node's answer:
// a failed acquire has token null (its attempt was rolled back), a failed extend keeps the
// given token, and validityMs is null whenever nothing is held afterwards (release included).
import { Command, Option } from 'commander';
import { NodeAttempt, RedlockError } from '../../core';
import { noQuorumLine, shortToken, TOKEN_IN_SENTENCE } from '../../core/vocabulary';
import { AcquireOptions, Lock, Redlock } from '../../core';
import { displayKey, displayToken } from '../../core/vocabulary';
import { holderLabel } from '../../core/vocabulary';
import { escapeText, safeJson } from '../escape';
import type { CliContext } from '../context';
import { EXIT, ExitCode } from '../exit';
import type { Io } from '../io';
import { integerParser, MAX_RETRY, MAX_TTL_MS, nodeOptions, NodeOptions, parseToken, parseTtl, resourceListParser } from '../options';
import { keyList, renderLockResult, renderNodeList } from '../render';
import { styleFor } from '../style';

interface LockDoc {
  resources: string[];
  token: string | null;
  validityMs: number | null;
  nodes: Array<{ node: string; outcome: string; reason?: string }>;
  /** acquire --fencing: the fence of a single resource (null when several: see fences). */
  fence?: number | null;
  /** acquire --fencing: one fence per resource, in `resources` order. */
  fences?: readonly number[];
}

/** The fence fields --fencing adds (also to a failed acquire's document, as nulls). */
function fenceFields(fencing: boolean, lock: Lock | null): Pick<LockDoc, 'fence' | 'fences'> {
  if (!fencing) return {};
  if (!lock?.fences) return { fence: null };
  return lock.fences.length === 1 ? { fence: lock.fences[0] } : { fence: null, fences: lock.fences };
}

/** A refusal carries the server's words in `reason`; other outcomes are their own word. */
export const pick = (nodes: ReadonlyArray<{ node: string; outcome: string; reason?: string }>): LockDoc['nodes'] =>
  nodes.map(({ node, outcome, reason }) => (outcome === 'refused' && reason !== undefined ? { node, outcome, reason } : { node, outcome }));

/**
 * The core's message already names every node and what it answered; when fewer than a
 * quorum answered at all (exit 3) the line leads with that instead of the grant count
 * (a refusal such as NOPERM or READONLY counts as an answer: src/core/vocabulary/describe.ts).
 */
export function failureLine(e: RedlockError): string {
  return e.unreachable ? noQuorumLine(e) : e.message;
}

/** Points at where the password comes from, without ever showing it. */
export function authHint(nodes: readonly NodeAttempt[]): string {
  return nodes.some((n) => n.outcome === 'auth') ? ' (check the password in the node URL or REDLOCK_PASSWORD)' : '';
}

/** A failed acquire/extend: the document (with --json), one stderr line, exit 1 or 3. */
function failed(e: RedlockError, token: string | null, json: boolean, io: Io, extra: Pick<LockDoc, 'fence' | 'fences'> = {}): ExitCode {
  if (json) io.out(safeJson({ resources: e.resources, token, validityMs: null, nodes: pick(e.nodes), ...extra } satisfies LockDoc, 2));
  io.err(`redlock-inspector: ${escapeText(failureLine(e))}${authHint(e.nodes)}`);
  return e.unreachable ? EXIT.noQuorum : EXIT.refused;
}

/** `waiting for lock:x (held by 7f3a…c2), attempt 7/21`: the progress line of a retrying acquire. */
export function waitingLine(resources: readonly string[], refused: { attempt: number; attempts: number; nodes: readonly NodeAttempt[] }): string {
  const holders = new Map<string, number>();
  for (const n of refused.nodes) if (n.heldBy !== undefined) holders.set(n.heldBy, (holders.get(n.heldBy) ?? 0) + 1);
  const [top] = [...holders].sort((a, b) => b[1] - a[1]);
  const others = holders.size - 1;
  const granted = refused.nodes.filter((n) => n.outcome === 'granted').length;
  const why = top
    ? `held by ${escapeText(holderLabel(top[0]) ?? shortToken(top[0], TOKEN_IN_SENTENCE))}${others > 0 ? ` and ${others} other token${others === 1 ? '' : 's'}` : ''}`
    : `${granted} of ${refused.nodes.length} nodes granted`;
  return `waiting for ${keyList(resources)} (${why}), attempt ${refused.attempt}/${refused.attempts}`;
}

export async function runAcquire(redlock: Redlock, cmd: { resources: Buffer[]; ttlMs: number; retry: number; fencing?: boolean; json: boolean }, io: Io): Promise<ExitCode> {
  const fencing = cmd.fencing === true;
  let lock: Lock;
  // Progress only for a person at a terminal; scripts (--json, a pipe) see the result alone.
  const shown = cmd.resources.map(displayKey);
  const onAttempt = cmd.retry > 0 && io.errIsTTY && !cmd.json ? (r: Parameters<NonNullable<AcquireOptions['onAttempt']>>[0]): void => io.progress(waitingLine(shown, r)) : undefined;
  try {
    lock = await redlock.acquire(cmd.resources, cmd.ttlMs, { retryCount: cmd.retry, onAttempt, fencing });
  } catch (e) {
    if (e instanceof RedlockError) return failed(e, null, cmd.json, io, fenceFields(fencing, null));
    throw e;
  } finally {
    if (onAttempt) io.progress(null);
  }
  const nodes = await lock.settled;
  if (cmd.json) io.out(safeJson({ resources: lock.resources, token: lock.token, validityMs: lock.validityMs, nodes: pick(nodes), ...fenceFields(fencing, lock) } satisfies LockDoc, 2));
  else {
    io.out(renderLockResult('acquired', lock.resources, lock.token, lock.validityMs, nodes, styleFor(io.colour), lock.fences));
  }
  return EXIT.ok;
}

export async function runExtend(redlock: Redlock, cmd: { resources: Buffer[]; token: Buffer; ttlMs: number; json: boolean }, io: Io): Promise<ExitCode> {
  const given = redlock.lockFor(cmd.resources, displayToken(cmd.token));
  let lock: Lock;
  try {
    lock = await redlock.extend(given, cmd.ttlMs);
  } catch (e) {
    if (e instanceof RedlockError) return failed(e, given.token, cmd.json, io);
    throw e;
  }
  const nodes = await lock.settled;
  if (cmd.json) io.out(safeJson({ resources: lock.resources, token: lock.token, validityMs: lock.validityMs, nodes: pick(nodes) } satisfies LockDoc, 2));
  else io.out(renderLockResult('extended', lock.resources, lock.token, lock.validityMs, nodes, styleFor(io.colour)));
  return EXIT.ok;
}

/**
 * Exit codes for release: 3 when fewer than a quorum answered (a refusal is an answer);
 * 1 when a node refused (NOPERM, READONLY...: its copy stays until its TTL) or no node
 * that answered held the token (expired, already released, or another token's lock);
 * otherwise 0, since no answering node holds the token any more.
 */
export async function runRelease(redlock: Redlock, cmd: { resources: Buffer[]; token: Buffer; json: boolean }, io: Io): Promise<ExitCode> {
  const lock = redlock.lockFor(cmd.resources, displayToken(cmd.token));
  // The CLI reports every node's final answer, not the early, quorum-certain one.
  const r = { nodes: await (await redlock.release(lock)).settled };
  const doc: LockDoc = { resources: lock.resources, token: lock.token, validityMs: null, nodes: pick(r.nodes) };
  const released = r.nodes.filter((n) => n.outcome === 'released').length;
  const down = r.nodes.filter((n) => n.outcome === 'unreachable');
  const refused = r.nodes.filter((n) => n.outcome === 'refused');
  const answered = r.nodes.length - down.length;
  const what = `${keyList(lock.resources)} with token ${escapeText(lock.token)}`;
  const list = (ns: typeof down, word: string): string => ns.map((n) => `${escapeText(n.node)}${word}${n.reason ? ` (${escapeText(n.reason)})` : ''}`).join('; ');
  const downList = list(down, ' unreachable');
  if (cmd.json) io.out(safeJson(doc, 2));
  else if (released > 0) {
    io.out([`${styleFor(io.colour).green('released')} ${keyList(lock.resources)} on ${released} of ${r.nodes.length} nodes`, ...renderNodeList(r.nodes, styleFor(io.colour))].join('\n'));
  }
  if (answered < redlock.quorum) {
    const auth = down.some((n) => n.failure === 'auth') ? ' (check the password in the node URL or REDLOCK_PASSWORD)' : '';
    const also = refused.length ? `; ${list(refused, ' refused')}` : '';
    io.err(`redlock-inspector: cannot release ${what}: fewer than ${redlock.quorum} of ${r.nodes.length} nodes answered: ${downList}${also}${auth}`);
    return EXIT.noQuorum;
  }
  if (refused.length) {
    const rest = down.length ? `; ${downList}` : '';
    io.err(`redlock-inspector: cannot release ${what}: refused by ${list(refused, '')}${rest}; those copies stay until their TTL`);
    return EXIT.refused;
  }
  if (released === 0) {
    io.err(`redlock-inspector: cannot release ${what}: none of the ${answered} nodes that answered holds that token (expired, already released, or held by another token)`);
    return EXIT.refused;
  }
  if (down.length) io.err(`redlock-inspector: warning: copies may remain on ${downList}; they expire with their TTL`);
  return EXIT.ok;
}

const RESOURCE_HELP = 'lock key names (hex:<hex> for bytes that are not printable UTF-8)';
const TTL_HELP = `lease time: ms or a duration (1500, 1500ms, 10s, 2m), up to ${MAX_TTL_MS} ms`;
const TOKEN_HELP = 'the token the lock holds, as acquire or status printed it (hex:<hex> accepted)';

/** acquire, extend and release: one family sharing RESOURCE..., --ttl and --token. */
export function register(program: Command, ctx: CliContext): void {
  nodeOptions(program.command('acquire').description('acquire a lock on a quorum of nodes and print its token'))
    .argument('<resource...>', RESOURCE_HELP, resourceListParser)
    .addOption(new Option('--ttl <duration>', TTL_HELP).argParser(parseTtl).makeOptionMandatory())
    .addOption(new Option('--retry <n>', 'attempts after the first while the lock is held elsewhere').argParser(integerParser('--retry', 0, MAX_RETRY, 'number of retries')).default(0))
    .addOption(new Option('--fencing', 'also hand out a fencing token per resource (printed as its fence; see docs/fencing.md)'))
    .action(ctx.action(async (resources: Buffer[], opts: NodeOptions & { ttl: number; retry: number; fencing?: boolean }, cmd: Command) =>
      ctx.withRedlock(cmd, opts, { writes: true, recordsEvents: true }, (redlock) => runAcquire(redlock, { resources, ttlMs: opts.ttl, retry: opts.retry, fencing: opts.fencing === true, json: opts.json === true }, ctx.io))));

  nodeOptions(program.command('extend').description('extend a lock still held with TOKEN by a new TTL'))
    .argument('<resource...>', RESOURCE_HELP, resourceListParser)
    .addOption(new Option('--token <token>', TOKEN_HELP).argParser(parseToken).makeOptionMandatory())
    .addOption(new Option('--ttl <duration>', TTL_HELP).argParser(parseTtl).makeOptionMandatory())
    .action(ctx.action(async (resources: Buffer[], opts: NodeOptions & { token: Buffer; ttl: number }, cmd: Command) =>
      ctx.withRedlock(cmd, opts, { writes: true, recordsEvents: true }, (redlock) => runExtend(redlock, { resources, token: opts.token, ttlMs: opts.ttl, json: opts.json === true }, ctx.io))));

  nodeOptions(program.command('release').description('release a lock where it is still held with TOKEN (compare-and-delete)'))
    .argument('<resource...>', RESOURCE_HELP, resourceListParser)
    .addOption(new Option('--token <token>', TOKEN_HELP).argParser(parseToken).makeOptionMandatory())
    .action(ctx.action(async (resources: Buffer[], opts: NodeOptions & { token: Buffer }, cmd: Command) =>
      ctx.withRedlock(cmd, opts, { writes: true, recordsEvents: true }, (redlock) => runRelease(redlock, { resources, token: opts.token, json: opts.json === true }, ctx.io))));
}
