// One snapshot of the nodes: scan every node, fill the gaps, read related keys by name,
// then the stages every read shares (pipeline.ts). The scan lives in inspect.ts.
import { performance } from 'node:perf_hooks';
import { flagDeadlocks, readWaiters } from './holdersRead';
import { clockNow } from '../connection/deadline';
import { quorumOf } from '../vocabulary/classify';
import { readable, withKeyTable, withSharedTokens, type InspectContext, type NodeScan } from './context';
import { isDefaultPatterns, type InspectOptions, type InspectPage, type ScanCursor } from '../vocabulary/inspectTypes';
import type { LockEntry, SkippedKey, Snapshot } from '../vocabulary/types';
import { DEFAULT_PATTERNS, fillGaps, keyOf, readOnEachNode, scanNode, unreadPart, validatePatterns } from './inspect';
import { globForKey } from '../vocabulary/tokens';
import { internalKey } from '../bookkeeping/internalKeys';
import { classifyAndEnrich, readRelated, type WaiterStage } from './pipeline';

/** The snapshot's waiters: those of its fresh locks, then the cycles among them. */
export function snapshotWaiters(ctx: InspectContext, scans: NodeScan[]): WaiterStage {
  return async (c) => {
    // A fresh entry without waiters already says so (no waiters, no process ids to match).
    const which = c.waitersToRead;
    if (which.length === 0) return c;
    const read = await readWaiters(ctx, scans, which.map((i) => c.locks[i]), which.map((i) => c.lockIds[i]));
    const locks = c.locks.slice();
    which.forEach((li, j) => (locks[li] = read.entries[j]));
    // A wait cycle takes two locks with waiters; fresh entries carry no deadlock flag to clear.
    if (read.waited > 1) {
      const flagged = flagDeadlocks(which.map((li, j) => ({ entry: locks[li], processes: read.processes[j] })));
      for (const li of which) locks[li] = flagged.get(locks[li]) ?? locks[li];
    }
    return { ...c, locks };
  };
}

export async function inspectNodes(read: InspectContext, options: InspectOptions = {}): Promise<InspectPage> {
  const ctx = withSharedTokens(withKeyTable(read));
  const cont = options.continueFrom ?? null;
  const patterns = cont ? cont.patterns : options.patterns?.length ? options.patterns : [...DEFAULT_PATTERNS];
  validatePatterns(patterns);
  const maxKeys = options.maxKeys ?? 10_000;
  const deadline = performance.now() + (options.timeBudgetMs ?? 3_000);
  const expiringThresholdMs = options.expiringThresholdMs ?? 2_000;

  const scans = await Promise.all(ctx.nodes.map((node) => scanNode(ctx, node, patterns, cont?.cursors[node.id] ?? patterns.map(() => '0'), maxKeys, deadline)));
  // Key identity is the latin1 form of its bytes: lossless, and cheap to compare.
  const union = new Set<string>();
  // forEach, not for..of over keys(): no iterator result per key.
  for (const s of scans) s.reads.forEach((_, id) => union.add(id));
  if (scans.length > 1 && !ctx.ownerOnly) await fillGaps(ctx, scans, union);
  // Under the default patterns, our own core's locks are listed through their event logs.
  const ownLocks = isDefaultPatterns(patterns);
  if (ownLocks) for (const s of scans) for (const r of s.logged ?? []) union.add(internalKey('events', r));
  await readRelated(ctx, scans, union, ownLocks);

  const nowMs = clockNow();
  const { locks, skipped } = await classifyAndEnrich(ctx, scans, union, nowMs, expiringThresholdMs, snapshotWaiters(ctx, scans));
  const unread = unreadPart(ctx, scans, patterns, skipped);
  const truncated = scans.some((s) => s.truncated);
  const snapshot: Snapshot = { quorum: ctx.ownerOnly ? 1 : quorumOf(ctx.nodes.length), nodes: scans.map((s) => s.status), locks, skipped, truncated };
  const next: ScanCursor | null = truncated
    ? { patterns, cursors: Object.fromEntries(ctx.nodes.map((n, i) => [n.id, readable(scans[i].status) ? scans[i].cursors : (cont?.cursors[n.id] ?? patterns.map(() => '0'))])) }
    : null;
  return { snapshot, next, takenAtMs: nowMs, unread };
}

/** One key's document: the snapshot it is in, and its entry or why it is no lock. */
export interface KeyInspection {
  snapshot: Snapshot;
  entry: LockEntry | undefined;
  skipped: SkippedKey | undefined;
}

/**
 * One key, read by its name on every node (no SCAN: a pattern of one exact name still
 * walks the whole keyspace), with the same stages as any snapshot: its bookkeeping, fence,
 * waiters and split confirmation. The MCP and LM tools' explain and force-release read
 * through here. A cluster's key lives on one master: there the key is read as a pattern.
 */
export async function inspectOne(read: InspectContext, key: Buffer, options: Omit<InspectOptions, 'patterns' | 'continueFrom'> = {}): Promise<KeyInspection> {
  const ctx = withKeyTable(read);
  const id = key.toString('latin1');
  const shown = keyOf(id);
  const found = (snapshot: Snapshot): KeyInspection => ({ snapshot, entry: snapshot.locks.find((l) => l.key === shown), skipped: snapshot.skipped.find((k) => k.key === shown) });
  if (ctx.ownerOnly) return found((await inspectNodes(ctx, { ...options, patterns: [globForKey(key)] })).snapshot);
  const deadline = performance.now() + (options.timeBudgetMs ?? 3_000);
  // No pattern: the node's health, clock and capabilities only, then the key by name.
  const scans = await Promise.all(ctx.nodes.map((node) => scanNode(ctx, node, [], [], 0, deadline)));
  await readOnEachNode(ctx, scans, () => [key]);
  // What a SCAN would have listed: a key some node holds, readable or not.
  const ids = new Set<string>();
  if (scans.some((s) => { const o = s.reads.obsOf(id); return o !== undefined && o.state !== 'absent'; })) ids.add(id);
  await readRelated(ctx, scans, ids);
  const expiringThresholdMs = options.expiringThresholdMs ?? 2_000;
  const { locks, skipped } = await classifyAndEnrich(ctx, scans, ids, clockNow(), expiringThresholdMs, snapshotWaiters(ctx, scans));
  // Only the key asked about: the locks its bookkeeping named are read, not shown.
  const snapshot: Snapshot = { quorum: quorumOf(ctx.nodes.length), nodes: scans.map((s) => s.status), locks: locks.filter((l) => l.key === shown), skipped: skipped.filter((k) => k.key === shown), truncated: false };
  return found(snapshot);
}
