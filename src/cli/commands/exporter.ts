// `exporter`: Prometheus metrics at http://HOST:PORT/metrics until interrupted. Reads only.
import { createServer } from 'node:http';
import { Command, Option } from 'commander';
import type { Redlock } from '../../core';
import type { CliContext } from '../context';
import { escapeText } from '../escape';
import { CliError, EXIT, ExitCode, UsageError } from '../exit';
import type { Io } from '../io';
import { DEFAULT_INTERVAL_MS, DEFAULT_PATTERN_TEXT, defaultPatterns, durationParser, listParser, MIN_INTERVAL_MS } from '../options';

export interface ListenAddress {
  host: string;
  port: number;
}

export interface ExporterArgs {
  listen: ListenAddress;
  patterns: string[];
  intervalMs: number;
  expiringMs: number | undefined;
}

/** `HOST:PORT` or `[v6]:PORT`; port 0 picks a free one. */
export function parseListen(text: string): ListenAddress {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]+)):(\d{1,5})$/.exec(text);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new UsageError(`invalid --listen "${escapeText(text)}": expected HOST:PORT, e.g. 127.0.0.1:9464 or [::1]:9464`);
  return { host: m[1] ?? m[2], port };
}

interface ExporterOptions {
  node?: string[];
  listen: ListenAddress;
  pattern?: string[];
  interval?: number;
  expiringMs?: number;
}

export function register(program: Command, ctx: CliContext): void {
  program.command('exporter').description('serve Prometheus metrics of the locks and nodes at /metrics until Ctrl-C (reads only)')
    .addOption(new Option('--listen <host:port>', 'address to serve on, e.g. 127.0.0.1:9464 (port 0: any free port)').argParser(parseListen).makeOptionMandatory())
    .addOption(new Option('--node <url>', 'a Redis node URL (repeatable; replaces REDLOCK_NODES)').argParser(listParser('--node')))
    .addOption(new Option('--pattern <glob>', `SCAN MATCH glob of the keys to read (repeatable; default ${DEFAULT_PATTERN_TEXT})`).argParser(listParser('--pattern')))
    .addOption(new Option('--interval <duration>', `time between reads (default ${DEFAULT_INTERVAL_MS} ms)`).argParser(durationParser('--interval', MIN_INTERVAL_MS)))
    .addOption(new Option('--expiring-ms <duration>', 'flag locks whose validity is below this as expiring (default 2000)').argParser(durationParser('--expiring-ms', 0)))
    .action(ctx.action(async (opts: ExporterOptions, cmd: Command) =>
      ctx.withRedlock(cmd, opts, {}, (redlock) => runExporter(redlock, {
        listen: opts.listen,
        patterns: opts.pattern ?? ctx.connectionPatterns(cmd) ?? defaultPatterns(),
        intervalMs: opts.interval ?? DEFAULT_INTERVAL_MS,
        expiringMs: opts.expiringMs,
      }, ctx.io))));
}

export async function runExporter(redlock: Redlock, cmd: ExporterArgs, io: Io): Promise<ExitCode> {
  const signal = io.interruption();
  // prom-client is evaluated only here: every other command's start paid about 20 ms for it
  // (docs/decisions.md, "The CLI's own time, around its read").
  const { Exporter } = await import('../exporterMetrics');
  const exporter = new Exporter(redlock, {
    patterns: cmd.patterns,
    intervalMs: cmd.intervalMs,
    expiringThresholdMs: cmd.expiringMs,
    onError: (m) => io.err(`redlock-inspector: exporter: ${escapeText(m)}`),
  });
  const server = createServer((req, res) => exporter.handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => reject(new CliError(`cannot listen on ${cmd.listen.host}:${cmd.listen.port}: ${e.code ?? e.message}`, EXIT.usage)));
    server.listen(cmd.listen.port, cmd.listen.host, () => resolve());
  });
  const addr = server.address();
  const shown = typeof addr === 'object' && addr ? (addr.family === 'IPv6' ? `[${addr.address}]:${addr.port}` : `${addr.address}:${addr.port}`) : `${cmd.listen.host}:${cmd.listen.port}`;
  exporter.start();
  io.out(`redlock-inspector exporter: serving http://${shown}/metrics`);
  await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  await exporter.stop();
  return EXIT.ok;
}
