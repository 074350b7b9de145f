// Writes are compare-and-set on the token the user saw, and on every server that takes a
// Lua script (docs/architecture.md "Their servers"). A server that runs no scripts cannot
// do that, and a GET then DEL would delete a lock that changed hands in between: acquire,
// extend, release and force-release refuse before anything is written, naming the node.
import { capabilitiesOf, serverLabel } from '../connection/capabilities';
import type { RedisNode } from '../connection/nodes';

/** A write refused before it started: a node cannot run it safely (CLI exit 2). */
export class UnsupportedWriteError extends Error {
  override name = 'UnsupportedWriteError';
  constructor(readonly operation: string, readonly lines: string[]) {
    super(`cannot ${operation}: ${lines.join('; ')}`);
  }
}

/**
 * Refuses `operation` when any node that answered the capability probe runs no scripts.
 * Native compare-and-delete (Valkey 9 DELIFEQ, Redis 8.4 DELEX) serves a release
 * (writeScripts.ts releaseKeysOn); acquire's undo of a partial grant, extend and
 * force-release still need a script.
 * A node that does not answer is left to the write's own round.
 */
export async function requireScripting(nodes: readonly RedisNode[], operation: string, timeoutMs: number): Promise<void> {
  const lines: string[] = [];
  await Promise.all(nodes.map(async (node) => {
    const caps = await capabilitiesOf(node.client, timeoutMs).catch(() => null);
    // A plain release is one compare-and-delete per key: native commands serve it.
    if (operation === 'release' && caps?.compareAndDeleteCommand) return;
    if (caps?.capabilities.scripts === false) lines.push(`${node.id}: this server (${serverLabel(caps)}) cannot run scripts (EVAL is refused), which ${operation} needs to write only where the token still matches`);
  }));
  if (lines.length) throw new UnsupportedWriteError(operation, lines.sort());
}
