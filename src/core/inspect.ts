// Snapshots: SCAN every node (never KEYS) within a key cap and a time budget, read each
// key once per node with one read-only script per batch, then classify. Read paths never
// write: only TYPE/PTTL/STRLEN/GET/HLEN/HKEYS/HSTRLEN/HGET/ZCARD/ZRANGE run, in a
// `no-writes` script.
import { performance } from 'node:perf_hooks';
import { classify, quorumOf, skipReason } from './classify';
import { recognise } from './formats';
import type { InspectOptions, InspectPage, ScanCursor } from './inspectTypes';
import { DeadlineError, describeFailure, RedisNode } from './nodes';
import { KeyRead, readKeys } from './readScript';
import { displayKey } from './tokens';
import type { LockEntry, NodeStatus, Observation, SkippedKey, Snapshot } from './types';

export const DEFAULT_PATTERNS = ['*lock*'];
const SCAN_COUNT = 1000;
const READ_BATCH = 1000;
/** Cursor of a pattern whose scan finished ('0' is a scan not yet started). */
const DONE = 'done';

/** Epoch ms that never jumps backwards with the wall clock during a snapshot. */
const wallAnchor = Date.now();
const monoAnchor = performance.now();
export const clockNow = (): number => wallAnchor + (performance.now() - monoAnchor);

export interface InspectContext {
  nodes: readonly RedisNode[];
  driftFactor: number;
  /** Per call deadline for one SCAN or read batch. */
  commandTimeoutMs: number;
}

function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new DeadlineError(ms)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

interface NodeScan {
  status: NodeStatus;
  /** latin1 key -> read and the instant it was read (epoch ms). */
  reads: Map<string, { read: KeyRead; at: number }>;
  cursors: string[];
  truncated: boolean;
}

function validatePatterns(patterns: string[]): void {
  if (patterns.length === 0) throw new RangeError('no key pattern given');
  for (const p of patterns) if (p.length === 0) throw new RangeError('empty key pattern');
}

async function readBatch(ctx: InspectContext, node: RedisNode, keys: Buffer[], into: NodeScan['reads']): Promise<void> {
  for (let i = 0; i < keys.length; i += READ_BATCH) {
    const chunk = keys.slice(i, i + READ_BATCH);
    const sent = clockNow();
    const reads = await withDeadline(readKeys(node.client, chunk), ctx.commandTimeoutMs);
    // The middle of the round trip is the best guess of when the node read the batch.
    const at = (sent + clockNow()) / 2;
    for (let j = 0; j < chunk.length; j++) into.set(chunk[j].toString('latin1'), { read: reads[j], at });
  }
}

async function scanNode(ctx: InspectContext, node: RedisNode, patterns: string[], startCursors: string[], maxKeys: number, deadline: number): Promise<NodeScan> {
  const scan: NodeScan = {
    status: { node: node.id, reachable: false, latencyMs: null, error: null },
    reads: new Map(),
    cursors: startCursors.slice(),
    truncated: false,
  };
  try {
    const t0 = performance.now();
    await withDeadline(node.client.ping(), ctx.commandTimeoutMs);
    scan.status.latencyMs = Math.round((performance.now() - t0) * 100) / 100;
    scan.status.reachable = true;
    node.latencyMs = scan.status.latencyMs;
    const pendingReads: Promise<void>[] = [];
    let scanned = 0;
    for (let p = 0; p < patterns.length; p++) {
      let cursor = scan.cursors[p];
      while (cursor !== DONE) {
        if (scanned >= maxKeys || performance.now() > deadline) {
          scan.truncated = true;
          break;
        }
        const [next, keys] = await withDeadline(node.client.scanBuffer(cursor, 'MATCH', patterns[p], 'COUNT', SCAN_COUNT), ctx.commandTimeoutMs);
        cursor = String(next) === '0' ? DONE : String(next);
        scan.cursors[p] = cursor;
        const fresh = keys.filter((k) => !scan.reads.has(k.toString('latin1')));
        scanned += keys.length;
        // Overlap: the batch is read while the next SCAN goes out.
        if (fresh.length) pendingReads.push(readBatch(ctx, node, fresh, scan.reads));
      }
      if (scan.truncated) break;
    }
    await Promise.all(pendingReads);
  } catch (e) {
    scan.status.reachable = false;
    scan.status.error = describeFailure(e, node).reason;
    scan.reads.clear();
  }
  return scan;
}

