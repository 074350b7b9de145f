// Per-node answers of a lock round, in the words of the contract (NodeAttempt), named the
// way status names nodes.
import { Cluster } from 'ioredis';
import { ownerOf } from '../connection/clusterTopology';
import type { RedisNode } from '../connection/nodes';
import { displayToken } from '../vocabulary/tokens';
import type { Resource } from '../vocabulary/resource';
import type { NodeAttempt } from './errors';
import type { ReleaseNode } from './options';
import { extended, isGrant, round, Settled } from './round';

/**
 * A cluster's answers name the master that owns the key, as status does, not the seed
 * list (every key of one call lives in one slot).
 */
export function namedByOwner<T extends { node: string }>(nodes: readonly RedisNode[], keys: readonly Resource[], list: T[]): T[] {
  const client = nodes[0].client;
  if (!(client instanceof Cluster) || keys.length === 0) return list;
  const owner = ownerOf(client, keys[0]);
  return owner === undefined ? list : list.map((e) => ({ ...e, node: owner }));
}

/** An acquire round's results as per-node answers; a refused SET NX asks who holds the key. */
export async function describeAcquireOn(nodes: readonly RedisNode[], keys: Resource[], results: Array<Settled<unknown>>, getDeadlineMs: number): Promise<NodeAttempt[]> {
  return namedByOwner(nodes, keys, await Promise.all(
    nodes.map(async (node, i): Promise<NodeAttempt> => {
      const r = results[i];
      if (!r.ok) return { node: node.id, outcome: r.outcome, reason: r.reason, ...(r.answered ? { answered: true } : {}) };
      if (isGrant(r.value)) return { node: node.id, outcome: 'granted' };
      if (Array.isArray(r.value)) return { node: node.id, outcome: 'held-by-other', heldBy: displayToken(r.value[1] as Buffer) };
      // Plain SET NX refused: one bounded GET names the holder (informational only).
      const holder = await round([node], (n) => n.client.getBuffer(keys[0]), getDeadlineMs).settled;
      const h = holder[0];
      if (!h.ok && h.outcome === 'wrong-type') return { node: node.id, outcome: 'wrong-type', reason: h.reason, answered: true };
      return { node: node.id, outcome: 'held-by-other', heldBy: h.ok && h.value ? displayToken(h.value) : undefined };
    }),
  ));
}

/** What the extend script answers on one node. */
export type ExtendReply = number | [number, Buffer] | number[];

/** An extend round's results as per-node answers (undefined: no answer yet). */
export function describeExtendOn(nodes: readonly RedisNode[], keys: readonly Resource[], all: ReadonlyArray<Settled<ExtendReply> | undefined>): NodeAttempt[] {
  return namedByOwner(nodes, keys, nodes.map((node, i): NodeAttempt => {
    const x = all[i];
    if (!x) return { node: node.id, outcome: 'timeout', reason: 'no answer yet' };
    if (!x.ok) return { node: node.id, outcome: x.outcome, reason: x.reason, ...(x.answered ? { answered: true } : {}) };
    if (extended(x.value)) return { node: node.id, outcome: 'granted' };
    if (Array.isArray(x.value)) return { node: node.id, outcome: 'held-by-other', heldBy: displayToken(x.value[1] as Buffer) };
    if (x.value === -1) return { node: node.id, outcome: 'wrong-type' };
    return { node: node.id, outcome: 'not-held' };
  }));
}

/** A release round's results as per-node answers; a node yet to answer is `pending`. */
export function describeReleaseOn(nodes: readonly RedisNode[], keys: readonly Resource[], results: ReadonlyArray<Settled<number> | undefined>): ReleaseNode[] {
  return namedByOwner(nodes, keys, nodes.map((node, i): ReleaseNode => {
    const x = results[i];
    if (!x) return { node: node.id, outcome: 'pending' };
    // A node that answered with a refusal (NOPERM, READONLY...) is not an outage.
    if (!x.ok) return { node: node.id, outcome: x.answered ? 'refused' : 'unreachable', reason: x.reason, failure: x.outcome };
    return { node: node.id, outcome: x.value > 0 ? 'released' : 'not-held' };
  }));
}
