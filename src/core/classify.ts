// Verdict, flags and validity of one key across the N configured nodes (DESIGN.md
// "Vocabulary"). Pure: every renderer shows what this decides and decides nothing itself.
import type { Classification, Flag, Observation, Verdict } from './types';
import { dataRecord } from './tokens';

export interface ClassifyInput {
  observations: Observation[];
  /** Per observation: epoch ms at which that node was read. */
  readAtMs: readonly number[];
  nowMs: number;
  driftFactor: number;
  expiringThresholdMs: number;
}

interface Copy {
  token: string;
  /** -1: no expiry. */
  pttlMs: number;
  readAtMs: number;
  holdCount: number | null;
}

export function quorumOf(n: number): number {
  return Math.floor(n / 2) + 1;
}

/** null when no node holds a present copy: such a key is not a lock (see skipReason). */
export function classify(input: ClassifyInput): Classification | null {
  const { observations, nowMs, driftFactor } = input;
  const n = observations.length;
  const q = quorumOf(n);
  const copies = presentCopies(input);
  if (copies.length === 0) return null;

  const holders = dataRecord<number>();
  for (const c of copies) holders[c.token] = (holders[c.token] ?? 0) + 1;
  const tokens = Object.keys(holders);
  const unreachable = observations.filter((o) => o.state === 'unreachable').length;

  let verdict: Verdict;
  if (tokens.length >= 2) verdict = 'split';
  else if (holders[tokens[0]] >= q) verdict = 'held';
  else if (holders[tokens[0]] + unreachable >= q) verdict = 'unknown';
  else verdict = 'partial';

  // 2Q > N, so at most one token reaches a quorum, even in a split.
  const quorumToken = tokens.find((t) => holders[t] >= q);
  const quorumCopies = quorumToken === undefined ? [] : copies.filter((c) => c.token === quorumToken);
  const validityMs = quorumCopies.length > 0 ? validityOf(quorumCopies, q, nowMs, driftFactor) : null;

  const flags: Flag[] = [];
  if (copies.some((c) => c.pttlMs === -1)) flags.push('no-ttl');
  if (quorumCopies.length > 0 && hasTtlSkew(quorumCopies, driftFactor)) flags.push('ttl-skew');
  if (validityMs !== null && validityMs < input.expiringThresholdMs) flags.push('expiring');
  if (unreachable > 0) flags.push('degraded');
  if (copies.some((c) => c.holdCount !== null && c.holdCount > 1)) flags.push('reentrant');

  return { verdict, flags, validityMs, quorum: q, holders };
}

function presentCopies(input: ClassifyInput): Copy[] {
  const copies: Copy[] = [];
  input.observations.forEach((o, i) => {
    if (o.state !== 'present') return;
    copies.push({
      // A present copy always carries a token; '' keeps a malformed one counted, not lost.
      token: o.token ?? '',
      // An unknown PTTL is shown as "no expiry": the copy may outlive every TTL.
      pttlMs: o.pttlMs === null || o.pttlMs < 0 ? -1 : o.pttlMs,
      readAtMs: input.readAtMs[i] ?? input.nowMs,
      holdCount: o.holdCount,
    });
  });
  return copies;
}

function expiryOf(c: Copy): number {
  return c.pttlMs === -1 ? Infinity : c.readAtMs + c.pttlMs;
}

function hasTtlSkew(copies: Copy[], driftFactor: number): boolean {
  const expiries = copies.map(expiryOf);
  const finite = expiries.filter(Number.isFinite);
  if (finite.length === 0) return false;
  if (finite.length < expiries.length) return true;
  const longestPttl = Math.max(...copies.map((c) => c.pttlMs));
  const allowance = driftFactor * longestPttl + 2;
  return Math.max(...finite) - Math.min(...finite) > allowance;
}

// The Q-th largest remaining time is what a quorum of this token's copies still
// guarantees; the drift term is the same allowance Redlock applies when acquiring.
function validityOf(copies: Copy[], q: number, nowMs: number, driftFactor: number): number | null {
  const remaining = copies.map((c) => expiryOf(c) - nowMs).sort((a, b) => b - a);
  const r = remaining[q - 1];
  if (r === undefined || !Number.isFinite(r)) return null;
  return Math.floor(Math.max(0, r - (driftFactor * r + 2)));
}

/** Why a key with no present copy was skipped: the unreadable reasons, else 'unreachable' or 'absent'. */
export function skipReason(observations: Observation[]): string {
  const reasons: string[] = [];
  for (const o of observations) {
    if (o.state !== 'unreadable') continue;
    const reason = o.reason ?? 'unreadable';
    if (!reasons.includes(reason)) reasons.push(reason);
  }
  if (reasons.length > 0) return reasons.join(', ');
  if (observations.length > 0 && observations.every((o) => o.state === 'unreachable')) return 'unreachable';
  return 'absent';
}

/** Tree description: `held 3/5 · 4.2 s`, `split 2+2/5`, `partial 2/5`, `held 3/5 · no TTL`. */
export function describeVerdict(c: Classification, n: number): string {
  const counts = Object.values(c.holders).sort((a, b) => b - a);
  if (c.verdict === 'split') return `split ${counts.join('+')}/${n}`;
  const head = `${c.verdict} ${counts[0] ?? 0}/${n}`;
  if (c.verdict !== 'held') return head;
  if (c.validityMs === null) return `${head} · no TTL`;
  // Tenths round down: the tree never promises more time than is left.
  return `${head} · ${(Math.floor(c.validityMs / 100) / 10).toFixed(1)} s`;
}
