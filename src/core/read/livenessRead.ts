// The liveness stage (docs/liveness.md): for each held lock, the evidence a read can
// gather (the holder's named connections, its process on this host, the renewal pulse the
// watcher saw) judged by the vocabulary (liveness.ts). Runs last in the shared pipeline,
// for the snapshot and the watcher alike; one CLIENT LIST per node per run at most.
import { quorumTokenOf } from '../vocabulary/actions';
import { processOfCopies } from '../vocabulary/holderToken';
import { judgeLiveness, MISSED_INTERVALS, namesHolder, renewalOf, type ConnectionSignal, type LivenessInput, type ProcessSignal, type RenewalSignal } from '../vocabulary/liveness';
import type { Liveness, LockEntry } from '../vocabulary/types';
import { copyStamp, type InspectContext, type NodeScan } from './context';
import { withLiveness } from './entryCopy';
import { readClients, reasonsText, type NodeClients } from './clientsRead';
import { localProcessOf } from './localProcess';

/** An expiry must move by more than this to count as a renewal, not read jitter. */
const RENEW_SLACK_MS = 100;
/** Renewal instants kept per lock: enough for a steady interval. */
const KEEP_RENEWALS = 8;

interface Pulse {
  token: string;
  expiresAt: number;
  from: number;
  renewals: number[];
}

/**
 * The renewal pulse of each lock a watcher reads again: the instants its holder's expiry
 * jumped forward. A new token starts a new pulse. Kept in the watching process only.
 */
export class RenewalPulse {
  private readonly pulses = new Map<string, Pulse>();

  constructor(private readonly maxKeys = 10_000) {}

  /** A fresh read of `entry` (latin1 id `id`) at `nowMs`; its copies' expiries come from their reads' stamps. */
  note(entry: LockEntry, id: string, scans: readonly NodeScan[], ownerOnly: boolean, nowMs: number): void {
    const token = quorumTokenOf(entry);
    if (token === null) {
      this.pulses.delete(entry.key);
      return;
    }
    let expiresAt = -Infinity;
    entry.nodes.forEach((o, i) => {
      if (o.state !== 'present' || o.token !== token || o.pttlMs === null) return;
      expiresAt = Math.max(expiresAt, o.pttlMs < 0 ? Infinity : (copyStamp(scans, i, id, ownerOnly)?.at ?? nowMs) + o.pttlMs);
    });
    const before = this.pulses.get(entry.key);
    if (before === undefined || before.token !== token) {
      if (before === undefined && this.pulses.size >= this.maxKeys) this.evictOldest();
      this.pulses.set(entry.key, { token, expiresAt, from: nowMs, renewals: [] });
      return;
    }
    if (expiresAt > before.expiresAt + RENEW_SLACK_MS && Number.isFinite(expiresAt)) {
      before.renewals.push(nowMs);
      if (before.renewals.length > KEEP_RENEWALS) before.renewals.shift();
    }
    before.expiresAt = expiresAt;
  }

  /**
   * A read's locks (`ids` beside them) noted in order. Past the bound each new pulse evicts
   * the oldest, so of more new locks than the bound only the last `maxKeys` stay: the ones
   * before them are noted only where a pulse of theirs is kept (a first tick of 100k locks
   * made 90k pulses only to evict them, a twentieth of its time).
   */
  noteAll(entries: readonly LockEntry[], ids: readonly string[], scans: readonly NodeScan[], ownerOnly: boolean, nowMs: number): void {
    const from = entries.length - this.maxKeys;
    // With no pulse kept (a first tick), none of the locks before `from` has one to look up.
    for (let i = this.pulses.size === 0 ? Math.max(0, from) : 0; i < entries.length; i++) {
      if (i < from && !this.pulses.has(entries[i].key)) continue;
      this.note(entries[i], ids[i], scans, ownerOnly, nowMs);
    }
  }

  /**
   * Drops the oldest tenth of the pulses in one walk. One at a time, each eviction walked
   * from the map's front over the holes the ones before left: a first tick of 100k locks
   * spent 0.4 s here.
   */
  private evictOldest(): void {
    let drop = Math.max(1, Math.ceil(this.maxKeys / 10));
    for (const key of this.pulses.keys()) {
      this.pulses.delete(key);
      if (--drop === 0) break;
    }
  }

