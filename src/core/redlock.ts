// The Redlock algorithm (redis.io distlock) over N independent nodes.
import './disposable';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { LockAbortedError, NodeAttempt, RedlockError } from './errors';
import { checkDistinct, createNodes, DeadlineError, describeFailure, FailureOutcome, lockRounds, NodeInput, NodeSetOptions, RedisNode, waitForQuorum } from './nodes';
import { acquireKeysOn, extendKeysOn, lockCommands, releaseKeysOn } from './scripts';
import { DEFAULT_PATTERNS, InspectContext, inspectNodes } from './inspect';
import { Watcher, WatchListener, WatchOptions } from './watch';
import { nodeFacts } from './facts';
import { quorumOf } from './classify';
import { DoctorOptions, DoctorReport, runDoctor } from './doctor';
import type { InspectOptions, InspectPage, NodeFacts } from './inspectTypes';
import type { ObservationState, Snapshot } from './types';
import { displayKey, displayToken, parseTokenArg } from './tokens';
import { encodeIdentity, IdentityOptions, tokenWithIdentity } from './holders';
import { entryDue, releaseWaitOn, waitAcquireOn, WaitState, waitState } from './waiters';
import { EventOptions, EventRecorder } from './events';
import { History, readHistory } from './history';
import { FenceRound, withRaiseFailures } from './fencing';
import { Cluster } from 'ioredis';
import { clusterMembers } from './clusterMembers';
import { LocalHandoff } from './localHandoff';
import { ownerOf, unreadMasters } from './clusterTopology';

export interface RedlockOptions extends NodeSetOptions, IdentityOptions {
  /** Record acquired / extended / released / lost / failed in a capped log per resource. */
  events?: boolean | EventOptions;
  /** Clock drift allowance as a fraction of the TTL (drift = ttl * driftFactor + 2 ms). */
  driftFactor?: number;
  retryCount?: number;
  retryDelayMs?: number;
  retryJitterMs?: number;
  /** Per-node deadline for one lock command; default derived from the TTL. */
  commandTimeoutMs?: number;
  /** Per-node deadline for one read (a SCAN page, a batch of key reads, facts); default 2,000 ms. */
  readTimeoutMs?: number;
}

export interface AcquireOptions {
  retryCount?: number;
  signal?: AbortSignal;
  /** Hand out a fencing token (`lock.fence`): one counter per resource, docs/fencing.md. */
  fencing?: boolean;
  /**
   * Called after each refused attempt that a retry follows, with every node's answer (a
   * refusal names the holder: one extra bounded GET per refusing node, only when set).
   */
  onAttempt?: (refused: { attempt: number; attempts: number; nodes: NodeAttempt[] }) => void;
}

export type Resource = string | Buffer;
export type ReleaseOutcome = 'released' | 'not-held' | 'refused' | 'unreachable';
/** One node's answer to a release; `pending` only in the early result, never in `settled`. */
export interface ReleaseNode {
  node: string;
  outcome: ReleaseOutcome | 'pending';
  reason?: string;
  /** Why a refused or unreachable node failed (`auth`: it wants a password), decided in replies.ts. */
  failure?: FailureOutcome;
}
export type ForceOutcome = 'deleted' | 'changed' | 'absent' | 'refused' | 'unreachable';

export interface ReleaseResult {
  /** Every node as known when the outcome became certain; unanswered nodes are `pending`. */
  nodes: ReleaseNode[];
  /** Every node's final outcome (never `pending`), once all answered or the deadline passed. */
  settled: Promise<Array<{ node: string; outcome: ReleaseOutcome; reason?: string; failure?: FailureOutcome }>>;
}

export interface ForceReleaseResult {
  nodes: Array<{ node: string; outcome: ForceOutcome; reason?: string }>;
}

/** What the user saw on one node; a snapshot's lock entry `nodes` fits. */
export interface ObservedCopy {
  node: string;
  token: string | null;
  /** A snapshot's observation state: a node that was `unreachable` when read is reported so. */
  state?: ObservationState;
  reason?: string | null;
}

const now = (): number => performance.now();

/**
 * Tokens are cut from a pool of random bytes refilled 4 KiB at a time: one randomBytes
 * call per 256 attempts instead of one each (~3% of a busy profile).
 */
const TOKEN_BYTES = 16;
let tokenPool = Buffer.alloc(0);
let tokenOffset = 0;
function newToken(): string {
  if (tokenOffset + TOKEN_BYTES > tokenPool.length) {
    tokenPool = randomBytes(256 * TOKEN_BYTES);
    tokenOffset = 0;
  }
  tokenOffset += TOKEN_BYTES;
  return tokenPool.toString('hex', tokenOffset - TOKEN_BYTES, tokenOffset);
}

