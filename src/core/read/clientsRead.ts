// The named connections on each node, for the liveness verdict (docs/liveness.md): one
// CLIENT LIST per node and read at most, after INFO clients says it stays cheap. A node
// that refuses either, or has too many clients, says why instead; never an error.
import type Redis from 'ioredis';
import { ReplyError } from 'ioredis';
import { withDeadline } from '../connection/deadline';
import { firstLine } from '../connection/replies';
import { readable, type InspectContext, type NodeScan } from './context';

/**
 * CLIENT LIST walks every client and formats a line (about 300 bytes) for each: about
 * 0.6 µs apiece once warm, up to 6 µs on a cold first call (measured in docs/liveness.md).
 * Past this many it could take the node near 10 ms, and its reply would pass 300 KB.
 */
export const MAX_CLIENTS = 1000;

/** One node's connections by name (name -> the least idle of them, ms), or why they are unknown. */
export interface NodeClients {
  node: string;
  names: Map<string, number> | null;
  /** Why `names` is null: `CLIENT LIST denied on <node> (NOPERM ...)`. */
  reason: string | null;
  /** The same without the node, so that nodes refusing alike are named in one sentence. */
  problem?: { what: string; detail: string };
}

/** Nodes that refused alike in one sentence: `CLIENT LIST denied on n1, n2 (NOPERM ...)`. */
export function reasonsText(clients: readonly NodeClients[]): string {
  const groups = new Map<string, { what: string; detail: string; nodes: string[] }>();
  const others: string[] = [];
  for (const c of clients) {
    if (!c.problem) {
      if (c.reason) others.push(c.reason);
      continue;
    }
    const k = `${c.problem.what}\n${c.problem.detail}`;
    const g = groups.get(k) ?? { ...c.problem, nodes: [] };
    g.nodes.push(c.node);
    groups.set(k, g);
  }
  return [...[...groups.values()].map((g) => `${g.what} on ${g.nodes.join(', ')} (${g.detail})`), ...others].join('; ');
}

/** name= and idle= of each CLIENT LIST line; unnamed connections are left out. */
export function namedClients(list: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of list.split('\n')) {
    const name = / name=(\S+)/.exec(line)?.[1];
    if (!name) continue;
    const idleMs = Number(/ idle=(\d+)/.exec(line)?.[1] ?? 0) * 1000;
    const before = out.get(name);
    if (before === undefined || idleMs < before) out.set(name, idleMs);
  }
  return out;
}

/** `denied` for a reply (NOPERM, unknown command), `unanswered` for a timeout or a dropped connection. */
function failed(command: string, node: string, e: unknown): NodeClients {
  const what = `${command} ${e instanceof ReplyError ? 'denied' : 'unanswered'}`;
  const detail = firstLine(e instanceof Error ? e.message : String(e));
  return { node, names: null, reason: `${what} on ${node} (${detail})`, problem: { what, detail } };
}

async function readNode(ctx: InspectContext, scan: NodeScan, client: Redis): Promise<NodeClients> {
  const node = scan.status.node;
  let count: number;
  try {
    count = Number(/connected_clients:(\d+)/.exec(await withDeadline(client.info('clients'), ctx.commandTimeoutMs))?.[1]);
  } catch (e) {
    return failed('INFO clients', node, e);
  }
  if (!Number.isFinite(count)) return { node, names: null, reason: `${node} did not say how many clients it has` };
  if (count > MAX_CLIENTS) return { node, names: null, reason: `CLIENT LIST skipped on ${node}: ${count} clients would make it slow` };
  try {
    const list = await withDeadline(client.call('CLIENT', 'LIST'), ctx.commandTimeoutMs);
    return { node, names: namedClients(String(list)), reason: null };
  } catch (e) {
    return failed('CLIENT LIST', node, e);
  }
}

/** Every readable node's named connections, read in parallel. */
export async function readClients(ctx: InspectContext, scans: readonly NodeScan[]): Promise<NodeClients[]> {
  return Promise.all(ctx.nodes.map((n, i) => (readable(scans[i].status) ? readNode(ctx, scans[i], n.client as Redis) : Promise.resolve({ node: scans[i].status.node, names: null, reason: `${scans[i].status.node} did not answer` }))));
}