  /**
   * The judgement this read will give `key`, held by `token` under no named holder, where
   * it is known before the read is noted: a pulse that starts now (none kept, or another
   * token) says "never seen renewing" after no time watched, whatever the tick.
   */
  judgedAtBuild(key: string, token: string, noTtl: boolean): Liveness | undefined {
    const p = this.pulses.get(key);
    return p === undefined || p.token !== token ? noHolderLiveness(FRESH_PULSE, noTtl) : undefined;
  }

  /** Pulses kept: at most the bound given at construction. */
  get size(): number {
    return this.pulses.size;
  }

  /**
   * The instant time alone would turn `key`'s pulse from renewing to stopped (renewalOf:
   * a renewal missed); Infinity where time alone changes nothing: no pulse, a new token,
   * fewer than two renewals, or already stopped, where only a renewal (read anew) does.
   */
  stopsAt(key: string, token: string): number {
    const p = this.pulses.get(key);
    if (p === undefined || p.token !== token || p.renewals.length < 2) return Infinity;
    const last = p.renewals[p.renewals.length - 1];
    const every = renewalOf(p.renewals, p.from, last).everyMs;
    return every === null ? Infinity : last + MISSED_INTERVALS * every;
  }

  /** The renewal signal of `key` held by `token`, as of `nowMs`. */
  signal(key: string, token: string, nowMs: number): RenewalSignal {
    const p = this.pulses.get(key);
    // One value for every pulse that starts now: a first tick of 100k locks judged each by its own.
    if (p === undefined || p.token !== token || (p.from === nowMs && p.renewals.length === 0)) return FRESH_PULSE;
    return renewalOf(p.renewals, p.from, nowMs);
  }
}

/** A single read sees no pulse, and says so. */
const ONE_READ: RenewalSignal = Object.freeze({ state: 'one-read', lastMs: null, everyMs: null });

