// Writes are compare-and-set on the token the user saw, and on every server that takes a
// Lua script (docs/architecture.md "Their servers"). A server that runs no scripts cannot
// do that, and a GET then DEL would delete a lock that changed hands in between: acquire,
// extend, release and force-release refuse before anything is written, naming the node.
import { answeredCapabilities, capabilitiesOf, serverLabel, ServerCapabilities } from '../connection/capabilities';
import { performance } from 'node:perf_hooks';
import type { RedisNode } from '../connection/nodes';

/** The least grace the rest of the nodes get once a quorum answered it can serve a write. */
const GRACE_MS = 20;

/** A write refused before it started: a node cannot run it safely (CLI exit 2). */
export class UnsupportedWriteError extends Error {
  override name = 'UnsupportedWriteError';
  constructor(readonly operation: string, readonly lines: string[]) {
    super(`cannot ${operation}: ${lines.join('; ')}`);
  }
}

/** Whether `caps` can serve `operation`; a plain release is one compare-and-delete per key, which native commands serve. */
function serves(caps: ServerCapabilities, operation: string): boolean {
  if (operation === 'release' && caps.compareAndDeleteCommand) return true;
  return caps.capabilities.scripts !== false;
}

function refuse(nodes: readonly RedisNode[], operation: string): void {
  const lines: string[] = [];
  for (const node of nodes) {
    const caps = answeredCapabilities(node.client);
    if (caps && !serves(caps, operation)) lines.push(`${node.id}: this server (${serverLabel(caps)}) cannot run scripts (EVAL is refused), which ${operation} needs to write only where the token still matches`);
  }
  if (lines.length) throw new UnsupportedWriteError(operation, lines.sort());
}

/**
 * Refuses `operation` when any node whose capability probe answered runs no scripts.
 * Native compare-and-delete (Valkey 9 DELIFEQ, Redis 8.4 DELEX) serves a release
 * (writeScripts.ts releaseKeysOn); acquire's undo of a partial grant, extend and
 * force-release still need a script.
 *
 * Once every connection has answered its probe this is a check without a promise
 * (undefined): the hot path pays nothing. Otherwise it waits for the probes, but never
 * past the write's own deadline, and no longer than it takes a quorum to answer that it
 * can serve the write: a silent node (frozen, partitioned) is left to the write's own
 * round, whose deadline already bounds it, instead of holding every write up
 * (docs/decisions.md, "Writes never wait on a probe").
 */
export function requireScripting(nodes: readonly RedisNode[], operation: string, quorum: number, deadlineMs: number, probeTimeoutMs: number): Promise<void> | undefined {
  let unanswered = 0;
  for (const node of nodes) if (answeredCapabilities(node.client) === undefined) unanswered++;
  if (unanswered === 0) {
    refuse(nodes, operation);
    return undefined;
  }
  const started = performance.now();
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    let timer = setTimeout(() => finish(), deadlineMs);
    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      try {
        refuse(nodes, operation);
        resolve();
      } catch (e) {
        reject(e);
      }
    };
    let serving = 0;
    let refusing = 0;
    let pending = 0;
    // Healthy nodes answer within moments of each other: once a quorum can serve, the rest
    // get a short grace (so one without scripts is still named before anything is written),
    // never the whole deadline.
    const check = (): void => {
      if (pending === 0) return finish();
      if (refusing > 0 || serving < quorum) return;
      const elapsed = performance.now() - started;
      clearTimeout(timer);
      timer = setTimeout(finish, Math.min(Math.max(0, deadlineMs - elapsed), Math.max(GRACE_MS, elapsed)));
    };
    for (const node of nodes) {
      const known = answeredCapabilities(node.client);
      if (known !== undefined) {
        if (serves(known, operation)) serving++;
        else refusing++;
        continue;
      }
      pending++;
      void capabilitiesOf(node.client, probeTimeoutMs).then(
        (caps) => {
          if (serves(caps, operation)) serving++;
          else refusing++;
          pending--;
          check();
        },
        () => {
          pending--;
          check();
        },
      );
    }
    check();
  });
}
