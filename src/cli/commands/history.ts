// `history RESOURCE`: the resource's event log from every node, newest first. Reads only.
// Exit 3, after printing what it has, when fewer than a quorum of nodes answered.
import { Option, type Command } from 'commander';
import { displayKey, mergeHistory, type HistoryEvent, type LockEvent, type ObservedEvent } from '../../core';
import type { Redlock } from '../../core';
import type { CliContext } from '../context';
import { durationParser, nodeOptions, NodeOptions, parseResource } from '../options';
import { escapeText, safeJson } from '../escape';
import { EXIT, ExitCode } from '../exit';
import type { Io } from '../io';
import { clockTime } from '../render';
import { holderText } from '../../shared/holderText';
import { tooFewNodesLine, statusExit } from './status';

export function renderHistory(resource: string, events: ReadonlyArray<LockEvent | HistoryEvent>, nowMs = Date.now()): string {
  if (events.length === 0) {
    return `No recorded events for ${escapeText(resource)}. Events are recorded by this CLI's acquire, extend and release, and by applications that create new Redlock(nodes, { events: true }); history --watch observes any lock.`;
  }
  const lines = [`History of ${escapeText(resource)}, newest first:`];
  for (const e of events) {
    if (e.type === 'unreadable') {
      lines.push(`  ?             unreadable entry (${escapeText(e.reason ?? 'malformed')})`);
      continue;
    }
    const who = holderText(e.holder, e.at ?? nowMs)?.replace(/ for .*$/, '') ?? 'unknown holder';
    const reason = (e as LockEvent).reason;
    const why = reason ? `: ${escapeText(reason)}` : '';
    const seen = 'source' in e && e.source === 'observed' ? '  (observed)' : '';
    // A release that found its lock gone (expired, or another token's) released nothing.
    const word = e.type === 'released' && (e as LockEvent).held === false ? 'release refused (not held)' : e.type === 'released' && (e as LockEvent).forced ? 'force-released' : e.type;
    lines.push(`  ${clockTime(e.at!)}  ${word.padEnd(8)}  ${escapeText(who)}  ${escapeText(e.token ?? '')}${why}${seen}`);
  }
  return lines.join('\n');
}

/** Redis glob syntax escaped: the watch's pattern matches the resource only. */
const exactGlob = (key: string): string => key.replace(/[*?[\]\\]/g, '\\$&');

/** Watches `resource` for `ms` (observed history: what any library's lock did meanwhile). */
async function observe(redlock: Redlock, resource: Buffer, ms: number, io: Io): Promise<ObservedEvent[]> {
  const key = displayKey(resource);
  const watcher = redlock.watch({ patterns: [exactGlob(resource.toString('utf8'))], intervalMs: WATCH_INTERVAL_MS }, {});
  io.progress(`history: watching ${escapeText(key)} for ${ms} ms`);
  await new Promise<void>((done) => {
    const timer = setTimeout(done, ms);
    io.interruption().addEventListener('abort', () => (clearTimeout(timer), done()), { once: true });
  });
  watcher.stop();
  io.progress(null);
  return watcher.observed.eventsOf(key);
}

const WATCH_INTERVAL_MS = 250;

export async function runHistory(redlock: Redlock, cmd: { resource: Buffer; json: boolean; watchMs?: number }, io: Io): Promise<ExitCode> {
  const observed = cmd.watchMs ? await observe(redlock, cmd.resource, cmd.watchMs, io) : [];
  const h = await redlock.history(cmd.resource);
  // Recorded events are marked as such (an addition); observed ones join them when watched.
  const events = mergeHistory(h.events, observed);
  io.out(cmd.json ? safeJson({ resource: h.resource, events }, 2) : renderHistory(h.resource, events));
  const code = statusExit(h);
  if (code !== EXIT.ok) io.err(tooFewNodesLine(h));
  return code;
}

export function register(program: Command, ctx: CliContext): void {
  nodeOptions(program.command('history').description('what the locking clients recorded about a lock (new Redlock(nodes, { events: true })), newest first'))
    .argument('<resource>', 'the lock key (hex:<hex> for bytes that are not printable UTF-8)', parseResource)
    .addOption(new Option('--watch <duration>', 'first watch the lock this long and add what was observed (any library\'s lock)').argParser(durationParser('--watch', 1)))
    .action(ctx.action(async (resource: Buffer, opts: NodeOptions & { watch?: number }, cmd: Command) =>
      ctx.withRedlock(cmd, opts, {}, (redlock) => runHistory(redlock, { resource, json: opts.json === true, watchMs: opts.watch }, ctx.io))));
}
