// The safety audit: did exclusion ever break? Reads one lock's history as leases and
// names every finding with the events that prove it. What each finding can and cannot
// prove: docs/audit.md.
import { chronological, Lease, leasesOf } from './leases';
import type { LockEvent } from './lockEvents';

export type AuditKind = 'overlap' | 'past-lease' | 'fence-order' | 'lost-unnoticed' | 'expired-unreleased';
export const AUDIT_KINDS: readonly AuditKind[] = ['overlap', 'past-lease', 'fence-order', 'lost-unnoticed', 'expired-unreleased'];

export interface AuditHolder {
  token: string;
  holder: LockEvent['holder'];
}

export interface AuditFinding {
  kind: AuditKind;
  resource: string;
  /** Epoch ms the finding happened, by the recording clients' clocks. */
  at: number;
  holders: AuditHolder[];
  /** The recorded events that prove it, oldest first. */
  evidence: LockEvent[];
  /** What it means, in one sentence (plain text; keys and tokens are not in it). */
  detail: string;
  /** Made from what a watch observed, not from recorded events: weaker evidence (auditObserved). */
  observed?: true;
}

export interface AuditOptions {
  /** Epoch ms the audit looks back to (events before it still shape the leases). */
  fromMs?: number;
  /**
   * Epoch ms before which the history may have holes (historyHorizon): a finding whose
   * evidence reaches back before it is not told, since the event that clears it (a
   * release, a loss) may be the one missing.
   */
  horizonMs?: number | null;
  nowMs: number;
  /**
   * Clock disagreement allowed between two recording clients before an overlap or a late
   * action counts: events are stamped by each client's own clock.
   */
  toleranceMs?: number;
}

/** Clients on one machine agree to the ms; different machines by NTP's tens of ms. */
export const AUDIT_TOLERANCE_MS = 25;

const holderOf = (l: Lease): AuditHolder => ({ token: l.token, holder: l.holder });
const ms = (n: number): string => `${Math.round(n)} ms`;

/** Every finding in one resource's history, oldest first. */
export function auditHistory(resource: string, events: readonly LockEvent[], options: AuditOptions): AuditFinding[] {
  const tol = options.toleranceMs ?? AUDIT_TOLERANCE_MS;
  const leases = leasesOf(events, options.nowMs);
  const findings: AuditFinding[] = [];
  const add = (kind: AuditKind, at: number, holders: Lease[], evidence: LockEvent[], detail: string): void => {
    const sorted = chronological(evidence);
    findings.push({ kind, resource, at, holders: holders.map(holderOf), evidence: sorted.filter((e, i) => sorted.indexOf(e) === i), detail });
  };

  // overlap: a grant while another hold's lease still ran and it had not let go.
  for (let i = 0; i < leases.length; i++) {
    const b = leases[i];
    for (let j = 0; j < i; j++) {
      const a = leases[j];
      if (a.token === b.token) continue;
      // Granted in the same ms, and `b` let go in that ms too: `b` may well have come first
      // (a ms orders nothing, and a history lists its newest first), so this is no evidence.
      if (b.start === a.start && (b.end === 'released' || b.end === 'lost') && b.endAt! <= a.start) continue;
      const until = validAt(a, b.start);
      if (until === null) continue;
      const aLetGo = a.end === 'released' || a.end === 'lost' ? Math.min(a.endAt!, until) : until;
      if (b.start >= a.start && b.start < aLetGo - tol) {
        const evidence = [...a.events.filter((e) => e.at! <= b.start), b.events[0]];
        add('overlap', b.start, [a, b], evidence, `a second holder was granted the lock ${ms(aLetGo - b.start)} before the first holder's lease ended: both held a quorum at once`);
      }
    }
  }

  // fence-order: a fence handed out that is not above an earlier one.
  let top: Lease | undefined;
  for (const l of leases) {
    if (l.fence === undefined) continue;
    if (top && l.fence <= top.fence!) add('fence-order', l.start, [top, l], [top.events[0], l.events[0]], `fence ${l.fence} was handed out after fence ${top.fence}: a storage that trusts fences would accept stale writes`);
    if (!top || l.fence > top.fence!) top = l;
  }

  for (const l of leases) {
    if (l.validUntil === null) continue;
    // past-lease: an extend, a release or a failed extend after the lease ran out.
    const late = l.events.filter((e) => (e.type === 'extended' || e.type === 'released' || (e.type === 'failed' && e.operation === 'extend')) && e.at! > leaseAt(l, e) + tol);
    const gone = l.events.find((e) => e.type === 'released' && e.held === false);
    if (gone && !late.includes(gone)) late.push(gone);
    if (late.length > 0) {
      const first = chronological(late)[0];
      const over = first.at! - leaseAt(l, first);
      add('past-lease', first.at!, [l], [l.events[0], ...late], over > 0 ? `the holder acted ${ms(over)} after its lease had ended (a paused or slow client)` : 'the holder released a lock that no node held any more: it had worked past its lease');
    }
    // lost-unnoticed: the lease ran out, and the holder learned of it only later.
    const lost = l.events.find((e) => e.type === 'lost');
    if (lost && lost.at! > leaseAt(l, lost) + tol) add('lost-unnoticed', leaseAt(l, lost), [l], [l.events[0], lost], `the lease ran out ${ms(lost.at! - leaseAt(l, lost))} before its holder noticed the loss`);
    // expired-unreleased: let run out, most often a crash.
    if (l.end === 'expired') add('expired-unreleased', l.endAt!, [l], l.events, 'the holder never released the lock; it ran out (a crash, or a client that forgot to release)');
  }

  const from = options.fromMs ?? -Infinity;
  const horizon = options.horizonMs ?? -Infinity;
  return findings.filter((f) => f.at >= from && f.evidence.every((e) => e.at === null || e.at >= horizon)).sort((a, b) => a.at - b.at);
}

