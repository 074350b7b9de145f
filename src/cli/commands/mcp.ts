// `mcp`: a Model Context Protocol server on stdio until the client closes stdin or the
// process is interrupted. stdout carries protocol messages only; diagnostics go to stderr.
import { Command, Option } from 'commander';
import type { Redlock } from '../../core';
import type { CliContext } from '../context';
import { EXIT, ExitCode } from '../exit';
import type { Io } from '../io';
import { createMcpServer, loadMcpSdk } from '../mcpServer';
import { listParser } from '../options';
import { packageVersion } from '../version';

export function register(program: Command, ctx: CliContext): void {
  program.command('mcp').description('serve Model Context Protocol tools over stdio for AI assistants (read-only unless --allow-writes)')
    .addOption(new Option('--node <url>', 'a Redis node URL (repeatable; replaces REDLOCK_NODES)').argParser(listParser('--node')))
    // --allow-writes is global: here it offers extend and force-release tools (compare-and-set on shown tokens).
    .action(ctx.action(async (opts: { node?: string[] }, cmd: Command) =>
      ctx.withRedlock(cmd, opts, {}, (redlock) => runMcp(redlock, { allowWrites: cmd.optsWithGlobals<{ allowWrites?: boolean }>().allowWrites === true, readOnly: ctx.readOnly(cmd).on }, ctx.io, packageVersion()))));
}

export interface McpArgs {
  allowWrites: boolean;
  readOnly: boolean;
}

export async function runMcp(redlock: Redlock, cmd: McpArgs, io: Io, version = 'unknown'): Promise<ExitCode> {
  const signal = io.interruption();
  // --read-only (or REDLOCK_READ_ONLY) wins over --allow-writes: no write tool is offered.
  const allowWrites = cmd.allowWrites && !cmd.readOnly;
  if (cmd.allowWrites && !allowWrites) io.err('redlock-inspector: mcp: read-only mode: the write tools are not offered');
  const sdk = await loadMcpSdk();
  const server = createMcpServer(redlock, { allowWrites, version }, sdk);
  const transport = new sdk.StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.connect(transport);
  await closed;
  await server.close().catch(() => undefined);
  return EXIT.ok;
}
