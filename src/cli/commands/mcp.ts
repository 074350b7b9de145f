// `mcp`: a Model Context Protocol server on stdio until the client closes stdin or the
// process is interrupted. stdout carries protocol messages only; diagnostics go to stderr.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Redlock } from '../../core/redlock';
import { EXIT, ExitCode } from '../exit';
import type { Io } from '../io';
import { createMcpServer } from '../mcpServer';

export interface McpArgs {
  allowWrites: boolean;
  readOnly: boolean;
}

export async function runMcp(redlock: Redlock, cmd: McpArgs, io: Io, version = 'unknown'): Promise<ExitCode> {
  const signal = io.interruption();
  // --read-only (or REDLOCK_READ_ONLY) wins over --allow-writes: no write tool is offered.
  const allowWrites = cmd.allowWrites && !cmd.readOnly;
  if (cmd.allowWrites && !allowWrites) io.err('redlock-inspector: mcp: read-only mode: the write tools are not offered');
  const server = createMcpServer(redlock, { allowWrites, version });
  const transport = new StdioServerTransport();
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
