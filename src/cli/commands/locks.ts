// acquire / extend / release. --json prints { resources, token, validityMs, nodes: [{ node,
// outcome }] } on success and on failure alike, so scripts always get every node's answer:
// a failed acquire has token null (its attempt was rolled back), a failed extend keeps the
// given token, and validityMs is null whenever nothing is held afterwards (release included).
import { Command, Option } from 'commander';
import { describeAttempt, NodeAttempt, RedlockError } from '../../core/errors';
import { Lock, Redlock } from '../../core/redlock';
import { displayToken } from '../../core/tokens';
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
  nodes: Array<{ node: string; outcome: string }>;
}

const pick = (nodes: ReadonlyArray<{ node: string; outcome: string }>): LockDoc['nodes'] => nodes.map(({ node, outcome }) => ({ node, outcome }));

const ANSWERED = new Set(['granted', 'held-by-other', 'not-held', 'wrong-type']);

/**
 * The core's message already names every node and what it answered; when fewer than a
 * quorum answered at all (exit 3) the line leads with that instead of the grant count.
 */
export function failureLine(e: RedlockError): string {
  if (!e.unreachable) return e.message;
  const answered = e.nodes.filter((n) => ANSWERED.has(n.outcome)).length;
  const tries = e.attempts > 1 ? ` after ${e.attempts} attempts` : '';
  return `cannot ${e.operation} ${e.resources.join(', ')}${tries}: only ${answered} of ${e.nodes.length} nodes answered, ${e.quorum} needed: ${e.nodes.map(describeAttempt).join('; ')}`;
}

/** Points at where the password comes from, without ever showing it. */
export function authHint(nodes: readonly NodeAttempt[]): string {
  return nodes.some((n) => n.outcome === 'auth') ? ' (check the password in the node URL or REDLOCK_PASSWORD)' : '';
}

/** A failed acquire/extend: the document (with --json), one stderr line, exit 1 or 3. */
function failed(e: RedlockError, token: string | null, json: boolean, io: Io): ExitCode {
  if (json) io.out(safeJson({ resources: e.resources, token, validityMs: null, nodes: pick(e.nodes) } satisfies LockDoc, 2));
  io.err(`redlock-inspector: ${escapeText(failureLine(e))}${authHint(e.nodes)}`);
  return e.unreachable ? EXIT.noQuorum : EXIT.refused;
}

export async function runAcquire(redlock: Redlock, cmd: { resources: Buffer[]; ttlMs: number; retry: number; json: boolean }, io: Io): Promise<ExitCode> {
  let lock: Lock;
  try {
    lock = await redlock.acquire(cmd.resources, cmd.ttlMs, { retryCount: cmd.retry });
  } catch (e) {
    if (e instanceof RedlockError) return failed(e, null, cmd.json, io);
    throw e;
  }
  const nodes = await lock.settled;
  if (cmd.json) io.out(safeJson({ resources: lock.resources, token: lock.token, validityMs: lock.validityMs, nodes: pick(nodes) } satisfies LockDoc, 2));
  else io.out(renderLockResult('acquired', lock.resources, lock.token, lock.validityMs, nodes, styleFor(io.colour)));
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
 * Exit codes for release: 3 when fewer than a quorum answered; 1 when no node that answered
 * held the token (expired, already released, or another token's lock: nothing was deleted);
 * otherwise 0, since no answering node holds the token any more.
 */
export async function runRelease(redlock: Redlock, cmd: { resources: Buffer[]; token: Buffer; json: boolean }, io: Io): Promise<ExitCode> {
  const lock = redlock.lockFor(cmd.resources, displayToken(cmd.token));
  const r = await redlock.release(lock);
  const doc: LockDoc = { resources: lock.resources, token: lock.token, validityMs: null, nodes: pick(r.nodes) };
  const released = r.nodes.filter((n) => n.outcome === 'released').length;
  const down = r.nodes.filter((n) => n.outcome === 'unreachable');
  const answered = r.nodes.length - down.length;
  const what = `${keyList(lock.resources)} with token ${escapeText(lock.token)}`;
  const downList = down.map((n) => `${escapeText(n.node)} unreachable${n.reason ? ` (${escapeText(n.reason)})` : ''}`).join('; ');
  if (cmd.json) io.out(safeJson(doc, 2));
  else if (released > 0) {
    io.out([`${styleFor(io.colour).green('released')} ${keyList(lock.resources)} on ${released} of ${r.nodes.length} nodes`, ...renderNodeList(r.nodes, styleFor(io.colour))].join('\n'));
  }
  if (answered < redlock.quorum) {
    const auth = down.some((n) => /NOAUTH|WRONGPASS|AUTH/i.test(n.reason ?? '')) ? ' (check the password in the node URL or REDLOCK_PASSWORD)' : '';
    io.err(`redlock-inspector: cannot release ${what}: fewer than ${redlock.quorum} of ${r.nodes.length} nodes answered: ${downList}${auth}`);
    return EXIT.noQuorum;
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
    .action(ctx.action(async (resources: Buffer[], opts: NodeOptions & { ttl: number; retry: number }, cmd: Command) =>
      ctx.withRedlock(cmd, opts, { writes: true }, (redlock) => runAcquire(redlock, { resources, ttlMs: opts.ttl, retry: opts.retry, json: opts.json === true }, ctx.io))));

  nodeOptions(program.command('extend').description('extend a lock still held with TOKEN by a new TTL'))
    .argument('<resource...>', RESOURCE_HELP, resourceListParser)
    .addOption(new Option('--token <token>', TOKEN_HELP).argParser(parseToken).makeOptionMandatory())
    .addOption(new Option('--ttl <duration>', TTL_HELP).argParser(parseTtl).makeOptionMandatory())
    .action(ctx.action(async (resources: Buffer[], opts: NodeOptions & { token: Buffer; ttl: number }, cmd: Command) =>
      ctx.withRedlock(cmd, opts, { writes: true }, (redlock) => runExtend(redlock, { resources, token: opts.token, ttlMs: opts.ttl, json: opts.json === true }, ctx.io))));

  nodeOptions(program.command('release').description('release a lock where it is still held with TOKEN (compare-and-delete)'))
    .argument('<resource...>', RESOURCE_HELP, resourceListParser)
    .addOption(new Option('--token <token>', TOKEN_HELP).argParser(parseToken).makeOptionMandatory())
    .action(ctx.action(async (resources: Buffer[], opts: NodeOptions & { token: Buffer }, cmd: Command) =>
      ctx.withRedlock(cmd, opts, { writes: true }, (redlock) => runRelease(redlock, { resources, token: opts.token, json: opts.json === true }, ctx.io))));
}
