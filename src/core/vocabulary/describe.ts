// The presentation vocabulary, in one place for every surface (CLI, tree, panel): how a
// duration, a TTL, a shortened token, a verdict and a failed write read. Pure and free of
// Node types: the webview bundles it. Escaping for a particular medium (terminal,
// Markdown, HTML) stays with that medium.
import type { Classification, Observation } from './types';
import { holderLabel } from './holderToken';

/**
 * Durations as people read them on every surface: `0.4 ms` (fractions only below 10 ms,
 * for latencies), `950 ms`, `4.9 s` (tenths up to 100 s), `2 min 3 s`, `1 h 5 min`,
 * `2 d 3 h`. Everything rounds down, so no surface promises more time than is left;
 * negative input reads as 0. The scale is in docs/cli.md ("Durations").
 */
export function formatDuration(ms: number): string {
  const v = Math.max(0, ms);
  if (v < 10 && !Number.isInteger(v)) return `${(Math.floor(v * 10) / 10).toFixed(1)} ms`;
  if (v < 1000) return `${Math.floor(v)} ms`;
  if (v < 100_000) return `${(Math.floor(v / 100) / 10).toFixed(1)} s`;
  const s = Math.floor(v / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
}

/** A PTTL as shown: -1 (no expiry) is `no TTL`, an unknown one `TTL ?`. */
export function formatTtl(pttlMs: number | null): string {
  if (pttlMs === null) return 'TTL ?';
  return pttlMs < 0 ? 'no TTL' : formatDuration(pttlMs);
}

/** The same in a table's TTL column, where the heading already says TTL: `?` when unknown. */
export function ttlText(pttlMs: number | null): string {
  return pttlMs === null ? '?' : formatTtl(pttlMs);
}

/** A signed difference such as a clock offset: `+3 ms`, `-1.2 s`, `0 ms`. */
export function formatOffset(ms: number): string {
  const sign = ms > 0 ? '+' : ms < 0 ? '-' : '';
  return `${sign}${formatDuration(Math.abs(ms))}`;
}

/** How much of a token a surface shows: `keep` or fewer characters whole, else head…tail. */
export interface TokenCut {
  keep: number;
  head: number;
  tail?: number;
}
/** In a sentence (the panel): `7f3a…c2`. */
export const TOKEN_IN_SENTENCE: TokenCut = { keep: 10, head: 4, tail: 2 };
/** In a tree row or a confirmation: 13 characters and `…`. */
export const TOKEN_IN_ROW: TokenCut = { keep: 14, head: 13 };
/** In a failure line: 12 characters and `…`. */
export const TOKEN_IN_ERROR: TokenCut = { keep: 16, head: 12 };

/** A token shortened by code points (never splitting a character); the full one is always copyable. */
export function shortToken(token: string, cut: TokenCut = TOKEN_IN_ROW): string {
  const chars = Array.from(token);
  if (chars.length <= cut.keep) return token;
  const tail = cut.tail ?? 0;
  return `${chars.slice(0, Math.max(1, cut.head)).join('')}…${tail > 0 ? chars.slice(-tail).join('') : ''}`;
}

/** The verdict and its copy counts alone: `held 3/5`, `split 2+2/5`, `partial 2/5`. */
export function verdictHead(c: Pick<Classification, 'verdict' | 'holders'>, n: number): string {
  const counts = Object.values(c.holders).sort((a, b) => b - a);
  if (c.verdict === 'split') return `split ${counts.join('+')}/${n}`;
  return `${c.verdict} ${counts[0] ?? 0}/${n}`;
}

/** The short form of a verdict: `held 3/5 · 4.2 s`, `split 2+2/5`, `partial 2/5`, `held 3/5 · no TTL`. */
export function describeVerdict(c: Pick<Classification, 'verdict' | 'holders' | 'validityMs'>, n: number, duration: (ms: number) => string = formatDuration): string {
  const head = verdictHead(c, n);
  if (c.verdict !== 'held') return head;
  if (c.validityMs === null) return `${head} · no TTL`;
  return `${head} · ${duration(c.validityMs)}`;
}

/** One node's state in a word or two: `present`, `absent`, `unreachable: timeout`. */
export function stateText(o: Pick<Observation, 'state' | 'reason'>): string {
  return o.state === 'present' || o.state === 'absent' ? o.state : `${o.state}${o.reason ? `: ${o.reason}` : ''}`;
}

/**
 * The words a server or ioredis uses when a password is missing or wrong: replies.ts
 * reads them once into a failure's `auth` outcome, which every surface branches on.
 */
export const AUTH_FAILURE = /NOAUTH|WRONGPASS|invalid username-password|\bAUTH\b|invalid password/i;

/** What one node said to a write, as a failure line names it. */
export interface NodeAnswer {
  node: string;
  outcome: string;
  heldBy?: string;
  reason?: string;
  /** The node replied (NOPERM, READONLY...): it answered, it refused. */
  answered?: boolean;
}

const ANSWERING_OUTCOMES = new Set(['granted', 'held-by-other', 'not-held', 'wrong-type', 'released', 'deleted', 'changed', 'absent', 'refused']);

/** Nodes that answered at all, a refusal (NOPERM, READONLY) included: what a quorum counts. */
export function answeredCount(nodes: readonly NodeAnswer[]): number {
  return nodes.filter((n) => n.answered === true || (ANSWERING_OUTCOMES.has(n.outcome) && n.outcome !== 'refused')).length;
}

/** One node's answer in a failure line: `n1 granted`, `n2 held by 7f3a9b0c1d2e…`, `n3 refused (NOPERM ...)`. */
export function describeAnswer(a: NodeAnswer, operation?: string): string {
  switch (a.outcome) {
    case 'granted':
      return `${a.node} granted`;
    case 'held-by-other': {
      // Our own holders say who they are: a name beats a token prefix.
      const holder = a.heldBy === undefined ? 'another token' : (holderLabel(a.heldBy) ?? shortToken(a.heldBy, TOKEN_IN_ERROR));
      // Extending or releasing a lock someone else holds: the token given is the wrong one.
      return operation === 'extend' || operation === 'release' ? `${a.node} the token does not match (held by ${holder})` : `${a.node} held by ${holder}`;
    }
    case 'not-held':
      return `${a.node} not held (expired or released)`;
    default:
      return `${a.node} ${a.outcome}${a.reason ? ` (${a.reason})` : ''}`;
  }
}

/** A failed acquire/extend when fewer than a quorum answered at all: leads with that count. */
export function noQuorumLine(e: { operation: string; resources: readonly string[]; attempts: number; quorum: number; nodes: readonly NodeAnswer[] }): string {
  const tries = e.attempts > 1 ? ` after ${e.attempts} attempts` : '';
  return `cannot ${e.operation} ${e.resources.join(', ')}${tries}: only ${answeredCount(e.nodes)} of ${e.nodes.length} nodes answered, ${e.quorum} needed: ${e.nodes.map((n) => describeAnswer(n, e.operation)).join('; ')}`;
}

/** Why a fence is a risk, worded once for every surface (docs/fencing.md). */
export function fencingRiskWhy(quorum: number): string {
  return `fewer than ${quorum} reachable nodes hold it, so the next fence may repeat an old one`;
}
