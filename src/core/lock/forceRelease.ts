// Force-release: compare-and-delete of what the user saw, node by node; never a blind DEL.
import type { RedisNode } from '../connection/nodes';
import { parseTokenArg } from '../vocabulary/tokens';
import type { Resource } from '../vocabulary/resource';
import type { ForceReleaseResult, ObservedCopy } from './options';
import { round } from './round';
import { lockCommands } from './writeScripts';

/** The node set a force-release runs on, and how a cluster names its nodes in answers. */
export interface ForceReleaseSet {
  nodes: readonly RedisNode[];
  named<T extends { node: string }>(keys: readonly Resource[], list: T[]): T[];
  timeoutMs: number;
}

export function splitBytes(buf: Buffer, sep: number): Buffer[] {
  const parts: Buffer[] = [];
  let from = 0;
  for (let i = buf.indexOf(sep); i >= 0; i = buf.indexOf(sep, from)) {
    parts.push(buf.subarray(from, i));
    from = i + 1;
  }
  parts.push(buf.subarray(from));
  return parts;
}

/**
 * Deletes `resource` only on the nodes that still hold the token observed there. A node
 * missing from `observed`, or observed without a token, is left alone.
 */
export async function forceReleaseOn(set: ForceReleaseSet, resource: Resource, observed: readonly ObservedCopy[]): Promise<ForceReleaseResult> {
  const byNode = new Map<string, string | null>();
  const unreached = new Map<string, string | undefined>();
  // A cluster snapshot names the owning master; it stands for the cluster node here.
  const [owner] = set.named([resource], [{ node: set.nodes[0].id }]);
  for (const o of observed) {
    const id = o.node === owner.node ? set.nodes[0].id : o.node;
    if (!set.nodes.some((n) => n.id === id)) throw new RangeError(`unknown node "${o.node}" in the observation`);
    byNode.set(id, o.token);
    if (o.state === 'unreachable') unreached.set(id, o.reason ?? undefined);
  }
  const targets = set.nodes.filter((n) => typeof byNode.get(n.id) === 'string');
  const results = await round(
    targets,
    (node) => {
      const whole = parseTokenArg(byNode.get(node.id)!);
      // Multi-holder formats (hashes, zsets) show their sorted holder ids joined by ','.
      const parts = splitBytes(whole, 0x2c);
      return lockCommands(node.client).rliForceRelease(1, resource, whole, ...parts);
    },
    set.timeoutMs,
  ).settled;
  return {
    nodes: set.named([resource], set.nodes.map((node): ForceReleaseResult['nodes'][number] => {
      const i = targets.indexOf(node);
      // Left alone: nothing was observed there. A node that was out of reach when read
      // is not known to be empty, so it is not called absent.
      if (i < 0) return unreached.has(node.id) ? { node: node.id, outcome: 'unreachable' as const, reason: unreached.get(node.id) } : { node: node.id, outcome: 'absent' as const };
      const r = results[i];
      if (!r.ok) return { node: node.id, outcome: r.answered ? ('refused' as const) : ('unreachable' as const), reason: r.reason };
      return { node: node.id, outcome: r.value === 1 ? ('deleted' as const) : r.value === 0 ? ('absent' as const) : ('changed' as const) };
    })),
  };
}