const isGrant = (v: unknown): boolean => v === 'OK' || v === 0;
/** The extend script's success: {1, expiry before, expiry after, ...}. */
const extended = (v: unknown): boolean => Array.isArray(v) && v[0] === 1;

/** SET NX's nil or the acquire scripts' {index, holder}: that node wrote nothing. */
function refusedOutright(r: { ok: boolean; value?: unknown } | undefined): boolean {
  return r !== undefined && r.ok && (r.value === null || Array.isArray(r.value));
}

function countGranted(rs: ReadonlyArray<{ ok: boolean; value?: unknown } | undefined>): number {
  let n = 0;
  for (const r of rs) if (r?.ok && isGrant(r.value)) n++;
  return n;
}

export class Lock {
  constructor(
    /** Display form of the token (ours: 32 hex characters, then the holder identity, see holders.ts). */
    readonly token: string,
    readonly resources: string[],
    /** Validity at the moment of success, in ms. */
    readonly validityMs: number,
    readonly ttlMs: number,
    /** Every node's answer; a function runs on the first read (most callers never look). */
    settled: Promise<NodeAttempt[]> | (() => Promise<NodeAttempt[]>),
    /** @internal monotonic instant at which validity runs out */
    readonly deadline: number,
    /** @internal */
    readonly keys: Resource[],
    /** @internal the token as sent; our own hex tokens stay strings (ioredis' Buffer path costs) */
    readonly rawToken: Buffer | string,
    fences?: readonly number[],
  ) {
    this.settledSource = settled;
    // An unfenced lock has no fence property at all, not one set to undefined.
    if (fences !== undefined) {
      this.fences = fences;
      // Several resources have several sequences: no one number stands for them all.
      if (fences.length === 1) this.fence = fences[0];
    }
  }

  /** One fence per resource (in `resources` order) when taken with `{ fencing: true }`. */
  declare readonly fences?: readonly number[];

  /**
   * The fencing token of a single-resource lock taken with `{ fencing: true }`: strictly
   * greater than the fence of every earlier fenced acquisition of the resource on this
   * node set. Absent otherwise (several resources: see `fences`).
   */
  declare readonly fence?: number;

  private settledSource: Promise<NodeAttempt[]> | (() => Promise<NodeAttempt[]>);

  /** Every node's answer, once all answered or the per-node deadline passed. */
  get settled(): Promise<NodeAttempt[]> {
    if (typeof this.settledSource === 'function') this.settledSource = this.settledSource();
    return this.settledSource;
  }

  /** Validity left now, in whole ms (rounded down), 0 once passed. */
  get remainingMs(): number {
    return Math.max(0, Math.floor(this.deadline - now()));
  }

  /**
   * `await using lock = await redlock.acquire(...)` releases at scope exit. Never throws:
   * a lock that already expired or was released resolves `not-held`, and a node that does
   * not answer lets its copy expire with the TTL.
   */
  async [Symbol.asyncDispose](): Promise<void> {
    await owners.get(this)?.release(this);
  }

  /** Epoch ms at which the validity runs out (local clock). */
  get expiration(): number {
    return Date.now() + (this.deadline - now());
  }
}

/** The Redlock that made each lock, so the lock can release itself at scope exit. */
const owners = new WeakMap<Lock, Redlock>();

type Settled<T> = { ok: true; value: T } | { ok: false; outcome: FailureOutcome; reason: string; answered: boolean };

interface Round<T> {
  /** Resolves when all have answered, at the deadline, or once `decided` says the outcome is certain. */
  decided: Promise<Array<Settled<T> | undefined>>;
  /** Resolves when every node answered or the deadline passed (stragglers included). */
  settled: Promise<Array<Settled<T>>>;
}

