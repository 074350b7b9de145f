// A split is confirmed before anyone is told (docs/vocabulary.md, "Confirming a split").
// A read of N nodes is not one instant: a handover (release, then acquire) that lands
// between two nodes' reads looks like two holders although at no instant were there two.
// Every key that classifies as `split` is therefore read again at once on every node, in
// parallel, and classified from that re-read: copies that converge on one token are a
// handover and get the verdict the re-read supports; copies that stay put are a split.
// A `ttl-skew` is confirmed the same way, once more after a pause: a renewal lands on the
// nodes a moment apart, and copies a renewal has not reached yet are no skew. Every
// surface (CLI, watch, exporter, MCP, the editor) gets its verdicts from here, so they all agree.
import { clockNow } from '../connection/deadline';
import { readable, type Classified, type InspectContext, type KeyResult, type NodeScan } from './context';
export type { Classified } from './context';
import { classifyKeys, readBatch } from './inspect';
import { JUMP_TOLERANCE_MS } from './watchDiff';
import type { LockEntry } from '../vocabulary/types';
import { sortSkipped } from './bookkeepingRead';

/**
 * How long a split may stay in motion before it is told anyway. Nodes do not apply a
 * handover at one instant: a node behind on its queue still answers with an older token
 * (17 ms behind was seen on a loaded machine), so one quick re-read is not enough.
 */
export const CONFIRM_WINDOW_MS = 250;
/** Pause between re-reads of copies still changing hands. */
const REREAD_PAUSE_MS = 5;


/** What confirmSplits gives: the classification the re-reads support, and the ids no node holds any more. */
export interface Confirmed {
  classified: Classified;
  gone: string[];
}

/**
 * Re-reads and re-classifies every `split` or `ttl-skew` lock of `out` (see the file
 * comment); gives `out` as the re-read supports it, without the ids that no node holds any
 * more (the lock was released meanwhile), and those ids. The fresh reads replace the
 * scans' reads, so later passes (fences, waiters, countdowns) see the same instant.
 */
export async function confirmSplits(ctx: InspectContext, scans: NodeScan[], out: Classified, expiringThresholdMs: number): Promise<Confirmed> {
  // Cluster: each key has one copy, on its master; nothing can be split or skewed.
  if (ctx.ownerOnly) return { classified: out, gone: [] };
  let suspects: string[] = [];
  // A split stands once two reads in a row find the same token on every node: copies that
  // stay put are two holders, copies that keep moving are a lock changing hands. A TTL
  // skew likewise: a renewal lands on the nodes a moment apart, and a read between them
  // sees copies that disagree until the last node has it.
  const before = new Map<string, CopiesState>();
  for (let i = 0; i < out.locks.length; i++) {
    if (!suspect(out.locks[i])) continue;
    suspects.push(out.lockIds[i]);
    before.set(out.lockIds[i], copiesOf(scans, out.lockIds[i], out.locks[i]));
  }
  if (suspects.length === 0) return { classified: out, gone: [] };
  const settled = new Map<string, KeyResult>();
  const deadline = clockNow() + CONFIRM_WINDOW_MS;
  for (let first = true; suspects.length > 0; first = false) {
    if (!first) {
      // Past the window, a split still in motion is told: an alarm late is better than none.
      if (clockNow() >= deadline) break;
      await new Promise((r) => setTimeout(r, REREAD_PAUSE_MS));
    }
    // All nodes at once: one re-read spans one round trip, not N.
    await Promise.all(scans.map(async (scan, i) => {
      if (!readable(scan.status)) return;
      // A node that fails the re-read keeps its earlier read: the split then stands.
      await readBatch(ctx, ctx.nodes[i], suspects, scan).catch(() => undefined);
    }));
    const again = classifyKeys(ctx, scans, suspects, clockNow(), expiringThresholdMs);
    const moving: string[] = [];
    again.locks.forEach((e, i) => {
      const id = again.lockIds[i];
      settled.set(id, e);
      if (!suspect(e)) return;
      const now = copiesOf(scans, id, e);
      // A skew is read once more after a pause: a renewal still on its way to the last
      // nodes looks the same to a re-read that follows at once.
      if (moved(before.get(id), now) || (first && e.verdict !== 'split')) moving.push(id);
      before.set(id, now);
    });
    again.skipped.forEach((sk, i) => settled.set(again.skippedIds[i], sk));
    suspects = moving;
  }
  return rewrite(out, settled);
}

const suspect = (e: LockEntry): boolean => e.verdict === 'split' || e.flags.includes('ttl-skew');

/** What must stay put between two reads for a split or a skew to stand. */
interface CopiesState {
  tokens: string;
  /** Each node's expiry instant (local epoch ms), -1 without a copy or an expiry. */
  expiries: number[];
}

function copiesOf(scans: readonly NodeScan[], id: string, e: LockEntry): CopiesState {
  return {
    tokens: tokensOf(e),
    expiries: e.nodes.map((o, n) => (o.state === 'present' && o.pttlMs !== null && o.pttlMs >= 0 ? (scans[n].reads.stampOf(id)?.at ?? 0) + o.pttlMs : -1)),
  };
}

function moved(a: CopiesState | undefined, b: CopiesState): boolean {
  if (a === undefined || a.tokens !== b.tokens) return true;
  return a.expiries.some((x, n) => Math.abs(x - b.expiries[n]) > JUMP_TOLERANCE_MS);
}

/** Each node's token (or its state), in node order: what a stable split keeps. */
function tokensOf(e: LockEntry): string {
  return JSON.stringify(e.nodes.map((o) => (o.state === 'present' ? o.token : o.state)));
}

/** `out` with each settled id's new result; fences and waiters of a re-read lock are read afresh. */
function rewrite(out: Classified, settled: Map<string, KeyResult>): Confirmed {
  const gone: string[] = [];
  const locks: LockEntry[] = [];
  const lockIds: string[] = [];
  const fences = new Set(out.fencesToRead);
  const waiters = new Set(out.waitersToRead);
  const fencesToRead: number[] = [];
  const waitersToRead: number[] = [];
  const skipped = out.skipped.slice();
  const skippedIds = out.skippedIds.slice();
  let movedToSkipped = false;
  out.locks.forEach((e, i) => {
    const id = out.lockIds[i];
    const now = settled.get(id);
    if (now === undefined || 'verdict' in now) {
      if (now !== undefined || fences.has(i)) fencesToRead.push(locks.length);
      if (now !== undefined || waiters.has(i)) waitersToRead.push(locks.length);
      locks.push((now as LockEntry | undefined) ?? e);
      lockIds.push(id);
    } else if (now.reason === 'absent') gone.push(id);
    else {
      skipped.push(now);
      skippedIds.push(id);
      movedToSkipped = true;
    }
  });
  // Byte order, as classifyKeys gives them.
  const sorted = movedToSkipped ? sortSkipped({ skipped, skippedIds }) : { skipped, skippedIds };
  return { classified: { ...out, locks, lockIds, fencesToRead, waitersToRead, ...sorted }, gone };
}