/**
 * From when a resource's history, merged from every node's log, is whole. Each node keeps
 * only its newest entries; where the logs were cut at their cap, a node that was down
 * meanwhile reaches back further than the others, with a hole where it missed events (a
 * release): before the oldest entry of a quorum's logs, an event may be on no log read.
 * Every write reaches a quorum, so from there on each event is on one log at least. A log
 * shorter than the longest was not cut (a node restarted empty, or down at the start): it
 * holds all it ever got and bounds nothing. `perNode`: each node's events, null for a node
 * not read. null: no log holds anything; Infinity: no instant is known whole.
 */
export function historyHorizon(perNode: ReadonlyArray<readonly LockEvent[] | null>, quorum: number): number | null {
  const longest = Math.max(0, ...perNode.map((e) => e?.length ?? 0));
  if (longest === 0) return null;
  const covered = perNode.map((events) => {
    if (events === null || events.length === 0) return Infinity;
    if (events.length < longest) return -Infinity;
    let oldest = Infinity;
    for (const e of events) if (e.at !== null && e.at < oldest) oldest = e.at;
    return oldest;
  }).sort((a, b) => a - b);
  // Fewer than a quorum of logs hold anything: no instant is known whole.
  return covered[quorum - 1] ?? Infinity;
}

/** The lease end in force at `t`: the grant's or the last extension's at or before it. */
function validAt(l: Lease, t: number): number | null {
  let until: number | null = null;
  for (const x of l.events) {
    if (x.at! > t) break;
    if ((x.type === 'acquired' || x.type === 'extended') && x.validityMs !== undefined) until = x.at! + x.validityMs;
  }
  return until;
}

/** The lease end in force when `e` happened: the last extension before it counts. */
function leaseAt(l: Lease, e: LockEvent): number {
  let until = l.validUntil!;
  for (const x of l.events) {
    if (x === e) break;
    if ((x.type === 'acquired' || x.type === 'extended') && x.validityMs !== undefined) until = x.at! + x.validityMs;
  }
  return until;
}

/** One change a watch saw between two reads (the detail panel's observed history): no holder recorded it. */
export interface ObservedChange {
  /** Epoch ms of the read that saw it (the watcher's clock). */
  at: number;
  kind: string;
  token: string | null;
  previousToken: string | null;
  /** The nodes it happened on. */
  nodes: readonly string[];
}

/** Said in every finding made from observed history: why its evidence is weaker (docs/audit.md). */
export const OBSERVED_EVIDENCE = 'seen by a watch, not recorded by the holders: only the state at each read is known, so a change between two reads is missed, and the time is when the watch read it';

/**
 * Findings from what a watch saw of a lock no client recorded (a foreign lock's
 * handovers): an overlap when two tokens each held a quorum of nodes at one read, and
 * a holder's copies left to run out with no release seen. Each says it was observed
 * (OBSERVED_EVIDENCE), and carries no recorded evidence. Oldest first.
 */
export function auditObserved(resource: string, changes: readonly ObservedChange[], options: { quorum: number; fromMs?: number }): AuditFinding[] {
  const findings: AuditFinding[] = [];
  const holding = new Map<string, string>();
  const released = new Set<string>();
  const expired = new Map<string, number>();
  const overlapping = new Set<string>();
  const holder = (token: string): AuditHolder => ({ token, holder: null });
  const add = (kind: AuditKind, at: number, tokens: string[], detail: string): void => {
    findings.push({ kind, resource, at, holders: tokens.map(holder), evidence: [], detail: `${detail} (${OBSERVED_EVIDENCE})`, observed: true });
  };
  const sorted = [...changes].sort((a, b) => a.at - b.at);
  for (let i = 0; i < sorted.length; i++) {
    const c = sorted[i];
    for (const node of c.nodes) {
      if ((c.kind === 'acquired' || c.kind === 'holder-changed' || c.kind === 'extended') && c.token !== null) holding.set(node, c.token);
      else if ((c.kind === 'released' || c.kind === 'expired') && holding.get(node) === c.token) holding.delete(node);
    }
    if (c.token !== null && c.kind === 'released') released.add(c.token);
    if (c.token !== null && c.kind === 'expired' && !expired.has(c.token)) expired.set(c.token, c.at);
    // One read's changes share their instant: judge the state once all of them are in.
    if (sorted[i + 1]?.at === c.at) continue;
    const counts = new Map<string, number>();
    for (const token of holding.values()) counts.set(token, (counts.get(token) ?? 0) + 1);
    const quorate = [...counts].filter(([, n]) => n >= options.quorum).map(([token]) => token);
    const id = quorate.slice().sort().join('\u0000');
    if (quorate.length > 1 && !overlapping.has(id)) {
      overlapping.add(id);
      add('overlap', c.at, quorate, 'two holders each held a quorum of nodes at one read');
    }
  }
  for (const [token, at] of expired) {
    if (!released.has(token)) add('expired-unreleased', at, [token], 'the holder never released the lock; its copies ran out (a crash, or a client that forgot to release)');
  }
  const from = options.fromMs ?? -Infinity;
  return findings.filter((f) => f.at >= from).sort((a, b) => a.at - b.at);
}