/** Runs `call` on every node in parallel under one deadline timer. */
function round<T>(
  nodes: readonly RedisNode[],
  call: (node: RedisNode) => Promise<T>,
  deadlineMs: number,
  decided?: (results: ReadonlyArray<Settled<T> | undefined>, pending: number) => boolean,
): Round<T> {
  const results: Array<Settled<T> | undefined> = new Array(nodes.length);
  let pending = nodes.length;
  let resolveDecided!: (r: typeof results) => void;
  let resolveSettled!: (r: Array<Settled<T>>) => void;
  const out: Round<T> = {
    decided: new Promise((r) => (resolveDecided = r)),
    settled: new Promise((r) => (resolveSettled = r)),
  };
  let open = true;
  let undecided = true;
  const decide = (): void => {
    if (undecided) {
      undecided = false;
      lockRounds.undecided--;
    }
    resolveDecided(results);
  };
  const finish = (): void => {
    open = false;
    clearTimeout(timer);
    decide();
    resolveSettled(results as Array<Settled<T>>);
  };
  const timer = setTimeout(() => {
    for (let i = 0; i < results.length; i++) {
      if (!results[i]) results[i] = { ok: false, outcome: 'timeout', reason: new DeadlineError(deadlineMs).message, answered: false };
    }
    finish();
  }, deadlineMs);
  const settle = (i: number, r: Settled<T>): void => {
    if (!open) return;
    results[i] = r;
    pending--;
    if (pending === 0) finish();
    else if (undecided && decided?.(results, pending)) decide();
  };
  nodes.forEach((node, i) => {
    let p: Promise<T>;
    try {
      // A node just (re)connected counts once the server it reaches is known and distinct.
      if (node.identified) {
        node.cork();
        p = call(node);
      } else p = node.gate(deadlineMs).then(() => call(node));
    } catch (e) {
      p = Promise.reject(e);
    }
    node.inflight++;
    p.then(
      (value) => {
        node.settleOne();
        settle(i, { ok: true, value });
      },
      (err) => {
        node.settleOne();
        settle(i, { ok: false, ...describeFailure(err, node) });
      },
    );
  });
  // Counted after this round's own writes: cork() batches with other rounds only.
  lockRounds.undecided++;
  if (nodes.length === 0) finish();
  return out;
}

function splitBytes(buf: Buffer, sep: number): Buffer[] {
  const parts: Buffer[] = [];
  let from = 0;
  for (let i = buf.indexOf(sep); i >= 0; i = buf.indexOf(sep, from)) {
    parts.push(buf.subarray(from, i));
    from = i + 1;
  }
  parts.push(buf.subarray(from));
  return parts;
}

export function validateTtl(ttlMs: number): void {
  if (!Number.isInteger(ttlMs) || ttlMs < 1 || ttlMs > 2 ** 31 - 1) {
    throw new RangeError(`invalid TTL ${String(ttlMs)}: an integer number of ms from 1 to 2147483647`);
  }
}

function validateResources(resources: Resource[]): void {
  if (resources.length === 0) throw new RangeError('no resource given');
  for (const r of resources) if (r.length === 0) throw new RangeError('empty resource name');
}

export class Redlock {
  readonly nodes: RedisNode[];
  readonly quorum: number;
  readonly driftFactor: number;
  private readonly options: RedlockOptions;
  private connecting: Promise<void> | undefined;
  /** The identity part of every token this instance writes (holders.ts). */
  private readonly identity: string;
  private readonly events: EventRecorder | undefined;
  /** Locks this instance holds and retries sleeping out their delay (localHandoff.ts). */
  private readonly local = new LocalHandoff();
  /** Releases resolved early whose stragglers are still answering. */
  private readonly releasing = new Set<Promise<unknown>>();

  constructor(nodes: readonly NodeInput[], options: RedlockOptions = {}) {
    this.options = options;
    this.driftFactor = options.driftFactor ?? 0.01;
    this.nodes = createNodes(nodes, options);
    this.quorum = quorumOf(this.nodes.length);
    this.identity = encodeIdentity(options);
    this.events = options.events ? new EventRecorder(() => this.nodes.map((n) => ({ client: n.client, isCluster: n.isCluster })), options.events === true ? {} : options.events, options.commandTimeoutMs ?? 1000) : undefined;
    const wait = options.connectTimeoutMs ?? 2000;
    // A quorum of identified connections is enough to start: one frozen node must not
    // delay every call by the connect timeout; calls wait for the rest within their deadline.
    this.connecting = waitForQuorum(this.nodes, this.quorum, wait).then(() => {
      this.connecting = undefined;
    });
  }

  /**
   * The first calls after construction wait (bounded) for connections; every call rejects
   * (NodeConfigError) while two entries are known to reach one server. No round trip.
   */
  private async ready(): Promise<void> {
    if (this.connecting) await this.connecting;
    checkDistinct(this.nodes);
  }

  /** Why a node's identity rests on host:port only (the user may not run INFO), per node. */
  get warnings(): string[] {
    return this.nodes.flatMap((n) => (n.identityWarning ? [n.identityWarning] : []));
  }

  private deadlineFor(ttlMs: number): number {
    return this.options.commandTimeoutMs ?? Math.min(500, Math.max(50, Math.round(ttlMs / 20)));
  }

  private own(lock: Lock): Lock {
    owners.set(lock, this);
    return lock;
  }

  private drift(ttlMs: number): number {
    return Math.round(ttlMs * this.driftFactor) + 2;
  }

