// Verdict, flags and validity of one key across the N configured nodes
// (docs/vocabulary.md). Pure: every renderer shows what this decides and decides nothing itself.
import type { Classification, Flag, Observation, Verdict } from './types';
import { holdersOf } from './holderCounts';
import { FLAG_ORDER } from './flags';

export interface ClassifyInput {
  observations: Observation[];
  /** Per observation: epoch ms at which that node was read. */
  readAtMs: readonly number[];
  /**
   * Per observation: how far its read instant may lie from `readAtMs`, either way (ms; none:
   * exact). Two nodes' instants are compared through each node's clock offset, which is
   * known only within half the round trip that measured it: copies are called skewed only
   * beyond that (docs/vocabulary.md, "Flags").
   */
  readErrMs?: readonly number[];
  nowMs: number;
  driftFactor: number;
  expiringThresholdMs: number;
}

/**
 * The flags of a lock without any: one frozen array shared by every such entry (a snapshot
 * holds 100k+ of them). Flags are replaced, never changed in place.
 */
export const NO_FLAGS = Object.freeze([]) as unknown as Flag[];


export function quorumOf(n: number): number {
  return Math.floor(n / 2) + 1;
}

/** classifyCopies() with the holders record: token -> number of nodes holding it. */
export function classify(input: ClassifyInput): Classification | null {
  const j = classifyCopies(input);
  return j && { verdict: j.verdict, flags: j.flags, validityMs: j.validityMs, quorum: j.quorum, holders: holdersOf(input.observations), quorumToken: j.quorumToken };
}

/**
 * The distinct tokens of one key's present copies and how many hold each (`[0, distinct)`):
 * classifyCopies() is synchronous, so one pair of arrays serves every call. A key has a handful of
 * copies: a linear search beats a record keyed by token (see holderCounts.ts).
 */
const tokenScratch: string[] = [];
const countScratch: number[] = [];

/** What classifyCopies() decides of one key. */
export type CopiesVerdict = Omit<Classification, 'holders'>;

/**
 * Verdict, flags, validity and quorum token, without the holders record (the read
 * pipeline's entries derive theirs, holderCounts.ts). null when no node holds a present
 * copy: such a key is not a lock (see skipReason). With `into`, written there and given
 * back: a caller that reads the answer at once (a snapshot's 100k keys) needs one object.
 */
export function classifyCopies(input: ClassifyInput, into?: CopiesVerdict): CopiesVerdict | null {
  // Plain loops, no intermediate arrays: a snapshot classifies 100k+ keys.
  const { observations, nowMs, driftFactor } = input;
  const n = observations.length;
  const q = quorumOf(n);
  const tokens = tokenScratch;
  const counts = countScratch;
  let distinct = 0;
  let unreachable = 0;
  let noTtl = false;
  let reentrant = false;
  for (let i = 0; i < n; i++) {
    const o = observations[i];
    if (o.state === 'unreachable') unreachable++;
    if (o.state !== 'present') continue;
    // A present copy always carries a token; '' keeps a malformed one counted, not lost.
    const token = o.token ?? '';
    let t = 0;
    while (t < distinct && tokens[t] !== token) t++;
    if (t === distinct) {
      tokens[distinct] = token;
      counts[distinct++] = 1;
    } else counts[t]++;
    if (pttlOf(o) === -1) noTtl = true;
    if (o.holdCount !== null && o.holdCount > 1) reentrant = true;
  }
  if (distinct === 0) return null;

  let verdict: Verdict;
  let quorumToken: string | undefined;
  if (distinct >= 2) {
    verdict = 'split';
    // 2Q > N, so at most one token reaches a quorum, even in a split.
    for (let t = 0; t < distinct; t++) if (counts[t] >= q) quorumToken = tokens[t];
  } else if (counts[0] >= q) {
    verdict = 'held';
    quorumToken = tokens[0];
  } else {
    verdict = counts[0] + unreachable >= q ? 'unknown' : 'partial';
  }

  let validityMs: number | null = null;
  let skew = false;
  if (quorumToken !== undefined) {
    const expiries = expiryScratch;
    const errs = errScratch;
    const readErrMs = input.readErrMs;
    let m = 0;
    let longestPttl = -1;
    for (let i = 0; i < n; i++) {
      const o = observations[i];
      if (o.state !== 'present' || (o.token ?? '') !== quorumToken) continue;
      const pttl = pttlOf(o);
      errs[m] = readErrMs?.[i] ?? 0;
      // An unknown PTTL counts as "no expiry": the copy may outlive every TTL.
      expiries[m++] = pttl === -1 ? Infinity : (input.readAtMs[i] ?? nowMs) + pttl;
      if (pttl > longestPttl) longestPttl = pttl;
    }
    // The allowance stops shrinking at the expiring threshold: copies written a few ms
    // apart do not turn skewed as the lock runs down (docs/vocabulary.md, "Flags").
    // Before validityOf, which sorts the instants apart from their errors.
    skew = m > 1 && hasTtlSkew(expiries, errs, m, Math.max(longestPttl, input.expiringThresholdMs), driftFactor);
    validityMs = validityOf(expiries, m, q, nowMs, driftFactor);
  }

  const expiring = validityMs !== null && validityMs < input.expiringThresholdMs;
  let flags = NO_FLAGS;
  if (noTtl || skew || expiring || unreachable > 0 || reentrant) {
    flags = [];
    const on: Record<Flag, boolean> = { 'no-ttl': noTtl, 'ttl-skew': skew, expiring, degraded: unreachable > 0, reentrant, deadlock: false };
    for (const f of FLAG_ORDER) if (on[f]) flags.push(f);
  }

  if (into === undefined) return { verdict, flags, validityMs, quorum: q, quorumToken: quorumToken ?? null };
  into.verdict = verdict;
  into.flags = flags;
  into.validityMs = validityMs;
  into.quorum = q;
  into.quorumToken = quorumToken ?? null;
  return into;
}

