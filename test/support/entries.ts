// Shared builders for lock entries in unit tests. Entries come out of the core's own
// classify(), so a test never states a verdict, holders or quorum token the core would
// not; a test about rendering may still pin a field (say, a round validity) on top.
import { classify } from '../../src/core/vocabulary/classify';
import type { LockEntry, Observation } from '../../src/core/vocabulary/types';

export function present(node: string, token: string, pttlMs: number | null = 10_000, extra: Partial<Observation> = {}): Observation {
  return { node, state: 'present', token, pttlMs, type: 'string', format: 'string', holdCount: null, reason: null, ...extra };
}

export function absent(node: string): Observation {
  return { node, state: 'absent', token: null, pttlMs: null, type: null, format: null, holdCount: null, reason: null };
}

export function unreachable(node: string, reason = 'timeout'): Observation {
  return { node, state: 'unreachable', token: null, pttlMs: null, type: null, format: null, holdCount: null, reason };
}

export interface EntryOptions {
  /** Epoch ms the copies were read at, and the classification instant; default 0. */
  nowMs?: number;
  driftFactor?: number;
  expiringThresholdMs?: number;
}

/**
 * The entry the core would build for `nodes`, with `over` laid on top (only for fields a
 * rendering test wants round). A key with no present copy is not a lock: that throws.
 */
export function lockEntry(key: string, nodes: Observation[], over: Partial<LockEntry> = {}, options: EntryOptions = {}): LockEntry {
  const nowMs = options.nowMs ?? 0;
  const c = classify({ observations: nodes, readAtMs: nodes.map(() => nowMs), nowMs, driftFactor: options.driftFactor ?? 0.01, expiringThresholdMs: options.expiringThresholdMs ?? 2000 });
  if (!c) throw new Error(`lockEntry(${key}): no present copy, not a lock`);
  const { quorumToken: _quorumToken, ...fields } = c;
  // Fences are read beside the lock, not classified: none unless a test pins one.
  return { key, ...fields, fence: null, fenceRisk: false, nodes, ...over };
}

/**
 * The core's entry for three copies of `t` (nodes a, b, c), with a round 5 s validity so a
 * rendering test's words stay fixed; `over` lays fields on top as in lockEntry(), and
 * `over.nodes` replaces the copies classified.
 */
export function heldEntry(key: string, over: Partial<LockEntry> = {}): LockEntry {
  return lockEntry(key, over.nodes ?? [present('a', 't'), present('b', 't'), present('c', 't')], { validityMs: 5000, ...over });
}