  async acquire(resource: Resource | Resource[], ttlMs: number, options: AcquireOptions = {}): Promise<Lock> {
    const keys = Array.isArray(resource) ? resource : [resource];
    validateResources(keys);
    validateTtl(ttlMs);
    const retries = options.retryCount ?? this.options.retryCount ?? 0;
    const signal = options.signal;
    if (this.connecting) await this.connecting;
    checkDistinct(this.nodes);
    let last: RedlockError | undefined;
    const delay = this.options.retryDelayMs ?? 200;
    const jitterMax = this.options.retryJitterMs ?? 100;
    // Only a call that will retry is a waiter; its entry exists from its first refusal
    // (made then, so an uncontended acquire builds nothing).
    let wait: WaitState | undefined;
    const waiting = retries > 0 ? (): WaitState => (wait ??= waitState(tokenWithIdentity(newToken(), Date.now(), this.identity), keys, delay, jitterMax, this.deadlineFor(ttlMs))) : undefined;
    // Queued from the first attempt, so a release during it is not missed.
    const sleeper = retries > 0 ? this.local.waiter(keys) : undefined;
    try {
      for (let attempt = 0; attempt <= retries; attempt++) {
        if (signal?.aborted) throw new LockAbortedError('acquire aborted');
        if (attempt > 0) {
          const jitter = Math.random() * jitterMax;
          await sleeper!.sleep(delay + jitter, signal);
          // Held by a lock of this instance within its validity: a quorum would refuse this
          // attempt, so it is counted refused without a round; only the waiter entry is
          // kept fresh. Never the last attempt (its error names every node's answer), nor
          // when the caller watches each node's answer.
          const w = wait as WaitState | undefined;
          if (attempt < retries && w?.listed && !options.onAttempt && this.local.holds(keys)) {
            await this.refreshWaiter(w, ttlMs);
            continue;
          }
        }
        const onRefused = options.onAttempt && ((nodes: NodeAttempt[]): void => options.onAttempt!({ attempt: attempt + 1, attempts: retries + 1, nodes }));
        const result = await this.attemptAcquire(keys, ttlMs, attempt + 1, attempt === retries, wait ?? (attempt < retries ? waiting : undefined), onRefused, options.fencing === true);
        if (result instanceof Lock) {
          this.local.hold(keys, result.rawToken, result.deadline);
          this.events?.record('acquired', keys, result.token);
          return result;
        }
        if (result) last = result;
      }
    } catch (e) {
      // Aborted while listed: take the entry off now rather than at its deadline.
      const w = wait as WaitState | undefined;
      if (w?.listed) void round(this.nodes, (node) => releaseWaitOn(node.client, [], '', w, false), this.deadlineFor(ttlMs)).settled;
      throw e;
    } finally {
      sleeper?.done();
    }
    throw last!;
  }

  /** Resolves undefined for a failed attempt that is not the last: a retry follows. */
  private async attemptAcquire(
    keys: Resource[],
    ttlMs: number,
    attempt: number,
    final: boolean,
    waiting?: WaitState | (() => WaitState),
    onRefused?: (nodes: NodeAttempt[]) => void,
    fencing = false,
  ): Promise<Lock | RedlockError | undefined> {
    const listed = typeof waiting === 'object' ? waiting : undefined;
    const token = tokenWithIdentity(newToken(), Date.now(), this.identity);
    const q = this.quorum;
    const px = String(ttlMs);
    const drift = this.drift(ttlMs);
    const start = now();
    const fence = fencing ? new FenceRound(this.nodes, keys) : undefined;
    const r = round(
      this.nodes,
      (node) => {
        if (fence) return fence.grant(node, token, px);
        if (listed?.listed && listed.keys.length > 0) return waitAcquireOn(node.client, keys, token, px, listed);
        if (keys.length === 1) return node.client.set(keys[0], token, 'PX', px, 'NX') as Promise<unknown>;
        return acquireKeysOn(node.client, keys, token, px);
      },
      this.deadlineFor(ttlMs),
      (rs, pending) => {
        const granted = countGranted(rs);
        return granted >= q || granted + pending < q;
      },
    );
    const results = await r.decided;
    let elapsed = now() - start;
    let validity = ttlMs - elapsed - drift;
    const shown = keys.map(displayKey);
    // A fence counts only once a quorum holds it, and inside the validity window like the grant.
    let raised: Awaited<ReturnType<FenceRound['raise']>> | undefined;
    if (fence && countGranted(results) >= q && validity > 0) {
      raised = await fence.raise(q, Math.min(this.deadlineFor(ttlMs), validity));
      elapsed = now() - start;
      validity = ttlMs - elapsed - drift;
    }
    if (countGranted(results) >= q && validity > 0 && raised?.ok !== false) {
      // Nodes whose grant did not take the waiter off still list it: unlist it there, after
      // the fact (a fenced grant runs the fence script, which knows nothing of waiters).
      if (listed && listed.keys.length > 0) void r.settled.then((all) => this.unlistWhereRefused(all, listed, fence !== undefined));
      const settled = (): Promise<NodeAttempt[]> => r.settled.then((all) => this.describeAcquire(keys, all));
      return this.own(new Lock(token, shown, Math.floor(validity), ttlMs, settled, start + ttlMs - drift, keys, token, raised?.fences));
    }
    // Some nodes may have granted without the reply arriving: undo on all of them. The
    // release goes out after the SET on each connection, so it also undoes a late one.
    // A retrying call is listed as a waiter by this same release (and unlisted when it gives up).
    const wait = typeof waiting === 'function' ? waiting() : waiting;
    const t = now();
    let undo: Round<number>;
    if (wait && wait.keys.length > 0 && (final ? wait.listed : entryDue(wait, t))) {
      undo = this.releaseAndWait(keys, token, ttlMs, wait, !final);
      if (!final) wait.writtenAt = t;
    } else {
      // A node that answered with the holder set nothing: only the others need undoing.
      const undoOn = fence ? this.nodes : this.nodes.filter((_, i) => !refusedOutright(results[i]));
      undo = round(undoOn, (node) => releaseKeysOn(node.client, keys, token), this.deadlineFor(ttlMs));
    }
    const [all] = await Promise.all([r.settled, undo.settled]);
    if (wait) wait.listed = !final;
    // Unless a caller shows progress, nobody reads why a retried attempt failed: skip
    // asking who holds the key.
    if (!final) {
      if (onRefused) onRefused(withRaiseFailures(await this.describeAcquire(keys, all), raised?.ok === false ? raised.failures : []));
      return undefined;
    }
    let attempts = await this.describeAcquire(keys, all);
    if (raised?.ok === false) attempts = withRaiseFailures(attempts, raised.failures);
    const detail = countGranted(results) >= q && raised?.ok !== false ? `validity used up (${Math.round(elapsed)} ms elapsed of a ${ttlMs} ms TTL)` : undefined;
    const error = new RedlockError('acquire', shown, q, attempts, detail, attempt);
    this.events?.record('failed', keys, token, error.message);
    return error;
  }