function pttlOf(o: Observation): number {
  return o.pttlMs === null || o.pttlMs < 0 ? -1 : o.pttlMs;
}

/**
 * The expiry instants of one key's quorum copies: classify() is synchronous, so one array
 * serves every call (a snapshot classifies 100k+ keys; an array each was measurable).
 */
const expiryScratch: number[] = [];
/** How far each of expiryScratch's instants may be off (ClassifyInput.readErrMs). */
const errScratch: number[] = [];

/**
 * Whether the expiry instants `expiries[0..m)` of the quorum token's copies (Infinity: no
 * expiry) lie further apart than the drift allowance, even where each is off by as much as
 * `errs` says: the latest copy's earliest possible instant against the earliest copy's latest.
 */
function hasTtlSkew(expiries: readonly number[], errs: readonly number[], m: number, longestFinitePttl: number, driftFactor: number): boolean {
  let lowestLatest = Infinity;
  let highestEarliest = -Infinity;
  let infinite = false;
  for (let i = 0; i < m; i++) {
    const e = expiries[i];
    if (e === Infinity) {
      infinite = true;
      continue;
    }
    if (e + errs[i] < lowestLatest) lowestLatest = e + errs[i];
    if (e - errs[i] > highestEarliest) highestEarliest = e - errs[i];
  }
  if (highestEarliest === -Infinity) return false;
  if (infinite) return true;
  const allowance = driftFactor * longestFinitePttl + 2;
  return highestEarliest - lowestLatest > allowance;
}

// The Q-th largest remaining time is what a quorum of this token's copies still
// guarantees; the drift term is the same allowance Redlock applies when acquiring.
function validityOf(expiries: number[], m: number, q: number, nowMs: number, driftFactor: number): number | null {
  if (q > m) return null;
  if (m > 1) {
    // Largest first, in place: m is the node count, a handful.
    for (let i = 1; i < m; i++) {
      const e = expiries[i];
      let j = i - 1;
      for (; j >= 0 && expiries[j] < e; j--) expiries[j + 1] = expiries[j];
      expiries[j + 1] = e;
    }
  }
  return validityAt(expiries[q - 1], nowMs, driftFactor);
}

/** What a quorum whose Q-th largest expiry is `e` (Infinity: none) still guarantees at `nowMs`. */
function validityAt(e: number, nowMs: number, driftFactor: number): number | null {
  if (e === Infinity) return null;
  const r = e - nowMs;
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
