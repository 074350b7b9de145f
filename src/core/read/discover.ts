// Discovery: a bounded walk of the whole keyspace (SCAN without a pattern of the user's,
// the same per-call budgets as every read) that finds lock-shaped keys whatever their
// names and groups them into patterns a user can adopt (docs/formats.md, "Discovery").
// Reads only: the walk is scanNode's, over `*`, in chunks so that progress can be told
// and memory stays at one chunk; each key is grouped as it is read.
import { performance } from 'node:perf_hooks';
import { withDeadline } from '../connection/deadline';
import { scanNode } from './inspect';
import type { InspectContext } from './context';
import { lockShapeOf, patternOf } from '../vocabulary/lockShapes';
import { keyOf } from './inspect';
import type { NodeStatus, Observation } from '../vocabulary/types';

export interface DiscoverOptions {
  /** Keys scanned per node at most; default 100,000. */
  budgetKeys?: number;
  /** Time for the whole walk; default 5,000 ms. */
  timeBudgetMs?: number;
  /** Called after each chunk with the keys scanned so far and the keyspace's size. */
  onProgress?: (scanned: number, keyspace: number) => void;
}

export interface DiscoveredPattern {
  pattern: string;
  /** Distinct lock-shaped keys grouped under it. */
  count: number;
  /** The library its keys point to most often (lockShapeOf). */
  library: string;
  examples: string[];
}

export interface Discovery {
  /** Keys read, summed over the nodes. */
  scanned: number;
  /** Keys held, summed over the nodes (DBSIZE; null where a node would not say). */
  keyspace: number;
  /** Every node's keyspace was walked to its end (false when a node did not answer). */
  complete: boolean;
  patterns: DiscoveredPattern[];
  nodes: NodeStatus[];
}

/** Keys per scanNode call: its probes (capabilities, TIME, DBSIZE) and a pause in the page pipeline come once per chunk. */
const CHUNK = 20_000;
const EXAMPLES = 3;

interface Group {
  count: number;
  /** The keys counted, where one key may be met on several nodes (a Redlock deployment); else undefined. */
  keys: Set<string> | undefined;
  libraries: Map<string, number>;
  examples: string[];
}

export async function discoverNodes(read: InspectContext, options: DiscoverOptions = {}): Promise<Discovery> {
  // No token table: discovery keeps no observation past its chunk, so sharing a token's
  // string between copies saves nothing, and the table would hold every token of the walk.
  const ctx: InspectContext = { ...read, tokens: undefined };
  const budget = options.budgetKeys ?? 100_000;
  const deadline = performance.now() + (options.timeBudgetMs ?? 5_000);
  const groups = new Map<string, Group>();
  // Only independent nodes can each hold a copy of one key; a cluster's key lives on one master.
  const copies = ctx.nodes.length > 1 && ctx.ownerOnly !== true;
  const sizes = await Promise.all(ctx.nodes.map((n) => withDeadline(n.client.dbsize(), ctx.commandTimeoutMs).catch(() => 0)));
  const keyspace = sizes.reduce((a, b) => a + b, 0);
  const scannedPer = ctx.nodes.map(() => 0);
  const total = (): number => scannedPer.reduce((a, b) => a + b, 0);
  let complete = true;
  // Each key is grouped as its page is decoded, while the node works on the next page:
  // grouped after each chunk, the node waited idle for a tenth of a 1M-key walk.
  const group = (id: string, obs: Observation): void => {
    const library = lockShapeOf(id, obs);
    if (library === null) return;
    const pattern = patternOf(id) ?? keyOf(id);
    let g = groups.get(pattern);
    if (!g) groups.set(pattern, (g = { count: 0, keys: copies ? new Set() : undefined, libraries: new Map(), examples: [] }));
    if (g.keys !== undefined) {
      if (g.keys.has(id)) return;
      g.keys.add(id);
    }
    g.count++;
    g.libraries.set(library, (g.libraries.get(library) ?? 0) + 1);
    if (g.examples.length < EXAMPLES) g.examples.push(keyOf(id));
  };
  const nodes = await Promise.all(
    ctx.nodes.map(async (node, i) => {
      let cursors = ['0'];
      let status: NodeStatus | undefined;
      // Keys read here, counted as they are grouped: those of a chunk the node failed in
      // were read and grouped too.
      const read = (id: string, obs: Observation): void => {
        scannedPer[i]++;
        group(id, obs);
      };
      while (cursors[0] !== 'done' && scannedPer[i] < budget && performance.now() < deadline) {
        // Names and values only: fence counters and waiter sets say nothing about a key's shape.
        const scan = await scanNode(ctx, node, ['*'], cursors, Math.min(CHUNK, budget - scannedPer[i]), deadline, false, read);
        status = scan.status;
        if (!scan.status.reachable) break;
        cursors = scan.cursors;
        options.onProgress?.(total(), keyspace);
        // A node's empty chunk with its cursor not done: the time budget cut it.
        if (scan.reads.size === 0 && scan.truncated) break;
      }
      if (!status?.reachable || cursors[0] !== 'done') complete = false;
      return status ?? { node: node.id, reachable: false, latencyMs: null, error: 'not read', outcome: 'unreachable' as const };
    }),
  );
  const patterns = [...groups].map(([pattern, g]) => ({ pattern, count: g.count, library: mostCommon(g.libraries), examples: g.examples.sort() }));
  patterns.sort((a, b) => b.count - a.count || (a.pattern < b.pattern ? -1 : 1));
  return { scanned: total(), keyspace, complete, patterns, nodes };
}

function mostCommon(counts: Map<string, number>): string {
  let best = '';
  let n = -1;
  for (const [k, c] of counts) if (c > n) [best, n] = [k, c];
  return best;
}