  /** Turns round results into per-node answers; a refused SET NX asks who holds the key. */
  private async describeAcquire(keys: Resource[], results: Array<Settled<unknown>>): Promise<NodeAttempt[]> {
    return this.named(keys, await Promise.all(
      this.nodes.map(async (node, i): Promise<NodeAttempt> => {
        const r = results[i];
        if (!r.ok) return { node: node.id, outcome: r.outcome, reason: r.reason, ...(r.answered ? { answered: true } : {}) };
        if (isGrant(r.value)) return { node: node.id, outcome: 'granted' };
        if (Array.isArray(r.value)) return { node: node.id, outcome: 'held-by-other', heldBy: displayToken(r.value[1] as Buffer) };
        // Plain SET NX refused: one bounded GET names the holder (informational only).
        const holder = await round([node], (n) => n.client.getBuffer(keys[0]), this.deadlineFor(1000)).settled;
        const h = holder[0];
        if (!h.ok && h.outcome === 'wrong-type') return { node: node.id, outcome: 'wrong-type', reason: h.reason, answered: true };
        return { node: node.id, outcome: 'held-by-other', heldBy: h.ok && h.value ? displayToken(h.value) : undefined };
      }),
    ));
  }

  /**
   * A cluster's answers name the master that owns the key, as status does, not the seed
   * list (every key of one call lives in one slot).
   */
  private named<T extends { node: string }>(keys: readonly Resource[], list: T[]): T[] {
    const client = this.nodes[0].client;
    if (!(client instanceof Cluster) || keys.length === 0) return list;
    const owner = ownerOf(client, keys[0]);
    return owner === undefined ? list : list.map((e) => ({ ...e, node: owner }));
  }

  /** Rewrites the waiter entry on every node when half its life is gone (waiters.ts). */
  private async refreshWaiter(wait: WaitState, ttlMs: number): Promise<void> {
    const t = now();
    if (wait.keys.length === 0 || !entryDue(wait, t)) return;
    wait.writtenAt = t;
    await round(this.nodes, (node) => releaseWaitOn(node.client, [], '', wait, true), this.deadlineFor(ttlMs)).settled;
  }

  private unlistWhereRefused(all: ReadonlyArray<Settled<unknown>>, wait: WaitState, everywhere: boolean): void {
    this.nodes.forEach((node, i) => {
      const x = all[i];
      if (everywhere || !(x.ok && isGrant(x.value))) void releaseWaitOn(node.client, [], '', wait, false).catch(() => undefined);
    });
  }

  private releaseAndWait(keys: Resource[], token: string, ttlMs: number, wait: WaitState, add: boolean): Round<number> {
    return round(this.nodes, (node) => releaseWaitOn(node.client, keys, token, wait, add), this.deadlineFor(ttlMs));
  }

