// A Redis Cluster as the read paths see it: one node per master of the slot map, so a
// master that does not answer is listed as unreachable instead of vanishing with its
// keys, and a cluster whose slot map is still unknown is never shown as complete.
import Redis, { Cluster } from 'ioredis';
import { connectionOf, lastErrorOf, masterIdOfKey, seedIds, slotOwners } from './clusterTopology';
import { tlsRefusal } from './tlsRefusals';
import { RedisNode } from './nodes';

export interface ClusterMember {
  node: RedisNode;
  /** Inclusive slot ranges this master owns; empty when the slot map is unknown. */
  ranges: Array<[number, number]>;
}

const members = new WeakMap<Redis, RedisNode>();
const stand_ins = new WeakMap<Cluster, Map<string, RedisNode>>();

/**
 * A node with no connection, for a master ioredis holds none to (it refused, or the slot
 * map never arrived): every call on it fails at once with `reason`.
 */
function standIn(cluster: Cluster, id: string, reason: string): RedisNode {
  let byId = stand_ins.get(cluster);
  if (!byId) stand_ins.set(cluster, (byId = new Map()));
  let node = byId.get(id);
  if (!node) {
    const client = new Redis({ lazyConnect: true, enableOfflineQueue: false, retryStrategy: () => null });
    client.on('error', () => undefined);
    client.disconnect();
    node = new RedisNode(id, client, false, undefined, true);
    byId.set(id, node);
  }
  node.lastError = reason;
  return node;
}

export function clusterMembers(cluster: Cluster): ClusterMember[] {
  const owners = slotOwners(cluster);
  if (owners.length === 0) {
    const tls = tlsRefusal(cluster);
    const why = `cluster topology unknown: no seed answered CLUSTER SLOTS${tls ? ` (${tls})` : ''}`;
    return seedIds(cluster).map((id) => ({ node: standIn(cluster, id, why), ranges: [] }));
  }
  return owners.map(({ key, ranges }) => {
    const id = masterIdOfKey(key);
    const conn = connectionOf(cluster, key);
    if (!conn || conn.status === 'end') {
      return { node: standIn(cluster, id, lastErrorOf(cluster, key) ?? 'no connection to this master'), ranges };
    }
    let member = members.get(conn);
    if (!member) {
      member = new RedisNode(id, conn, false, undefined, true);
      members.set(conn, member);
    }
    return { node: member, ranges };
  });
}
