// `audit` and `status --stats`: event logs read like `history` (bounded, read-only), of
// one resource, of every resource whose name matches a pattern, or of a snapshot's locks,
// and audited or measured (docs/audit.md).
import type Redis from 'ioredis';
import { performance } from 'node:perf_hooks';
import { READ_EVENTS } from '../bookkeeping/events';
import { INTERNAL_PREFIX, parseInternalKey } from '../bookkeeping/internalKeys';
import { withDeadline } from '../connection/deadline';
import type { RedisNode } from '../connection/nodes';
import { auditHistory, AuditFinding } from '../vocabulary/audit';
import type { LockEvent } from '../vocabulary/lockEvents';
import type { Resource } from '../vocabulary/resource';
import type { NodeStatus } from '../vocabulary/types';
import { readable, type InspectContext } from './context';
import { History, readLogs } from './history';

export interface AuditQuery {
  /** One resource; otherwise every resource with an event log whose name matches `pattern`. */
  resource?: Resource;
  /** A Redis glob over resource names; default `*`. */
  pattern?: string;
  /** How far back findings count; default 1 h. */
  sinceMs?: number;
  nowMs?: number;
}

export interface AuditReport {
  findings: AuditFinding[];
  /** Epoch ms of the window audited. */
  from: number;
  to: number;
  /**
   * Every node answered every read, the resource scan finished, and no log was longer than
   * what is read of it: nothing the nodes hold was left out.
   */
  complete: boolean;
  resources: number;
  quorum: number;
  nodes: NodeStatus[];
}

export const DEFAULT_AUDIT_SINCE_MS = 3600_000;
/** Resources audited at most per call, and read at once. */
export const MAX_AUDIT_RESOURCES = 1000;
const PARALLEL_READS = 8;
const SCAN_COUNT = 500;
const SCAN_BUDGET_MS = 3000;

/** The resources whose event logs the nodes hold, by name pattern; `cut` when a budget ended the scan. */
export async function eventResources(ctx: InspectContext, pattern: string): Promise<{ resources: string[]; cut: boolean }> {
  // The log key holds the resource as `{name}`, or `=name` when the name has its own tag.
  const matches = [`${INTERNAL_PREFIX}events:{${pattern}}`, `${INTERNAL_PREFIX}events:=${pattern}`];
  const found = new Set<string>();
  let cut = false;
  const deadline = performance.now() + SCAN_BUDGET_MS;
  await Promise.all(ctx.nodes.map(async (node) => {
    const client = node.client as Redis;
    for (const match of matches) {
      let cursor = '0';
      try {
        do {
          if (found.size >= MAX_AUDIT_RESOURCES || performance.now() > deadline) {
            cut = true;
            return;
          }
          const [next, keys] = await withDeadline(client.scan(cursor, 'MATCH', match, 'COUNT', SCAN_COUNT), ctx.commandTimeoutMs);
          for (const k of keys) {
            const parsed = parseInternalKey(k);
            if (parsed?.kind === 'events') found.add(parsed.resource);
          }
          cursor = next;
        } while (cursor !== '0');
      } catch {
        // A node that does not answer is reported by the reads that follow.
        cut = true;
        return;
      }
    }
  }));
  return { resources: [...found].sort().slice(0, MAX_AUDIT_RESOURCES), cut };
}

export async function readAudit(ctx: InspectContext, historyNodes: readonly RedisNode[], quorum: number, query: AuditQuery): Promise<AuditReport> {
  const to = query.nowMs ?? Date.now();
  const from = to - (query.sinceMs ?? DEFAULT_AUDIT_SINCE_MS);
  let resources: Resource[];
  let complete = true;
  if (query.resource !== undefined) resources = [query.resource];
  else {
    const scanned = await eventResources(ctx, query.pattern ?? '*');
    resources = scanned.resources;
    if (scanned.cut) complete = false;
  }
  const nodes: NodeStatus[] = historyNodes.map((n) => ({ node: n.id, reachable: true, latencyMs: null, error: null, outcome: 'ok' }));
  const findings: AuditFinding[] = [];
  await eachHistory(historyNodes, quorum, ctx.commandTimeoutMs, resources, (h, _i, horizon) => {
    h.nodes.forEach((s, i) => {
      if (!readable(s) && readable(nodes[i])) nodes[i] = s;
      else if (readable(s) && readable(nodes[i])) nodes[i] = { ...nodes[i], latencyMs: Math.max(nodes[i].latencyMs ?? 0, s.latencyMs ?? 0) };
    });
    if (h.events.length >= READ_EVENTS || h.events.some((e) => e.at === null)) complete = false;
    // Events older than the whole part of the history, within the audit's span: some
    // logs reach back further than a quorum's, so what happened then may be missing.
    if (horizon !== null && h.events.some((e) => e.at !== null && e.at >= from && e.at < horizon)) complete = false;
    findings.push(...auditHistory(h.resource, h.events, { fromMs: from, nowMs: to, horizonMs: horizon }));
  });
  if (nodes.some((n) => !readable(n))) complete = false;
  findings.sort((a, b) => a.at - b.at || (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
  return { findings, from, to, complete, resources: resources.length, quorum, nodes };
}

/** Logs one call reads at most (`status --stats`, the exporter); the rest get null. */
export const MAX_HISTORY_READS = 500;

/** Each resource's recorded events, newest first (null beyond MAX_HISTORY_READS, or when no node answered). */
export async function readHistories(historyNodes: readonly RedisNode[], quorum: number, timeoutMs: number, resources: readonly Resource[]): Promise<Array<LockEvent[] | null>> {
  const out: Array<LockEvent[] | null> = resources.map(() => null);
  await eachHistory(historyNodes, quorum, timeoutMs, resources.slice(0, MAX_HISTORY_READS), (h, i) => {
    if (h.nodes.some((n) => readable(n))) out[i] = h.events;
  });
  return out;
}

/** Reads each resource's history, PARALLEL_READS at a time, handing each to `use` with its index. */
async function eachHistory(historyNodes: readonly RedisNode[], quorum: number, timeoutMs: number, resources: readonly Resource[], use: (h: History, i: number, horizon: number | null) => void): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < resources.length) {
      const i = next++;
      const { history, horizon } = await readLogs(historyNodes, quorum, timeoutMs, resources[i]);
      use(history, i, horizon);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_READS, resources.length) }, worker));
}
