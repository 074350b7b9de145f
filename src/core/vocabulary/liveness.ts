// Is the holder alive? One verdict per held lock from the signals a read can gather (its
// connections, its process on this host, its renewal pulse, how long it has held), worded
// once here for every surface (docs/liveness.md). Pure: the reads live in src/core/read.
import { formatDuration } from './describe';
import type { Liveness, LivenessEvidence, LivenessVerdict } from './types';

/**
 * What CLIENT LIST said of the holder's connections. `absent` counts only where a missing
 * name means something (our core names every connection); `unknown` says why in `reason`.
 */
export type ConnectionSignal =
  | { state: 'connected'; connectedOn: number; asked: number; idleMs: number | null }
  | { state: 'absent'; asked: number }
  | { state: 'unknown'; reason: string };

/** The holder's pid on this host: running, paused (SIGSTOP), exited, or reused by a later process. */
export type ProcessSignal = { state: 'running' | 'paused' | 'exited' | 'reused'; pid: number } | { state: 'elsewhere'; host: string };

/**
 * The renewal pulse: `one-read` (a single read sees no pulse), `never` (watched, never
 * renewed), `renewing`, or `stopped` (a renewal missed: MISSED_INTERVALS).
 */
export interface RenewalSignal {
  state: 'one-read' | 'never' | 'renewing' | 'stopped';
  lastMs: number | null;
  everyMs: number | null;
  watchedMs?: number;
}

export interface LivenessInput {
  connection: ConnectionSignal | null;
  process: ProcessSignal | null;
  renewal: RenewalSignal;
  /** Held for this long (from the holder's `since`), when known. */
  heldMs: number | null;
  p95Ms?: number | null;
  /** The lock's validity (ms), null when unknown or when it has no TTL. */
  validityMs: number | null;
  /** The holder's copies never expire (the `no-ttl` flag). */
  noTtl: boolean;
}

/** Every verdict, in the order surfaces list them (the exporter's label values). */
export const LIVENESS_VERDICTS: readonly LivenessVerdict[] = ['alive', 'stopped-renewing', 'gone', 'unknown'];

/** A lock stops renewing once no renewal came for this many of its intervals: one renewal missed, with room for a late one. */
export const MISSED_INTERVALS = 1.5;

/** The renewal signal from the renewals seen (epoch ms, oldest first) while watching since `watchedFrom`. */
export function renewalOf(renewals: readonly number[], watchedFrom: number, nowMs: number): RenewalSignal {
  if (renewals.length === 0) return { state: 'never', lastMs: null, everyMs: null, watchedMs: nowMs - watchedFrom };
  const last = renewals[renewals.length - 1];
  const gaps = renewals.slice(1).map((t, i) => t - renewals[i]).sort((a, b) => a - b);
  const everyMs = gaps.length ? gaps[Math.floor(gaps.length / 2)] : null;
  const stopped = everyMs !== null && nowMs - last > MISSED_INTERVALS * everyMs;
  return { state: stopped ? 'stopped' : 'renewing', lastMs: nowMs - last, everyMs };
}

const ago = (ms: number): string => `${formatDuration(ms)} ago`;

function connectionEvidence(c: ConnectionSignal): LivenessEvidence {
  if (c.state === 'connected') {
    const idle = c.idleMs === null ? '' : `, idle ${formatDuration(c.idleMs)}`;
    return { kind: 'connection', points: 'alive', says: `connected on ${c.connectedOn}/${c.asked} nodes${idle}`, connectedOn: c.connectedOn, asked: c.asked, idleMs: c.idleMs };
  }
  if (c.state === 'absent') return { kind: 'connection', points: 'gone', says: `no connection on any of ${c.asked} nodes`, connectedOn: 0, asked: c.asked };
  return { kind: 'connection', points: 'none', says: c.reason };
}

function processEvidence(p: ProcessSignal): LivenessEvidence {
  if (p.state === 'elsewhere') return { kind: 'process', points: 'none', says: `runs on ${p.host}: its process cannot be checked from this host` };
  const words = { running: 'is running', paused: 'is paused (stopped, not running)', exited: 'has exited', reused: 'belongs to a process started after the lock was taken (pid reused)' }[p.state];
  const points = p.state === 'running' ? 'alive' : p.state === 'paused' ? 'none' : 'gone';
  return { kind: 'process', points, says: `pid ${p.pid} on this host ${words}`, pid: p.pid };
}

function renewalEvidence(r: RenewalSignal): LivenessEvidence {
  const base = { kind: 'renewal' as const, lastRenewalMs: r.lastMs, everyMs: r.everyMs };
  const every = r.everyMs === null ? '' : `, every ${formatDuration(r.everyMs)}`;
  switch (r.state) {
    case 'one-read':
      return { ...base, points: 'none', says: 'no renewal seen (one read)' };
    case 'never':
      return { ...base, points: 'none', says: `never seen renewing (watched ${formatDuration(r.watchedMs ?? 0)})` };
    case 'renewing':
      return { ...base, points: 'alive', says: r.everyMs === null ? `renewed once, ${ago(r.lastMs!)}` : `renewed ${ago(r.lastMs!)}${every}` };
    case 'stopped':
      return { ...base, points: 'stopped', says: `no renewal for ${formatDuration(r.lastMs!)} (every ${formatDuration(r.everyMs!)} before)` };
  }
}

