// `history`: a resource's event log read from every node (read-only, bounded by
// READ_EVENTS entries of MAX_EVENT_BYTES each per node), merged by the client's clock.
import { LockEvent, mergeEvents, readEvents } from '../bookkeeping/events';
import { withDeadline } from '../connection/deadline';
import { downStatus, RedisNode } from '../connection/nodes';
import type { Resource } from '../vocabulary/resource';
import { displayKey } from '../vocabulary/tokens';
import type { NodeStatus } from '../vocabulary/types';
import { historyHorizon } from '../vocabulary/audit';

export interface History {
  resource: string;
  /** Newest first; unreadable entries last. */
  events: LockEvent[];
  quorum: number;
  nodes: NodeStatus[];
}

export async function readHistory(nodes: readonly RedisNode[], quorum: number, timeoutMs: number, resource: Resource): Promise<History> {
  return (await readLogs(nodes, quorum, timeoutMs, resource)).history;
}

/** The history, and from when it is whole (historyHorizon): what an audit of it may tell. */
export async function readLogs(nodes: readonly RedisNode[], quorum: number, timeoutMs: number, resource: Resource): Promise<{ history: History; horizon: number | null }> {
  const statuses: NodeStatus[] = [];
  const perNode = await Promise.all(
    nodes.map(async (node, i) => {
      const t0 = performance.now();
      try {
        const events = await withDeadline(readEvents(node.client, resource), timeoutMs);
        statuses[i] = { node: node.id, reachable: true, latencyMs: Math.round((performance.now() - t0) * 100) / 100, error: null, outcome: 'ok' };
        return events;
      } catch (e) {
        const down = downStatus(e, node);
        statuses[i] = { node: node.id, reachable: false, latencyMs: null, error: down.error, outcome: down.outcome };
        return null;
      }
    }),
  );
  const history = { resource: displayKey(resource), events: mergeEvents(perNode.map((e) => e ?? [])), quorum, nodes: statuses };
  return { history, horizon: historyHorizon(perNode, quorum) };
}
