// `exporter`: Prometheus metrics at http://HOST:PORT/metrics until interrupted. Reads only.
import { createServer } from 'node:http';
import type { Redlock } from '../../core/redlock';
import type { ListenAddress, ReadArgs } from '../args';
import { escapeText } from '../escape';
import { CliError, EXIT, ExitCode } from '../exit';
import { Exporter } from '../exporterMetrics';
import type { Io } from '../io';

export interface ExporterArgs extends ReadArgs {
  listen: ListenAddress;
  intervalMs: number;
}

export async function runExporter(redlock: Redlock, cmd: ExporterArgs, io: Io): Promise<ExitCode> {
  const signal = io.interruption();
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
