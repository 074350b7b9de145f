// What changed between two snapshots, so the tree fires only the changed elements, and
// how "load more" pages join the first one.
import type { LockEntry, Snapshot } from '../core';

export interface LockDiff {
  added: string[];
  changed: string[];
  removed: string[];
}

/** Two entries render the same unless something but time differs (validity ages locally). */
function sameEntry(a: LockEntry, b: LockEntry): boolean {
  if (a.verdict !== b.verdict || a.quorum !== b.quorum || a.flags.join() !== b.flags.join()) return false;
  if ((a.validityMs === null) !== (b.validityMs === null)) return false;
  if (a.nodes.length !== b.nodes.length) return false;
  return a.nodes.every((o, i) => {
    const p = b.nodes[i];
    return o.node === p.node && o.state === p.state && o.token === p.token && o.reason === p.reason && o.format === p.format && o.holdCount === p.holdCount && (o.pttlMs === -1) === (p.pttlMs === -1);
  });
}

export function diffLocks(prev: readonly LockEntry[], next: readonly LockEntry[]): LockDiff {
  const before = new Map(prev.map((e) => [e.key, e]));
  const after = new Map(next.map((e) => [e.key, e]));
  const diff: LockDiff = { added: [], changed: [], removed: [] };
  for (const [key, e] of after) {
    const old = before.get(key);
    if (!old) diff.added.push(key);
    else if (!sameEntry(old, e)) diff.changed.push(key);
  }
  for (const key of before.keys()) if (!after.has(key)) diff.removed.push(key);
  return diff;
}

/** Joins a continuation page into what was read before it: later reads win per key. */
export function mergePages(first: Snapshot, more: Snapshot): Snapshot {
  const locks = new Map(first.locks.map((e) => [e.key, e]));
  for (const e of more.locks) locks.set(e.key, e);
  const skipped = new Map(first.skipped.map((s) => [s.key, s]));
  for (const s of more.skipped) {
    if (!locks.has(s.key)) skipped.set(s.key, s);
  }
  for (const key of locks.keys()) skipped.delete(key);
  return { ...more, locks: [...locks.values()], skipped: [...skipped.values()], truncated: more.truncated };
}