  async extend(lock: Lock, ttlMs: number): Promise<Lock> {
    validateTtl(ttlMs);
    await this.ready();
    const q = this.quorum;
    const drift = this.drift(ttlMs);
    const start = now();
    const r = round(
      this.nodes,
      (node) => extendKeysOn(node.client, lock.keys, lock.rawToken, String(ttlMs)),
      this.deadlineFor(ttlMs),
      (rs, pending) => {
        let ok = 0;
        for (const x of rs) if (x?.ok && extended(x.value)) ok++;
        return ok >= q || ok + pending < q;
      },
    );
    const decided = await r.decided;
    const elapsed = now() - start;
    const validity = ttlMs - elapsed - drift;
    const describe = (all: ReadonlyArray<Settled<number | [number, Buffer] | number[]> | undefined>): NodeAttempt[] => this.named(lock.keys,
      this.nodes.map((node, i): NodeAttempt => {
        const x = all[i];
        if (!x) return { node: node.id, outcome: 'timeout', reason: 'no answer yet' };
        if (!x.ok) return { node: node.id, outcome: x.outcome, reason: x.reason, ...(x.answered ? { answered: true } : {}) };
        if (extended(x.value)) return { node: node.id, outcome: 'granted' };
        if (Array.isArray(x.value)) return { node: node.id, outcome: 'held-by-other', heldBy: displayToken(x.value[1] as Buffer) };
        if (x.value === -1) return { node: node.id, outcome: 'wrong-type' };
        return { node: node.id, outcome: 'not-held' };
      }));
    const granted = describe(decided).filter((a) => a.outcome === 'granted').length;
    if (granted >= q && validity > 0) {
      this.local.hold(lock.keys, lock.rawToken, start + ttlMs - drift);
      this.events?.record('extended', lock.keys, lock.token);
      return this.own(new Lock(lock.token, lock.resources, Math.floor(validity), ttlMs, () => r.settled.then(describe), start + ttlMs - drift, lock.keys, lock.rawToken, lock.fences));
    }
    const detail = granted >= q ? `validity used up (${Math.round(elapsed)} ms elapsed of a ${ttlMs} ms TTL)` : undefined;
    const all = await r.settled;
    await this.restoreExpiries(lock, all);
    throw new RedlockError('extend', lock.resources, q, describe(all), detail);
  }

  /**
   * A failed extend must not leave longer copies behind (a leftover copy extended by a
   * huge TTL would outlive everything): put back the expiry it replaced on each node that
   * extended, where nothing changed since (see RESTORE_EXPIRY in scripts.ts).
   */
  private async restoreExpiries(lock: Lock, results: ReadonlyArray<Settled<unknown>>): Promise<void> {
    const targets: RedisNode[] = [];
    const args: Array<Array<string | Buffer>> = [];
    this.nodes.forEach((node, i) => {
      const r = results[i];
      if (!r?.ok || !extended(r.value)) return;
      targets.push(node);
      args.push([...lock.keys, lock.rawToken, ...(r.value as number[]).slice(1).map(String)]);
    });
    if (targets.length === 0) return;
    await round(targets, (node) => lockCommands(node.client).rliRestoreExpiry(lock.keys.length, ...args[targets.indexOf(node)]), this.deadlineFor(lock.ttlMs)).settled;
  }

  async release(lock: Lock): Promise<ReleaseResult> {
    if (this.connecting) await this.connecting;
    checkDistinct(this.nodes);
    const q = this.quorum;
    // Resolves once the outcome is certain (docs/decisions.md): a quorum released, or too
    // few nodes left to reach one; the rest answer through `settled`.
    const r = round(this.nodes, (node) => releaseKeysOn(node.client, lock.keys, lock.rawToken), this.deadlineFor(lock.ttlMs), (rs, pending) => {
      let n = 0;
      for (const x of rs) if (x?.ok && x.value > 0) n++;
      return n >= q || n + pending < q;
    });
    // A retry of ours woken now writes its SET behind this compare-and-delete on each
    // connection already identified, so those nodes free the key before they see it.
    this.local.released(lock.keys, lock.rawToken);
    const describe = (results: ReadonlyArray<Settled<number> | undefined>): ReleaseNode[] =>
      this.named(lock.keys, this.nodes.map((node, i): ReleaseNode => {
        const x = results[i];
        if (!x) return { node: node.id, outcome: 'pending' };
        // A node that answered with a refusal (NOPERM, READONLY...) is not an outage.
        if (!x.ok) return { node: node.id, outcome: x.answered ? 'refused' : 'unreachable', reason: x.reason, failure: x.outcome };
        return { node: node.id, outcome: x.value > 0 ? 'released' : 'not-held' };
      }));
    // Stamped when the first node's delete is known, not when the slowest node answers:
    // a history must not list this release after the next holder's acquisition.
    let recorded = false;
    const recordReleased = (results: ReadonlyArray<Settled<number> | undefined>): void => {
      if (recorded || !results.some((x) => x?.ok && x.value > 0)) return;
      recorded = true;
      this.events?.record('released', lock.keys, lock.token);
    };
    const settled = r.settled.then((all) => {
      recordReleased(all);
      return describe(all) as Awaited<ReleaseResult['settled']>;
    });
    // quit() waits for these, so no compare-and-delete is cut off by a closing connection.
    this.releasing.add(settled);
    void settled.finally(() => this.releasing.delete(settled));
    const decided = await r.decided;
    recordReleased(decided);
    return { nodes: describe([...decided]), settled };
  }