function historyEvidence(heldMs: number, p95Ms: number | null): LivenessEvidence {
  const p95 = p95Ms === null ? '' : `, p95 is ${formatDuration(p95Ms)}`;
  return { kind: 'history', points: 'none', says: `held ${formatDuration(heldMs)}${p95}`, heldMs, p95Ms };
}

/** A verdict needs agreeing signals: "gone" two that say so and none that it still runs. */
export function judgeLiveness(input: LivenessInput): Liveness {
  const evidence: LivenessEvidence[] = [];
  if (input.connection) evidence.push(connectionEvidence(input.connection));
  if (input.process) evidence.push(processEvidence(input.process));
  evidence.push(renewalEvidence(input.renewal));
  const p95 = input.p95Ms ?? null;
  if (input.heldMs !== null) evidence.push(historyEvidence(input.heldMs, p95));
  const says = (p: LivenessEvidence['points']): number => evidence.filter((e) => e.points === p).length;
  // A paused process, or any live connection, still runs: it may resume and renew.
  const present = input.connection?.state === 'connected' || input.process?.state === 'running' || input.process?.state === 'paused';
  const against = says('gone') + says('stopped');
  const verdict: LivenessVerdict = !present && says('gone') >= 1 && against >= 2 ? 'gone' : says('stopped') > 0 ? 'stopped-renewing' : says('alive') > 0 ? 'alive' : 'unknown';
  return { verdict, evidence, suggestion: suggestionFor(verdict, input, evidence) };
}

function suggestionFor(verdict: LivenessVerdict, input: LivenessInput, evidence: readonly LivenessEvidence[]): string {
  const v = input.validityMs;
  const forever = input.noTtl;
  switch (verdict) {
    case 'alive':
      return aliveSuggestion(input.heldMs, input.p95Ms ?? null);
    case 'stopped-renewing':
      if (forever) return 'it has no TTL and never expires by itself: look at the holder, then force-release';
      return v === null ? 'wait, or force-release' : `it expires in ${formatDuration(v)} by itself: wait, or force-release`;
    case 'gone': {
      const agree = evidence.filter((e) => e.points === 'gone' || e.points === 'stopped').map((e) => e.kind).join(' and ');
      const head = forever ? 'stuck forever: it has no TTL; ' : '';
      return `${head}safe to force-release (compare-and-delete on the token shown; ${agree} agree)`;
    }
    case 'unknown':
      return unknownSuggestion(input);
  }
}

/**
 * What would tell, not what is missing: the evidence beside it already says that, and
 * every surface shows the two on one line. It depends on the pulse, the process and the
 * TTL alone, so the locks a read cannot judge share one judgement (livenessRead.ts).
 */
function unknownSuggestion(input: LivenessInput): string {
  if (input.process?.state === 'paused') return 'not enough evidence: its process may resume and renew; look at it on this host before you force-release';
  const watch = input.renewal.state === 'one-read' ? 'watch it to see whether it renews' : 'keep watching for a renewal';
  return input.noTtl ? `not enough evidence: ${watch}; it has no TTL, so it stays until someone releases it` : `not enough evidence: ${watch}`;
}

/** Wait; a hold already past its own p95 is worth a look at the holder. */
function aliveSuggestion(heldMs: number | null, p95Ms: number | null): string {
  return heldMs !== null && p95Ms !== null && heldMs > p95Ms ? `wait; held ${formatDuration(heldMs)}, p95 is ${formatDuration(p95Ms)}: look at the holder` : 'wait';
}

/** The same liveness weighed against the lock's own p95 hold time (`status --stats`, docs/audit.md). */
export function withHoldP95(l: Liveness, p95Ms: number | null): Liveness {
  const h = l.evidence.find((e) => e.kind === 'history');
  if (h?.heldMs === undefined || p95Ms === null) return l;
  const evidence = l.evidence.map((e) => (e === h ? historyEvidence(h.heldMs!, p95Ms) : e));
  return { ...l, evidence, suggestion: l.verdict === 'alive' ? aliveSuggestion(h.heldMs, p95Ms) : l.suggestion };
}

const VERDICT_WORDS: Record<LivenessVerdict, string> = { alive: 'alive', 'stopped-renewing': 'stopped renewing', gone: 'gone', unknown: 'unknown' };

/** The one liveness line every surface shows: `holder alive: connected on 3/3 nodes; renewed 2.0 s ago, every 5.0 s · wait`. */
export function livenessText(l: Liveness | null | undefined): string | null {
  if (!l) return null;
  return `holder ${VERDICT_WORDS[l.verdict]}: ${l.evidence.map((e) => e.says).join('; ')} · ${l.suggestion}`;
}

/** A held lock with no TTL whose holder is gone: stuck until someone releases it. */
export function stuckForever(e: { flags: readonly string[]; liveness?: Liveness | null }): boolean {
  return e.liveness?.verdict === 'gone' && e.flags.includes('no-ttl');
}

/** The CLIENT SETNAME our core gives its connections: the process id its tokens carry. */
export function holderConnectionName(processId: string): string {
  return `redlock-inspector:${processId}`;
}

/** A connection name that names the holder `id` (ours, or a foreign client's that carries its id). */
export function namesHolder(connectionName: string, id: string): boolean {
  return id.length >= 8 && connectionName.toLowerCase().includes(id.toLowerCase());
}