/** Nodes that did not come across a key read it directly, so "absent" means absent. */
async function fillGaps(ctx: InspectContext, scans: NodeScan[], union: Map<string, Buffer>): Promise<void> {
  await Promise.all(
    scans.map(async (scan, i) => {
      if (!scan.status.reachable) return;
      const missing: Buffer[] = [];
      for (const [id, raw] of union) if (!scan.reads.has(id)) missing.push(raw);
      try {
        await readBatch(ctx, ctx.nodes[i], missing, scan.reads);
      } catch (e) {
        scan.status.reachable = false;
        scan.status.error = describeFailure(e, ctx.nodes[i]).reason;
        scan.reads.clear();
      }
    }),
  );
}

function observe(node: string, scan: NodeScan, id: string): { obs: Observation; at: number } {
  if (!scan.status.reachable) {
    return { obs: { node, state: 'unreachable', token: null, pttlMs: null, type: null, format: null, holdCount: null, reason: scan.status.error ?? 'unreachable' }, at: 0 };
  }
  const entry = scan.reads.get(id);
  if (!entry || entry.read.type === 'none') {
    return { obs: { node, state: 'absent', token: null, pttlMs: null, type: null, format: null, holdCount: null, reason: null }, at: entry?.at ?? 0 };
  }
  const r = recognise(entry.read.raw);
  const present = r.state === 'present';
  return {
    obs: {
      node,
      state: r.state,
      token: r.token,
      pttlMs: present ? (entry.read.pttlMs < 0 ? -1 : entry.read.pttlMs) : null,
      type: entry.read.type,
      format: r.format,
      holdCount: r.holdCount,
      reason: r.reason,
    },
    at: entry.at,
  };
}

export async function inspectNodes(ctx: InspectContext, options: InspectOptions = {}): Promise<InspectPage> {
  const cont = options.continueFrom ?? null;
  const patterns = cont ? cont.patterns : options.patterns?.length ? options.patterns : DEFAULT_PATTERNS;
  validatePatterns(patterns);
  const maxKeys = options.maxKeys ?? 10_000;
  const deadline = performance.now() + (options.timeBudgetMs ?? 3_000);
  const expiringThresholdMs = options.expiringThresholdMs ?? 2_000;

  const scans = await Promise.all(
    ctx.nodes.map((node) => scanNode(ctx, node, patterns, cont?.cursors[node.id] ?? patterns.map(() => '0'), maxKeys, deadline)),
  );
  const union = new Map<string, Buffer>();
  for (const s of scans) for (const id of s.reads.keys()) if (!union.has(id)) union.set(id, Buffer.from(id, 'latin1'));
  await fillGaps(ctx, scans, union);

  const nowMs = clockNow();
  const locks: LockEntry[] = [];
  const skipped: SkippedKey[] = [];
  const ids = [...union.keys()].sort((a, b) => Buffer.compare(union.get(a)!, union.get(b)!));
  for (const id of ids) {
    const key = displayKey(union.get(id)!);
    const observed = ctx.nodes.map((n, i) => observe(n.id, scans[i], id));
    const observations = observed.map((o) => o.obs);
    const c = classify({ observations, readAtMs: observed.map((o) => o.at || nowMs), nowMs, driftFactor: ctx.driftFactor, expiringThresholdMs });
    if (!c) {
      skipped.push({ key, reason: skipReason(observations) });
      continue;
    }
    locks.push({ key, verdict: c.verdict, flags: c.flags, validityMs: c.validityMs, quorum: c.quorum, holders: c.holders, nodes: observations });
  }
  const truncated = scans.some((s) => s.truncated);
  const snapshot: Snapshot = { quorum: quorumOf(ctx.nodes.length), nodes: scans.map((s) => s.status), locks, skipped, truncated };
  const next: ScanCursor | null = truncated
    ? { patterns, cursors: Object.fromEntries(ctx.nodes.map((n, i) => [n.id, scans[i].status.reachable ? scans[i].cursors : (cont?.cursors[n.id] ?? patterns.map(() => '0'))])) }
    : null;
  return { snapshot, next, takenAtMs: nowMs };
}