  /**
   * Deletes `resource` only on the nodes that still hold the token observed there;
   * never a blind DEL. A node missing from `observed`, or observed without a token, is
   * left alone.
   */
  async forceRelease(resource: Resource, observed: readonly ObservedCopy[]): Promise<ForceReleaseResult> {
    validateResources([resource]);
    await this.ready();
    const byNode = new Map<string, string | null>();
    const unreached = new Map<string, string | undefined>();
    // A cluster snapshot names the owning master; it stands for the cluster node here.
    const [owner] = this.named([resource], [{ node: this.nodes[0].id }]);
    for (const o of observed) {
      const id = o.node === owner.node ? this.nodes[0].id : o.node;
      if (!this.nodes.some((n) => n.id === id)) throw new RangeError(`unknown node "${o.node}" in the observation`);
      byNode.set(id, o.token);
      if (o.state === 'unreachable') unreached.set(id, o.reason ?? undefined);
    }
    const targets = this.nodes.filter((n) => typeof byNode.get(n.id) === 'string');
    const results = await round(
      targets,
      (node) => {
        const whole = parseTokenArg(byNode.get(node.id)!);
        // Multi-holder formats (hashes, zsets) show their sorted holder ids joined by ','.
        const parts = splitBytes(whole, 0x2c);
        return lockCommands(node.client).rliForceRelease(1, resource, whole, ...parts);
      },
      this.options.commandTimeoutMs ?? 1000,
    ).settled;
    return {
      nodes: this.named([resource], this.nodes.map((node): ForceReleaseResult['nodes'][number] => {
        const i = targets.indexOf(node);
        // Left alone: nothing was observed there. A node that was out of reach when read
        // is not known to be empty, so it is not called absent.
        if (i < 0) return unreached.has(node.id) ? { node: node.id, outcome: 'unreachable' as const, reason: unreached.get(node.id) } : { node: node.id, outcome: 'absent' as const };
        const r = results[i];
        if (!r.ok) return { node: node.id, outcome: r.answered ? ('refused' as const) : ('unreachable' as const), reason: r.reason };
        return { node: node.id, outcome: r.value === 1 ? ('deleted' as const) : r.value === 0 ? ('absent' as const) : ('changed' as const) };
      })),
    };
  }

  /**
   * Runs `fn` while holding the lock, extending it before expiry. The signal aborts when an
   * extension fails or the validity deadline passes (even while an extension is in flight).
   */
  async using<T>(resource: Resource | Resource[], ttlMs: number, fn: (signal: AbortSignal, lock: Lock) => Promise<T>, options: AcquireOptions = {}): Promise<T> {
    let lock = await this.acquire(resource, ttlMs, options);
    const controller = new AbortController();
    let expiryTimer: NodeJS.Timeout | undefined;
    let extendTimer: NodeJS.Timeout | undefined;
    let stopped = false;
    // Recorded when the lease goes, not when fn returns: fn may throw or never notice.
    const lose = (why: unknown): void => {
      if (controller.signal.aborted) return;
      this.events?.record('lost', lock.keys, lock.token, why instanceof Error ? why.message : String(why));
      controller.abort(why);
    };
    const armExpiry = (): void => {
      clearTimeout(expiryTimer);
      expiryTimer = setTimeout(() => {
        lose(new LockAbortedError(`lease on ${lock.resources.join(', ')} expired before it could be extended`));
      }, lock.remainingMs);
    };
    const scheduleExtend = (): void => {
      extendTimer = setTimeout(async () => {
        try {
          const next = await this.extend(lock, ttlMs);
          if (stopped || controller.signal.aborted) return;
          lock = next;
          armExpiry();
          scheduleExtend();
        } catch (e) {
          if (!stopped) lose(e);
        }
      }, lock.remainingMs / 2);
    };
    armExpiry();
    scheduleExtend();
    try {
      return await fn(controller.signal, lock);
    } finally {
      stopped = true;
      clearTimeout(expiryTimer);
      clearTimeout(extendTimer);
      await this.release(lock);
    }
  }

