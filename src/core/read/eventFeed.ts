// The event logs under some key patterns, read again only where something new was
// recorded: the exporter's source for hold and wait times and safety findings. Every
// lock our core records counts, not only the ones a scrape happens to see held; most
// real locks are held for milliseconds (docs/audit.md, "In Prometheus").
import type { RedisNode } from '../connection/nodes';
import { withDeadline } from '../connection/deadline';
import { readEvents } from '../bookkeeping/events';
import type { LockEvent } from '../vocabulary/lockEvents';
import type { InspectContext } from './context';
import { readHistory } from './history';
import { eventResources, MAX_AUDIT_RESOURCES } from './auditRead';

/** Logs looked at once, in parallel. */
const PARALLEL = 8;

export interface FeedRead {
  /** The logs that changed since the last read, each read whole (newest first, bounded). */
  changed: Array<{ resource: string; events: LockEvent[] }>;
  /** Logs found under the patterns (at most MAX_AUDIT_RESOURCES). */
  logs: number;
  /** A budget cut the walk, or a node did not answer: some logs may be missing. */
  cut: boolean;
}

const idOf = (e: LockEvent | undefined): string => (e === undefined || e.at === null ? '' : `${e.at} ${e.type} ${e.token}`);

export class EventFeed {
  /** Per resource and node, the newest entry seen at the last read. */
  private readonly newest = new Map<string, string[]>();

  constructor(
    private readonly ctx: () => InspectContext,
    private readonly logNodes: () => readonly RedisNode[],
    private readonly quorum: number,
  ) {}

  /**
   * Finds the logs under `patterns` (a bounded SCAN of our internal keys), looks at each
   * log's newest entry on every node, and reads whole only the logs whose newest entry
   * moved. Reads only.
   */
  async read(patterns: readonly string[]): Promise<FeedRead> {
    const ctx = this.ctx();
    const found = new Set<string>();
    let cut = false;
    for (const p of patterns) {
      const r = await eventResources(ctx, p);
      cut ||= r.cut;
      for (const x of r.resources) if (found.size < MAX_AUDIT_RESOURCES) found.add(x);
    }
    const resources = [...found];
    const nodes = this.logNodes();
    const changed: FeedRead['changed'] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < resources.length) {
        const resource = resources[next++];
        const heads = await Promise.all(nodes.map((n) => withDeadline(readEvents(n.client, resource, 1), ctx.commandTimeoutMs).then((e) => idOf(e[0]), () => null)));
        if (heads.some((h) => h === null)) cut = true;
        const before = this.newest.get(resource);
        const same = before !== undefined && heads.every((h, i) => h === null || h === before[i]);
        if (same) continue;
        const h = await readHistory(nodes, this.quorum, ctx.commandTimeoutMs, resource);
        this.newest.set(resource, heads.map((x, i) => x ?? before?.[i] ?? ''));
        changed.push({ resource, events: h.events });
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL, resources.length) }, worker));
    // Logs that expired or were deleted are forgotten, so the map stays as large as the logs.
    for (const r of [...this.newest.keys()]) if (!found.has(r)) this.newest.delete(r);
    return { changed, logs: resources.length, cut };
  }
}