function deepFreeze<T>(o: T): T {
  if (o !== null && typeof o === 'object' && !Object.isFrozen(o)) {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

/** A held lock's judgement where its token names no holder, by renewal signal and then TTL. */
const noHolderJudgements = new Map<RenewalSignal, [Liveness | undefined, Liveness | undefined]>();

/**
 * The judgement of a held lock whose token names no holder, with the renewal signal `r`
 * that holds for every such lock (one read; a pulse just started). One frozen value per
 * signal and TTL for every such lock and read, so that classification can give it to the
 * entry it builds (inspect.ts) and the liveness stage finds it there: a snapshot of 100k
 * foreign locks copied each entry only to add it.
 */
function noHolderLiveness(r: RenewalSignal, noTtl: boolean): Liveness {
  let pair = noHolderJudgements.get(r);
  if (pair === undefined) noHolderJudgements.set(r, (pair = [undefined, undefined]));
  // The validity only words a stopped holder's suggestion: such a signal never says stopped.
  return (pair[noTtl ? 1 : 0] ??= deepFreeze(judgeLiveness({ connection: connectionSignal([], null, false), process: null, renewal: r, heldMs: null, validityMs: null, noTtl })));
}

/** A single read of a held lock whose token names no holder (see noHolderLiveness). */
export const oneReadLiveness = (noTtl: boolean): Liveness => noHolderLiveness(ONE_READ, noTtl);

/** A pulse started by this read: no renewal seen yet, watched for no time. */
const FRESH_PULSE: RenewalSignal = Object.freeze(renewalOf([], 0, 0));

/** What the nodes' CLIENT LISTs say of the holder `id`; `ours`: our core names every connection. */
export function connectionSignal(clients: readonly NodeClients[], id: string | null, ours: boolean): ConnectionSignal {
  if (id === null) return { state: 'unknown', reason: 'its token names no client to look for' };
  const asked = clients.filter((c) => c.names !== null);
  if (asked.length === 0) return { state: 'unknown', reason: reasonsText(clients) };
  let connectedOn = 0;
  let idleMs: number | null = null;
  for (const c of asked) {
    let on = false;
    for (const [name, idle] of c.names!) {
      if (!namesHolder(name, id)) continue;
      on = true;
      idleMs = idleMs === null ? idle : Math.min(idleMs, idle);
    }
    if (on) connectedOn++;
  }
  if (connectedOn > 0) return { state: 'connected', connectedOn, asked: asked.length, idleMs };
  if (ours) return { state: 'absent', asked: asked.length };
  return { state: 'unknown', reason: 'no connection names this holder (its client does not name its connections)' };
}

/**
 * `entries` judged: each held lock with its `liveness`, the rest without one. With `pulse`,
 * the renewal pulse a watcher saw; without, a single read's "no renewal seen". A new
 * array; an entry whose judgement is the same as before (`same`: by default word for
 * word) stands as it was.
 */
export async function judgeHolders(ctx: InspectContext, scans: readonly NodeScan[], entries: readonly LockEntry[], nowMs: number, pulse?: RenewalPulse, same: (a: Liveness, b: Liveness) => boolean = sameLiveness): Promise<LockEntry[]> {
  // Copied at its first replacement: a snapshot's classification already judged most of its locks (oneReadLiveness).
  let out: LockEntry[] | undefined;
  const replace = (i: number, e: LockEntry): void => void ((out ??= entries.slice())[i] = e);
  // Two walks, no list of the held: only whether a holder is named decides what to read first
  // (a held lock always has a quorum token: its copies are present).
  let named = false;
  for (let i = 0; i < entries.length && !named; i++) named = entries[i].verdict === 'held' && entries[i].holder != null;
  // CLIENT LIST can only name a holder a token identifies: without one, no node is asked.
  const clients = named ? await readClients(ctx, scans) : [];
  // One look at /proc per pid and run, however many locks its process holds.
  const processes = new Map<string, ProcessSignal | null>();
  // Locks with the same signals get the same verdict, worded once: a watch of 20,000
  // foreign locks without a holder identity judges one of them per renewal state (the
  // validity only words a stopped holder's suggestion, so it is judged apart there).
  const judged = new Map<string, Liveness>();
  const noHolder = connectionSignal(clients, null, false);
  // One look through the CLIENT LISTs per holder, however many locks it holds: a watch
  // judges its held locks every tick, and each look lowercased every connection's name.
  const signals = new Map<string, ConnectionSignal>();
  const signalOf = (id: string | null, ours: boolean): ConnectionSignal => {
    if (id === null) return connectionSignal(clients, null, ours);
    const k = `${ours ? 1 : 0}${id}`;
    let signal = signals.get(k);
    if (signal === undefined) signals.set(k, (signal = connectionSignal(clients, id, ours)));
    return signal;
  };
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    const token = e.verdict === 'held' ? quorumTokenOf(e) : null;
    if (token === null) {
      if (e.liveness !== undefined) replace(i, withLiveness(e, undefined));
      continue;
    }
    const h = e.holder ?? null;
    // A token that decodes to no holder names no client or process either (holderOf tries
    // our identity first): such locks share one judgement per renewal state.
    const ours = h?.library === 'redlock-inspector';
    const at = h === null ? '' : `${h.host} ${h.pid} ${h.since}`;
    if (h !== null && !processes.has(at)) processes.set(at, localProcessOf(h.host ?? null, h.pid ?? null, h.since ?? null));
    const c = h === null ? noHolder : signalOf(processOfCopies(e.nodes, token), ours);
    const r = pulse ? pulse.signal(e.key, token, nowMs) : ONE_READ;
    const heldMs = h?.since != null ? Math.max(0, nowMs - h.since) : null;
    const noTtl = e.flags.includes('no-ttl');
    // A lock without a holder read once, or whose pulse starts now: the value classification may have given it already.
    let l = h === null && (r === ONE_READ || r === FRESH_PULSE) ? noHolderLiveness(r, noTtl) : undefined;
    if (l === undefined) {
      const key = h === null
        ? `|${r.state}|${r.lastMs}|${r.everyMs}|${r.watchedMs ?? ''}|${noTtl}`
        : `${c.state}|${'reason' in c ? c.reason : ''}|${'connectedOn' in c ? c.connectedOn : ''}|${'asked' in c ? c.asked : ''}|${'idleMs' in c ? c.idleMs : ''}|${at}|${r.state}|${r.lastMs}|${r.everyMs}|${r.watchedMs ?? ''}|${heldMs}|${noTtl}`;
      l = judged.get(key);
      if (l === undefined || l.verdict === 'stopped-renewing') {
        const input: LivenessInput = { connection: c, process: h === null ? null : processes.get(at)!, renewal: r, heldMs, validityMs: e.validityMs, noTtl };
        l = judgeLiveness(input);
        judged.set(key, l);
      }
    }
    if (e.liveness === undefined || !same(e.liveness, l)) replace(i, withLiveness(e, l));
  }
  return out ?? entries.slice();
}

/** Two judgements that say the same (a watch judges its locks again each tick). */
function sameLiveness(a: Liveness, b: Liveness): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
