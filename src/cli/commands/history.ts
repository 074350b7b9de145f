// `history RESOURCE`: the resource's event log from every node, newest first. Reads only.
// Exit 3, after printing what it has, when fewer than a quorum of nodes answered.
import type { Command } from 'commander';
import type { LockEvent } from '../../core';
import type { Redlock } from '../../core';
import type { CliContext } from '../context';
import { nodeOptions, NodeOptions, parseResource } from '../options';
import { escapeText, safeJson } from '../escape';
import { EXIT, ExitCode } from '../exit';
import type { Io } from '../io';
import { clockTime } from '../render';
import { holderText } from '../../shared/holderText';
import { tooFewNodesLine, statusExit } from './status';

export function renderHistory(resource: string, events: readonly LockEvent[], nowMs = Date.now()): string {
  if (events.length === 0) {
    return `No recorded events for ${escapeText(resource)}. Events are recorded by this CLI's acquire, extend and release, and by applications that create new Redlock(nodes, { events: true }).`;
  }
  const lines = [`History of ${escapeText(resource)}, newest first:`];
  for (const e of events) {
    if (e.type === 'unreadable') {
      lines.push(`  ?             unreadable entry (${escapeText(e.reason ?? 'malformed')})`);
      continue;
    }
    const who = holderText(e.holder, e.at ?? nowMs)?.replace(/ for .*$/, '') ?? 'unknown holder';
    const why = e.reason ? `: ${escapeText(e.reason)}` : '';
    lines.push(`  ${clockTime(e.at!)}  ${e.type.padEnd(8)}  ${escapeText(who)}  ${escapeText(e.token ?? '')}${why}`);
  }
  return lines.join('\n');
}

export async function runHistory(redlock: Redlock, cmd: { resource: Buffer; json: boolean }, io: Io): Promise<ExitCode> {
  const h = await redlock.history(cmd.resource);
  io.out(cmd.json ? safeJson({ resource: h.resource, events: h.events }, 2) : renderHistory(h.resource, h.events));
  const code = statusExit(h);
  if (code !== EXIT.ok) io.err(tooFewNodesLine(h));
  return code;
}

export function register(program: Command, ctx: CliContext): void {
  nodeOptions(program.command('history').description('what the locking clients recorded about a lock (new Redlock(nodes, { events: true })), newest first'))
    .argument('<resource>', 'the lock key (hex:<hex> for bytes that are not printable UTF-8)', parseResource)
    .action(ctx.action(async (resource: Buffer, opts: NodeOptions, cmd: Command) =>
      ctx.withRedlock(cmd, opts, {}, (redlock) => runHistory(redlock, { resource, json: opts.json === true }, ctx.io))));
}
