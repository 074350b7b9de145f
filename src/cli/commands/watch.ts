// `watch`: the core's Watcher in a terminal. --json prints JSON lines: the first a full
// status document (as `status --json`), each next one { at, added, changed, removed }.
import { Command, Option } from 'commander';
import type { Redlock } from '../../core';
import { NodeConfigError } from '../../core';
import type { Snapshot } from '../../core/vocabulary';
import type { WatchChange, WatchStatus } from '../../core';
import type { CliContext } from '../context';
import { escapeText, safeJsonPieces } from '../escape';
import { EXIT, ExitCode } from '../exit';
import { linePieces, type Io } from '../io';
import { DEFAULT_INTERVAL_MS, durationParser, MIN_INTERVAL_MS, readOptions, ReadOptions } from '../options';
import { clockTime, lockLine } from '../render';
import { styleFor } from '../style';
import { WatchLines } from '../watchLines';
import { humanStatus, jsonStatus, tooFewNodesLine, ReadArgs, readArgs, reachableCount, statusExit, unreadLine, withDiscovered, EMPTY_CHECK_KEYS } from './status';

export function register(program: Command, ctx: CliContext): void {
  readOptions(program.command('watch').description('print a snapshot, then every change until Ctrl-C (reads only)'))
    .addOption(new Option('--interval <duration>', `time between reads (default ${DEFAULT_INTERVAL_MS} ms)`).argParser(durationParser('--interval', MIN_INTERVAL_MS)))
    .action(ctx.action(async (opts: ReadOptions & { interval?: number }, cmd: Command) =>
      ctx.withRedlock(cmd, opts, {}, (redlock) => runWatch(redlock, { ...readArgs(opts, ctx.connectionPatterns(cmd)), intervalMs: opts.interval ?? DEFAULT_INTERVAL_MS }, ctx.io))));
}

export async function runWatch(redlock: Redlock, asked: ReadArgs & { intervalMs: number }, io: Io): Promise<ExitCode> {
  // The first read under the default patterns may widen them (as status does), before watching.
  // A short look (a few pages, half a second), not a full read: the watch reads in full next.
  const look = asked.defaulted ? await redlock.inspect({ patterns: asked.patterns, maxKeys: EMPTY_CHECK_KEYS, timeBudgetMs: 500 }) : undefined;
  const cmd = look ? { ...asked, ...(await withDiscovered(redlock, asked, look, io)) } : asked;
  const signal = io.interruption();
  const style = styleFor(io.colour);
  let prev: WatchStatus | undefined;
  const lines = new WatchLines();
  let code: ExitCode = EXIT.ok;
  // Output is written in order even though the human status line awaits node facts.
  let queue: Promise<void> = Promise.resolve();
  const emit = (snapshot: Snapshot | WatchStatus, change?: WatchChange): void => {
    // The watcher hands a snapshot over as soon as it is read: that is its time.
    const receivedAtMs = Date.now();
    queue = queue.then(async () => {
      let nextCode = statusExit(snapshot);
      // One stderr line when the quorum of answering nodes is lost (or missing at start).
      if (nextCode !== EXIT.ok && (prev === undefined || code === EXIT.ok)) io.err(tooFewNodesLine(snapshot));
      // A cluster master that owns part of the watched keyspace and went silent: as status.
      const unread = nextCode === EXIT.ok ? redlock.unreadKeyspace(snapshot.nodes, cmd.patterns) : [];
      if (unread.length > 0) {
        if (prev === undefined || code === EXIT.ok) io.err(unreadLine(unread, snapshot.nodes));
        nextCode = EXIT.noQuorum;
      }
      const wasCode = code;
      code = nextCode;
      if (!change || !prev) {
        // The first JSON line is the status document (node facts and `at` included).
        if (cmd.json) await io.outPieces(safeJsonPieces(await jsonStatus(redlock, snapshot as Snapshot, receivedAtMs)));
        else {
          // Only the lines about changes need what each lock showed before.
          if (!change) lines.seed((snapshot as Snapshot).locks, receivedAtMs);
          await io.outPieces(linePieces(await humanStatus(redlock, snapshot as Snapshot, cmd, io)));
        }
      } else if (cmd.json) {
        // A change may name every lock too (all of them back after an outage).
        await io.outPieces(safeJsonPieces(change));
      } else {
        const atMs = Date.parse(change.at);
        const t = style.dim(clockTime(atMs));
        const legend = (entries: string[]): void => {
          for (const e of entries) io.out(style.dim(`${' '.repeat(clockTime(atMs).length)}      ${e}`));
        };
        for (const l of change.added) {
          io.out(`${t}  ${style.green('+')} ${lockLine(l)}`);
          legend(lines.added(l, atMs));
        }
        for (const l of change.changed) {
          const c = lines.changed(l, atMs);
          if (c.text !== null) io.out(`${t}  ${style.yellow('~')} ${c.text}`);
          legend(c.legend);
        }
        for (const k of change.removed) {
          lines.removed(k);
          io.out(`${t}  ${style.red('-')} ${escapeText(k)}`);
        }
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
  // Two entries found to reach one server end the watch (exit 2): every later count would be wrong.
  let configError: NodeConfigError | undefined;
  let stopForConfig: () => void = () => undefined;
  const watcher = redlock.watch(
    { patterns: cmd.patterns, expiringThresholdMs: cmd.expiringMs, intervalMs: cmd.intervalMs },
    {
      snapshot: (s) => emit(s),
      change: (c, s) => emit(s, c),
      error: (e) => {
        if (e instanceof NodeConfigError) {
          configError = e;
          stopForConfig();
          return;
        }
        io.err(`watch: ${escapeText(e instanceof Error ? e.message : String(e))}`);
      },
    },
  );
  await new Promise<void>((resolve) => {
    stopForConfig = resolve;
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await watcher.stop();
  await queue;
  if (configError) throw configError;
  return code;
}