  /**
   * A Lock for a token someone else holds (as shown: printable or `hex:`), so it can be
   * extended or released by compare-and-set on that token: the CLI's `--token`, or a
   * lock the user sees in a snapshot. `ttlMs` sets the per-node deadline of those calls.
   */
  lockFor(resource: Resource | Resource[], token: string, ttlMs = 10_000): Lock {
    const keys = Array.isArray(resource) ? resource : [resource];
    validateResources(keys);
    validateTtl(ttlMs);
    if (token.length === 0) throw new RangeError('empty token');
    const raw = parseTokenArg(token);
    return this.own(new Lock(displayToken(raw), keys.map(displayKey), 0, ttlMs, () => Promise.resolve([]), 0, keys, raw));
  }

  /** The document `status --json` prints. Reads only. */
  async inspect(options: InspectOptions = {}): Promise<Snapshot> {
    return (await this.inspectPage(options)).snapshot;
  }

  /** A snapshot plus the continuation of a truncated scan ("load more"). */
  async inspectPage(options: InspectOptions = {}): Promise<InspectPage> {
    await this.ready();
    return inspectNodes(this.readContext(), options);
  }

  /** Live watch: `snapshot` once, then `change` for what changed; stop() ends it. Reads only. */
  watch(options: WatchOptions, listener: WatchListener): Watcher {
    const watcher = new Watcher(() => {
      checkDistinct(this.nodes);
      return this.readContext();
    }, options, listener);
    // A refused node set surfaces through the first tick (listener.error), like any failure.
    void this.ready().catch(() => undefined).then(() => watcher.start());
    return watcher;
  }

  /**
   * Redis Cluster: the masters among `nodes` (a snapshot's or a watch status's) that did
   * not answer and own part of the keyspace `patterns` can reach; [] elsewhere. What
   * `inspectPage()` returns as `unread`, for a watch.
   */
  unreadKeyspace(nodes: ReadonlyArray<{ node: string; reachable: boolean }>, patterns: readonly string[] = DEFAULT_PATTERNS): string[] {
    const client = this.nodes[0].client;
    if (!(client instanceof Cluster)) return [];
    const ranges = new Map(clusterMembers(client).map((m) => [m.node.id, m.ranges]));
    const members = nodes.map((n) => ({ reachable: n.reachable, ranges: ranges.get(n.node) ?? [] }));
    return unreadMasters(patterns, members).map((i) => nodes[i].node);
  }

  /** Read paths see a cluster as its masters; everything else as configured. */
  private readContext(): InspectContext {
    const cluster = this.nodes[0].client instanceof Cluster ? this.nodes[0].client : undefined;
    const members = cluster ? clusterMembers(cluster) : undefined;
    return {
      nodes: members ? members.map((m) => m.node) : this.nodes,
      ownerOnly: members !== undefined,
      slotRanges: members?.map((m) => m.ranges),
      driftFactor: this.driftFactor,
      commandTimeoutMs: this.options.readTimeoutMs ?? 2000,
    };
  }

  /** Version, role, clock offset, persistence and restart risk per node. */
  async nodeFacts(longestTtlMs = 0): Promise<NodeFacts[]> {
    await this.ready();
    return Promise.all(this.readContext().nodes.map((n) => nodeFacts(n, longestTtlMs, this.options.readTimeoutMs ?? 2000)));
  }

  /** Deployment findings (replicas, eviction, persistence, clocks, permissions...). Reads only. */
  async doctor(options: DoctorOptions = {}): Promise<DoctorReport> {
    // Not ready(): two entries of one server are what the doctor reports (same-server),
    // not a reason to refuse the diagnosis.
    if (this.connecting) await this.connecting;
    return runDoctor({ ...this.readContext(), configured: this.nodes.length, quorum: this.quorum, deadlineFor: (ttl) => this.deadlineFor(ttl) }, options);
  }

  /** The resource's event log from every node, merged, newest first. Reads only. */
  async history(resource: Resource): Promise<History> {
    validateResources([resource]);
    await this.ready();
    // A cluster client routes the key to its master itself: one vote, as for inspect.
    const nodes = this.nodes[0].isCluster ? [this.nodes[0]] : this.nodes;
    return readHistory(nodes, this.nodes[0].isCluster ? 1 : this.quorum, this.options.readTimeoutMs ?? 2000, resource);
  }

  async quit(): Promise<void> {
    // In-flight releases first: their `released` events go out before the flush below.
    await Promise.all(this.releasing);
    await this.events?.flush();
    // A call's deadline does not cancel its commands: a SET that answers after the round
    // gave up, or a compare-and-delete still on its way, must land before the connection
    // closes, or it could leave a copy behind (bounded: a dead node never answers).
    await Promise.all(this.nodes.map((n) => n.drained(2000)));
    await Promise.all(this.nodes.map((n) => n.close()));
  }
}
