// redlock-inspector: the shared Redlock core in a terminal (DESIGN.md "Command-line
// contract"). main() turns argv into an exit code; every failure ends as one line on
// stderr and the contract's code, never a stack trace.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RedlockError } from '../core/errors';
import { Redlock } from '../core/redlock';
import { NodeConfigError } from '../core/urls';
import { Command, parseArgs, USAGE, UsageError, WRITE_COMMANDS } from './args';
import { runDoctor } from './commands/doctor';
import { runExporter } from './commands/exporter';
import { runForceRelease } from './commands/forceRelease';
import { runMcp } from './commands/mcp';
import { runAcquire, runExtend, runRelease } from './commands/locks';
import { runStatus } from './commands/status';
import { runWatch } from './commands/watch';
import { escapeText } from './escape';
import { CliError, EXIT, ExitCode } from './exit';
import { Io, processIo } from './io';

const PREFIX = 'redlock-inspector: ';

/** Connection settings for a one-shot command: a dead node must not stall it for long. */
export const CONNECT_TIMEOUT_MS = 2000;
export const READ_TIMEOUT_MS = 1000;

function version(): string {
  // dist/cli.js sits next to the package root; elsewhere (tests) the version is unknown.
  try {
    return (JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Maps any failure to one stderr line and an exit code. */
export function report(e: unknown, io: Io): ExitCode {
  const message = escapeText(e instanceof Error ? e.message : String(e));
  if (e instanceof CliError) {
    io.err(PREFIX + message);
    return e.code;
  }
  if (e instanceof UsageError || e instanceof NodeConfigError || e instanceof RangeError) {
    // RangeError: the core's own validation (TTL, resource, pattern), i.e. bad input.
    io.err(PREFIX + message);
    return EXIT.usage;
  }
  if (e instanceof RedlockError) {
    io.err(PREFIX + message);
    return e.unreachable ? EXIT.noQuorum : EXIT.refused;
  }
  io.err(`${PREFIX}unexpected failure: ${message}`);
  return EXIT.refused;
}

async function run(cmd: Exclude<Command, { name: 'help' | 'version' }>, redlock: Redlock, io: Io): Promise<ExitCode> {
  switch (cmd.name) {
    case 'status':
      return runStatus(redlock, cmd, io);
    case 'watch':
      return runWatch(redlock, cmd, io);
    case 'acquire':
      return runAcquire(redlock, cmd, io);
    case 'extend':
      return runExtend(redlock, cmd, io);
    case 'release':
      return runRelease(redlock, cmd, io);
    case 'force-release':
      return runForceRelease(redlock, cmd, io);
    case 'doctor':
      return runDoctor(redlock, cmd, io);
    case 'exporter':
      return runExporter(redlock, cmd, io);
    case 'mcp':
      return runMcp(redlock, cmd, io, version());
  }
}

export async function main(argv: readonly string[], io: Io): Promise<ExitCode> {
  let cmd: Command;
  try {
    cmd = parseArgs(argv, io.env);
  } catch (e) {
    return report(e, io);
  }
  if (cmd.name === 'help') {
    io.out(USAGE);
    return EXIT.ok;
  }
  if (cmd.name === 'version') {
    io.out(version());
    return EXIT.ok;
  }
  // Refusals that must happen before any connection is opened.
  if (cmd.readOnly && WRITE_COMMANDS.has(cmd.name)) {
    const why = io.env.REDLOCK_READ_ONLY !== undefined && !argv.includes('--read-only') ? 'REDLOCK_READ_ONLY is set' : '--read-only';
    io.err(`${PREFIX}read-only mode (${why}): ${cmd.name} refused; nothing was sent to any node`);
    return EXIT.usage;
  }
  if (cmd.name === 'force-release' && !cmd.yes && !io.stdinIsTTY) {
    io.err(`${PREFIX}force-release needs --yes when stdin is not a terminal; nothing deleted`);
    return EXIT.usage;
  }
  if (cmd.nodes.length === 0) {
    io.err(`${PREFIX}no Redis node configured: pass --node URL (repeatable) or set REDLOCK_NODES`);
    return EXIT.usage;
  }
  let redlock: Redlock;
  try {
    // Every URL is parsed (NodeConfigError, exit 2) before a single connection opens.
    redlock = new Redlock(cmd.nodes, { connectTimeoutMs: CONNECT_TIMEOUT_MS, readTimeoutMs: READ_TIMEOUT_MS, defaultPassword: cmd.password });
  } catch (e) {
    return report(e, io);
  }
  try {
    return await run(cmd, redlock, io);
  } catch (e) {
    return report(e, io);
  } finally {
    await redlock.quit().catch(() => undefined);
  }
}

if (require.main === module) {
  const io = processIo();
  const last = (e: unknown): void => {
    // Nothing may escape as a stack trace; this is a bug, said in one line.
    io.err(`${PREFIX}unexpected failure: ${escapeText(e instanceof Error ? e.message : String(e))}`);
    process.exit(EXIT.refused);
  };
  process.on('uncaughtException', last);
  process.on('unhandledRejection', last);
  const flushed = (stream: NodeJS.WriteStream): Promise<void> => new Promise((resolve) => stream.write('', () => resolve()));
  main(process.argv.slice(2), io).then(async (code) => {
    // Every connection is closed by now (main awaits redlock.quit()). Exiting explicitly,
    // once stdout and stderr are flushed, spares the user ioredis' 2 s disconnect timer,
    // which lingers after quitting a client whose node refused the connection.
    await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
    process.exit(code);
  }, last);
}
