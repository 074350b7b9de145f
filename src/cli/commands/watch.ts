// `watch`: the core's Watcher in a terminal. --json prints JSON lines: the first a full
// status document, each next one { at, added, changed, removed }.
import { Command, Option } from 'commander';
import type { Redlock } from '../../core/redlock';
import type { Snapshot } from '../../core/types';
import type { WatchChange, WatchStatus } from '../../core/watch';
import type { CliContext } from '../context';
import { escapeText, safeJson } from '../escape';
import { EXIT, ExitCode } from '../exit';
import type { Io } from '../io';
import { DEFAULT_INTERVAL_MS, durationParser, MIN_INTERVAL_MS, readOptions, ReadOptions } from '../options';
import { clockTime, lockLine } from '../render';
import { styleFor } from '../style';
import { humanStatus, noQuorumLine, ReadArgs, readArgs, reachableCount, statusExit } from './status';

export function register(program: Command, ctx: CliContext): void {
  readOptions(program.command('watch').description('print a snapshot, then every change until Ctrl-C (reads only)'))
    .addOption(new Option('--interval <duration>', `time between reads (default ${DEFAULT_INTERVAL_MS} ms)`).argParser(durationParser('--interval', MIN_INTERVAL_MS)))
    .action(ctx.action(async (opts: ReadOptions & { interval?: number }, cmd: Command) =>
      ctx.withRedlock(cmd, opts, {}, (redlock) => runWatch(redlock, { ...readArgs(opts), intervalMs: opts.interval ?? DEFAULT_INTERVAL_MS }, ctx.io))));
}

export async function runWatch(redlock: Redlock, cmd: ReadArgs & { intervalMs: number }, io: Io): Promise<ExitCode> {
  const signal = io.interruption();
  const style = styleFor(io.colour);
  let prev: WatchStatus | undefined;
  let code: ExitCode = EXIT.ok;
  // Output is written in order even though the human status line awaits node facts.
  let queue: Promise<void> = Promise.resolve();
  const emit = (snapshot: Snapshot | WatchStatus, change?: WatchChange): void => {
    queue = queue.then(async () => {
      const nextCode = statusExit(snapshot);
      // One stderr line when the quorum of answering nodes is lost (or missing at start).
      if (nextCode !== EXIT.ok && (prev === undefined || code === EXIT.ok)) io.err(noQuorumLine(snapshot));
      const wasCode = code;
      code = nextCode;
      if (!change || !prev) {
        io.out(cmd.json ? safeJson(snapshot) : await humanStatus(redlock, snapshot as Snapshot, cmd, io));
      } else if (cmd.json) {
        io.out(safeJson(change));
      } else {
        const t = style.dim(clockTime(Date.parse(change.at)));
        for (const l of change.added) io.out(`${t}  ${style.green('+')} ${lockLine(l)}`);
        for (const l of change.changed) io.out(`${t}  ${style.yellow('~')} ${lockLine(l)}`);
        for (const k of change.removed) io.out(`${t}  ${style.red('-')} ${escapeText(k)}`);
        const before = prev;
        snapshot.nodes.forEach((now, i) => {
          const was = before.nodes[i];
          if (!was || was.reachable === now.reachable) return;
          io.out(now.reachable
            ? `${t}  node ${escapeText(now.node)} ${style.green('answers again')}`
            : `${t}  node ${escapeText(now.node)} ${style.red('unreachable')}: ${escapeText(now.error ?? 'no answer')}`);
        });
        if (reachableCount(snapshot) >= snapshot.quorum && code !== wasCode) io.out(`${t}  ${style.green('quorum of nodes answering again')}`);
      }
      prev = snapshot;
    });
  };
  const watcher = redlock.watch(
    { patterns: cmd.patterns, expiringThresholdMs: cmd.expiringMs, intervalMs: cmd.intervalMs },
    { snapshot: (s) => emit(s), change: (c, s) => emit(s, c), error: (e) => io.err(`watch: ${escapeText(e instanceof Error ? e.message : String(e))}`) },
  );
  await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
  await watcher.stop();
  await queue;
  return code;
}
