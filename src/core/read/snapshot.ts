// One snapshot of the nodes: scan, fill the gaps, classify, confirm any split, then attach
// fences and waiters. The steps live in inspect.ts and confirmSplit.ts.
import { performance } from 'node:perf_hooks';
import { attachWaiters, flagDeadlocks } from './holdersRead';
import { attachFences } from './fenceRead';
import { clockNow } from '../connection/deadline';
import { quorumOf } from '../vocabulary/classify';
import { readable, type InspectContext } from './context';
import type { InspectOptions, InspectPage, ScanCursor } from '../vocabulary/inspectTypes';
import type { Snapshot } from '../vocabulary/types';
import type { OnPage } from './inspect';
import { classifyKeys, DEFAULT_PATTERNS, fillGaps, keyOf, preclassifyPage, readBatch, scanNode, unreadPart, validatePatterns } from './inspect';
import { attachBookkeeping, dropSkipped, ownersToRead, readOwners } from './bookkeepingRead';
import { confirmSplits } from './confirmSplit';

export async function inspectNodes(ctx: InspectContext, options: InspectOptions = {}): Promise<InspectPage> {
  const cont = options.continueFrom ?? null;
  const patterns = cont ? cont.patterns : options.patterns?.length ? options.patterns : [...DEFAULT_PATTERNS];
  validatePatterns(patterns);
  const maxKeys = options.maxKeys ?? 10_000;
  const deadline = performance.now() + (options.timeBudgetMs ?? 3_000);
  const expiringThresholdMs = options.expiringThresholdMs ?? 2_000;

  // One node: each page is classified while the node reads the next (see preclassifyPage).
  const onPage: OnPage | undefined = ctx.nodes.length === 1 && !ctx.ownerOnly ? (scan, ids, slots) => preclassifyPage(ctx, scan, ids, slots, expiringThresholdMs) : undefined;
  const scans = await Promise.all(ctx.nodes.map((node) => scanNode(ctx, node, patterns, cont?.cursors[node.id] ?? patterns.map(() => '0'), maxKeys, deadline, onPage)));
  // Key identity is the latin1 form of its bytes: lossless, and cheap to compare. A single
  // node's keys are the union already, and it has no gaps to fill.
  let union: Iterable<string> = scans[0].reads.keys();
  if (scans.length > 1) {
    const all = new Set<string>();
    for (const s of scans) for (const id of s.reads.keys()) all.add(id);
    if (!ctx.ownerOnly) await fillGaps(ctx, scans, all);
    union = all;
  }
  // Locks whose bookkeeping the patterns found but not the lock itself: read by name.
  const owners = ctx.ownerOnly ? [] : ownersToRead(scans.length > 1 ? union : scans[0].reads.keys(), (id) => scans.some((s) => s.reads.has(id)));
  if (owners.length > 0) union = await readOwners(ctx, scans, owners, union, readBatch);

  const nowMs = clockNow();
  const classified = classifyKeys(ctx, scans, union, nowMs, expiringThresholdMs);
  await confirmSplits(ctx, scans, classified, expiringThresholdMs);
  const { locks, lockIds, skipped, skippedIds, fencesToRead, waitersToRead, bookkeeping } = classified;
  // A lock read for its bookkeeping that is not there is no key of the patterns' either.
  if (owners.length > 0) dropSkipped(skipped, skippedIds, new Set(owners));
  await attachFences(ctx, scans, locks, lockIds, fencesToRead);
  // A fresh entry without waiters already says so (no waiters, no process ids to match).
  let waited = 0;
  if (waitersToRead.length === locks.length) waited = await attachWaiters(ctx, scans, locks, lockIds);
  else if (waitersToRead.length > 0) waited = await attachWaiters(ctx, scans, waitersToRead.map((i) => locks[i]), waitersToRead.map((i) => lockIds[i]));
  // A wait cycle takes two locks with waiters; fresh entries carry no deadlock flag to clear.
  if (waited > 1) flagDeadlocks(locks);
  await attachBookkeeping(ctx, scans, locks, lockIds, skipped, bookkeeping, keyOf);
  const unread = unreadPart(ctx, scans, patterns, skipped);
  const truncated = scans.some((s) => s.truncated);
  const snapshot: Snapshot = { quorum: ctx.ownerOnly ? 1 : quorumOf(ctx.nodes.length), nodes: scans.map((s) => s.status), locks, skipped, truncated };
  const next: ScanCursor | null = truncated
    ? { patterns, cursors: Object.fromEntries(ctx.nodes.map((n, i) => [n.id, readable(scans[i].status) ? scans[i].cursors : (cont?.cursors[n.id] ?? patterns.map(() => '0'))])) }
    : null;
  return { snapshot, next, takenAtMs: nowMs, unread };
}

