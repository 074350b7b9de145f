// redlock-inspector: the shared Redlock core in a terminal, parsed by commander.
// Each command is a file in src/cli/commands exporting `register(program, ctx)`, listed in
// commands/index.ts; ctx (context.ts) gives it the Io, node settings and one Redlock per run.
// main() turns argv into an exit code; every failure ends as one escaped line on stderr and
// the contract's code (usage errors 2, whatever commander's default), never a stack trace.
import { Command, CommanderError } from 'commander';
import { RedlockError, UnsupportedWriteError } from '../core';
import { NodeConfigError } from '../core';
import { COMMANDS } from './commands';
import { CliContext, PREFIX } from './context';
import { escapeText } from './escape';
import { CliError, EXIT, ExitCode, UsageError } from './exit';
import { Io, processIo } from './io';
import { packageVersion } from './version';

export { CONNECT_TIMEOUT_MS, READ_TIMEOUT_MS } from './context';

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
  if (e instanceof UnsupportedWriteError) {
    // Refused before writing anything: the server cannot do it safely as configured.
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

const SUGGESTION = /\n\(Did you mean ([^\n]*)\?\)$/;

/**
 * commander's error text, as one line of ours: it quotes the user's words raw (an unknown
 * option may carry an escape sequence), so everything is escaped, the suggestion included.
 */
export function errorLine(text: string): string {
  let body = text.replace(/\n$/, '').replace(/^error: /, '');
  const m = SUGGESTION.exec(body);
  let hint = '';
  if (m) {
    body = body.slice(0, m.index);
    hint = ` (did you mean ${escapeText(m[1])}?)`;
  }
  return PREFIX + escapeText(body) + hint;
}

/** Text commander writes outside errors (help on stderr): each line escaped, breaks kept. */
const escapedLines = (text: string): string => text.replace(/\n$/, '').split('\n').map(escapeText).join('\n');

export function buildProgram(ctx: CliContext): Command {
  const program = new Command('redlock-inspector')
    .description('See and fix Redis distributed locks (Redlock) across every node.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .option('--read-only', 'refuse every write command (also REDLOCK_READ_ONLY=1)')
    .option('--connection <name>', 'use a named connection from REDLOCK_CONFIG or ~/.config/redlock-inspector/connections.json (--node overrides its nodes)')
    .option('--allow-writes', 'allow writes on a connection marked production; mcp: offer its write tools (never with --read-only)')
    .addHelpText('after', HELP_FOOTER)
    // Set before any command is added: subcommands inherit them.
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureHelp({ showGlobalOptions: true })
    .configureOutput({
      writeOut: (s) => ctx.io.out(s.replace(/\n$/, '')),
      writeErr: (s) => ctx.io.err(escapedLines(s)),
      outputError: (s) => ctx.io.err(errorLine(s)),
    });
  for (const register of COMMANDS) register(program, ctx);
  return program;
}

/**
 * `redlock-inspector --node URL status` reads as well as `status --node URL`: options
 * written before the command move after it, since commander only knows a command's own
 * options once it has seen the command's name. A value of a value-taking option (a
 * resource called `status`, say) is never taken for the command.
 */
export function commandFirst(program: Command, argv: readonly string[]): string[] {
  if (argv.length === 0 || !argv[0].startsWith('-')) return [...argv];
  const names = new Set(program.commands.flatMap((c) => [c.name(), ...c.aliases()]));
  const takesValue = new Set<string>();
  for (const c of [program, ...program.commands]) {
    for (const o of c.options) {
      if (!o.required && !o.optional) continue;
      if (o.long) takesValue.add(o.long);
      if (o.short) takesValue.add(o.short);
    }
  }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') break;
    if (names.has(a)) return [a, ...argv.slice(0, i), ...argv.slice(i + 1)];
    if (!a.startsWith('-')) break;
    if (takesValue.has(a)) i++;
  }
  return [...argv];
}

export async function main(argv: readonly string[], io: Io): Promise<ExitCode> {
  const ctx = new CliContext(io);
  try {
    const program = buildProgram(ctx);
    await program.parseAsync(commandFirst(program, argv), { from: 'user' });
    return ctx.exitCode;
  } catch (e) {
    // Help and --version end as a CommanderError with exit code 0; every parse error
    // (unknown command or option, missing value or argument) is bad usage.
    if (e instanceof CommanderError) return e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    return report(e, io);
  }
}

const HELP_FOOTER = `
Nodes: --node URL (repeatable) replaces REDLOCK_NODES (comma-separated). URLs:
  redis://[user:pass@]host:port[/db], rediss:// (TLS),
  redis+sentinel://host:port[,host:port]/masterName, redis+cluster://host:port[,host:port]
  (rediss+sentinel://, rediss+cluster://: the same over TLS, every connection encrypted)
  REDLOCK_PASSWORD applies to URLs without a password; it is never printed.
TLS (rediss*://): --tls-ca FILE trusts a private CA (added to the system CAs);
  --tls-cert FILE --tls-key FILE present a client certificate (mutual TLS), the key's
  passphrase from REDLOCK_TLS_PASSPHRASE; --tls-insecure skips certificate checks
  (local tests only). NODE_EXTRA_CA_CERTS=FILE also adds a CA.
RESOURCE and TOKEN accept hex:<hex> for bytes that are not printable UTF-8.
Durations (--ttl, --interval, --expiring-ms): 1500, 1500ms, 10s, 2m.
The program's compiled code is kept in $XDG_CACHE_HOME/redlock-inspector (else
~/.cache/redlock-inspector) so that the next start is faster; REDLOCK_CODE_CACHE=off
turns that off.

Exit codes: 0 done; 1 refused by the nodes that answered; 2 bad usage or input,
read-only refusal, force-release without --yes off a terminal; 3 fewer than a
quorum of nodes answered; 4 status --fail-on matched a lock, or doctor found an
error-level problem.`;

/** The CLI as a process: argv in, an exit code out (dist/cli.js runs it: src/cli/bin.ts). */
export function run(): void {
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

if (require.main === module) run();
