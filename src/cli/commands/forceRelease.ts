// `force-release`: the repair for a stuck or split lock. It first reads the key on every
// node, shows what it is about to delete (node, token, TTL), asks on a terminal unless
// --yes, then deletes each copy only where that node still holds the token just shown
// (the core's compare-and-delete): a copy that changed hands in between is left alone.
import type { Command } from 'commander';
import type { Redlock } from '../../core';
import { displayKey } from '../../core/vocabulary';
import { escapeText, safeJson } from '../escape';
import type { CliContext } from '../context';
import { CliError, EXIT, ExitCode } from '../exit';
import type { Io } from '../io';
import { nodeOptions, NodeOptions, parseResource } from '../options';
import { renderForcePlan, renderNodeList } from '../render';
import { pick } from './locks';
import { statusExit, tooFewNodesLine } from './status';
import { styleFor } from '../style';

type Outcome = 'deleted' | 'changed' | 'absent' | 'refused' | 'unreachable';

interface ForceDoc {
  resource: string;
  nodes: Array<{ node: string; outcome: Outcome; reason?: string }>;
}

export async function runForceRelease(redlock: Redlock, cmd: { resource: Buffer; yes: boolean; json: boolean }, io: Io): Promise<ExitCode> {
  const key = displayKey(cmd.resource);
  const shownKey = escapeText(key);
  const style = styleFor(io.colour);
  // Read by name on every node: what the user is shown is what the compare-and-delete sees.
  const { snapshot: snap, entry, skipped } = await redlock.inspectKey(cmd.resource);
  // Nodes that answered but cannot be read as configured: whether they hold it is unknown.
  if (statusExit(snap) === EXIT.usage) {
    io.err(tooFewNodesLine(snap));
    throw new CliError(`cannot force-release ${shownKey}: too few nodes can be read to tell where it is held; nothing deleted`, EXIT.usage);
  }
  const reachable = snap.nodes.filter((n) => n.reachable).length;
  // Off a terminal nobody can answer the question: --yes is needed, but only once there is
  // something to delete, or it cannot be told that there is nothing.
  const needsYes = (): CliError => new CliError('force-release needs --yes when stdin is not a terminal; nothing deleted', EXIT.usage);
  const unattended = !cmd.yes && !io.stdinIsTTY;

  if (!entry) {
    if (skipped && skipped.reason !== 'absent' && skipped.reason !== 'unreachable') {
      throw new CliError(`cannot force-release ${shownKey}: it is not a lock the inspector can read (${escapeText(skipped.reason)}); nothing deleted`, EXIT.usage);
    }
    const doc: ForceDoc = { resource: key, nodes: snap.nodes.map((n) => ({ node: n.node, outcome: n.outcome === 'unsupported' ? 'refused' : n.reachable ? 'absent' : 'unreachable' })) };
    if (cmd.json) io.out(safeJson(doc, 2));
    if (reachable < snap.quorum) {
      if (unattended) throw needsYes();
      const down = snap.nodes.filter((n) => !n.reachable).map((n) => `${escapeText(n.node)}: ${escapeText(n.error ?? 'no answer')}`);
      io.err(`redlock-inspector: cannot tell whether ${shownKey} is held: fewer than ${snap.quorum} of ${snap.nodes.length} nodes answered: ${down.join('; ')}; nothing deleted`);
      return EXIT.noQuorum;
    }
    if (!cmd.json) io.out(`Nothing to release: ${shownKey} is held on none of the ${reachable} nodes that answered.`);
    return EXIT.ok;
  }

  // With --json the plan goes to stderr so stdout stays one document.
  const plan = renderForcePlan(entry, style);
  if (cmd.json) io.err(plan);
  else io.out(plan);
  if (unattended) throw needsYes();
  if (!cmd.yes) {
    const answer = (await io.ask(`Delete these copies of ${shownKey}? [y/N] `)).trim().toLowerCase();
    if (answer !== 'y' && answer !== 'yes') throw new CliError('force-release cancelled; nothing deleted', EXIT.usage);
  }

  const result = await redlock.forceRelease(cmd.resource, entry.nodes);
  // The core reports a node that was unreachable when read as unreachable, with its reason.
  const nodes = result.nodes.map((r) => ({ node: r.node, outcome: r.outcome, reason: r.outcome === 'unreachable' || r.outcome === 'refused' ? r.reason : undefined }));
  const doc: ForceDoc = { resource: key, nodes: pick(nodes) as ForceDoc['nodes'] };
  const deleted = nodes.filter((n) => n.outcome === 'deleted').length;
  const changed = nodes.filter((n) => n.outcome === 'changed');
  const down = nodes.filter((n) => n.outcome === 'unreachable');
  const refused = nodes.filter((n) => n.outcome === 'refused');
  if (cmd.json) io.out(safeJson(doc, 2));
  else io.out([`${deleted ? style.green('deleted') : 'deleted'} ${deleted} cop${deleted === 1 ? 'y' : 'ies'} of ${shownKey}`, ...renderNodeList(nodes, style)].join('\n'));

  if (nodes.length - down.length >= redlock.quorum && refused.length) {
    // An answer, not an outage: the server said no (an ACL, a replica...), in its own words.
    io.err(`redlock-inspector: cannot force-release ${shownKey}: refused by ${refused.map((n) => `${escapeText(n.node)} (${escapeText(n.reason ?? 'refused')})`).join('; ')}; those copies were left alone`);
    return EXIT.refused;
  }
  if (changed.length) {
    io.err(`redlock-inspector: ${shownKey} changed hands on ${changed.map((n) => escapeText(n.node)).join(', ')} since it was read; those copies were left alone`);
    return EXIT.refused;
  }
  if (nodes.length - down.length < redlock.quorum) {
    io.err(`redlock-inspector: fewer than ${redlock.quorum} of ${nodes.length} nodes answered; copies may remain on ${down.map((n) => `${escapeText(n.node)}${n.reason ? ` (${escapeText(n.reason)})` : ''}`).join('; ')}`);
    return EXIT.noQuorum;
  }
  if (down.length) io.err(`redlock-inspector: warning: copies may remain on ${down.map((n) => escapeText(n.node)).join(', ')} (unreachable)`);
  return EXIT.ok;
}

export function register(program: Command, ctx: CliContext): void {
  nodeOptions(program.command('force-release').description('show a stuck or split lock, confirm, then delete each copy still holding the token shown'))
    .argument('<resource>', 'the lock key (hex:<hex> for bytes that are not printable UTF-8)', parseResource)
    .option('-y, --yes', 'delete without asking (required when stdin is not a terminal)')
    .action(ctx.action(async (resource: Buffer, opts: NodeOptions & { yes?: boolean }, cmd: Command) => {
      const yes = opts.yes === true;
      return ctx.withRedlock(cmd, opts, { writes: true, recordsEvents: true }, (redlock) => runForceRelease(redlock, { resource, yes, json: opts.json === true }, ctx.io));
    }));
}
