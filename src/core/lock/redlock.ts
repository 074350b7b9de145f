// The Redlock algorithm (redis.io distlock) over N independent nodes.
import { LockAbortedError, NodeAttempt, RedlockError } from './errors';
import type { NodeInput, RedisNode } from '../connection/nodes';
import { NodeSet } from '../connection/nodeSet';
import { acquireKeysOn, extendKeysOn } from './writeScripts';
import { grantOn, releaseOn } from './writeBatch';
import { runHolding } from './using';
import { describeAcquireOn, describeExtendOn, describeReleaseOn, ExtendReply, namedByOwner } from './answers';
import { type Resource, validateResources } from '../vocabulary/resource';
import { displayKey } from '../vocabulary/tokens';
import { CONNECTION_NAME, encodeIdentity, tokenWithIdentity } from '../bookkeeping/holderIdentity';
import { entryDue, releaseWaitOn, waitAcquireOn, WaitState, waitState } from '../bookkeeping/waiters';
import { EventRecorder } from '../bookkeeping/events';
import { FenceRound, withRaiseFailures } from './fencing';
import { LocalHandoff, NODE_CHECK_MS, RetryWaiter } from './localHandoff';
import { Lock, lockForToken } from './lock';
import { countGranted, extended, isGrant, now, refusedOutright, Round, round, Settled } from './round';
import { newToken } from './tokenPool';
import { forceReleaseOn } from './forceRelease';
import { restoreExpiriesOn } from './restoreExpiries';
import { requireScripting } from './writeSupport';
import { AcquireAttempt, AcquireOptions, ForceReleaseResult, ObservedCopy, RedlockOptions, ReleaseNode, ReleaseResult, validateTtl } from './options';
export { validateTtl } from './options';

export { Lock } from './lock';
export type { LockInit } from './lock';
export type { RedlockOptions, AcquireOptions, ReleaseOutcome, ReleaseNode, ForceOutcome, ReleaseResult, ForceReleaseResult, ObservedCopy } from './options';
export type { Resource } from '../vocabulary/resource';


export class Redlock {
  /** The nodes, quorum and deadlines this engine writes through; `LockReader` reads over the same. */
  readonly nodeSet: NodeSet;
  private readonly options: RedlockOptions;
  /** The identity part of every token this instance writes (bookkeeping/holderIdentity.ts). */
  private readonly identity: string;
  private readonly events: EventRecorder | undefined;
  /** Locks this instance holds and retries sleeping out their delay (localHandoff.ts). */
  private readonly local = new LocalHandoff();
  /** Releases resolved early whose stragglers are still answering. */
  private readonly releasing = new Set<Promise<unknown>>();

  constructor(nodes: readonly NodeInput[], options: RedlockOptions = {}) {
    this.options = options;
    this.nodeSet = new NodeSet(nodes, { ...options, connectionName: CONNECTION_NAME });
    this.identity = encodeIdentity(options);
    this.events = options.events ? new EventRecorder(() => this.nodes.map((n) => ({ client: n.client, isCluster: n.isCluster })), options.events === true ? {} : options.events, options.commandTimeoutMs ?? 1000) : undefined;
  }

  get nodes(): RedisNode[] {
    return this.nodeSet.nodes;
  }

  get quorum(): number {
    return this.nodeSet.quorum;
  }

  get driftFactor(): number {
    return this.nodeSet.driftFactor;
  }

  /** Why a node's identity rests on host:port only (the user may not run INFO), per node. */
  get warnings(): string[] {
    return this.nodeSet.warnings;
  }

  private deadlineFor(ttlMs: number): number {
    return this.nodeSet.writeDeadline(ttlMs);
  }

  /** Refuses a write no node can serve safely; a promise only while some probe is unanswered (writeSupport.ts). */
  private writable(operation: string, deadlineMs: number): Promise<void> | undefined {
    return requireScripting(this.nodes, operation, this.quorum, deadlineMs, this.options.commandTimeoutMs ?? 1000);
  }

  private drift = (ttlMs: number): number => Math.round(ttlMs * this.driftFactor) + 2;

  async acquire(resource: Resource | Resource[], ttlMs: number, options: AcquireOptions = {}): Promise<Lock> {
    const keys = Array.isArray(resource) ? resource : [resource];
    validateResources(keys);
    validateTtl(ttlMs);
    const retries = options.retryCount ?? this.options.retryCount ?? 0;
    const signal = options.signal;
    // No await once connected: an uncontended call pays no extra turn (sequential throughput).
    const connecting = this.nodeSet.connected();
    if (connecting) await connecting;
    this.nodeSet.checkDistinct();
    const scripting = this.writable('acquire', this.deadlineFor(ttlMs));
    if (scripting) await scripting;
    let last: RedlockError | undefined;
    const delay = this.options.retryDelayMs ?? 200;
    const jitterMax = this.options.retryJitterMs ?? 100;
    // Only a call that will retry is a waiter; its entry exists from its first refusal
    // (made then, so an uncontended acquire builds nothing).
    let wait: WaitState | undefined;
    const waiting = retries > 0 ? (): WaitState => (wait ??= waitState(tokenWithIdentity(newToken(), Date.now(), this.identity), keys, delay, jitterMax, this.deadlineFor(ttlMs))) : undefined;
    // A call of this instance holds or waits for one of the keys: the first attempt will
    // meet a holder, so it is sent as a grant-or-list (one command where a refusal and its
    // listing cost two rounds). Only then: an uncontended acquire still sends a plain SET.
    const meetsHolder = retries > 0 && options.fencing !== true && this.local.contended(keys);
    // Queued once its first attempt was refused (an uncontended call builds nothing); a
    // release during that attempt is not missed: it changed the instance's release count,
    // and the first retry then goes at once.
    let sleeper: RetryWaiter | undefined;
    const releasesBefore = this.local.releases;
    // When the first attempt was refused: a grant after it recorded how long it waited.
    let refusedAt: number | undefined;
    let askedAt = -Infinity; // monotonic instant of this call's last round
    try {
      for (let attempt = 0; attempt <= retries; attempt++) {
        if (signal?.aborted) throw new LockAbortedError('acquire aborted');
        // Taken here and the line moving faster than the delay: the first attempt could
        // only be refused, so the call queues at once behind the others (localHandoff.ts
        // `joinsLine`). Not when the caller watches each answer: its first names the nodes.
        if (attempt === 0 && retries > 0 && !options.onAttempt && options.fencing !== true && this.local.joinsLine(keys, delay)) {
          refusedAt = Date.now();
          continue;
        }
        if (attempt > 0) {
          const jitter = Math.random() * jitterMax;
          sleeper ??= this.local.waiter(keys, this.local.releases !== releasesBefore);
          await sleeper.sleep(delay + jitter, signal);
          // Held by a lock of this instance, unreleased in this process: a quorum would refuse,
          // so the attempt is counted refused without a round (the waiter entry kept fresh).
          // Never the last attempt (its error names every node's answer), nor when the caller
          // watches each answer, nor over NODE_CHECK_MS after the last round (localHandoff.ts).
          const w = wait as WaitState | undefined;
          if (attempt < retries && w?.listed && !options.onAttempt && now() - askedAt < NODE_CHECK_MS && sleeper.busy()) {
            refusedAt ??= Date.now();
            await this.refreshWaiter(w, ttlMs);
            continue;
          }
        }
        const onRefused = options.onAttempt && ((nodes: NodeAttempt[]): void => options.onAttempt!({ attempt: attempt + 1, attempts: retries + 1, nodes }));
        // A call that joined the line unasked and whose delay ran out before a release woke
        // it still meets a holder: its first round is the grant-or-list too.
        const list = askedAt === -Infinity && (attempt === 0 ? meetsHolder : meetsHolder && sleeper?.busy() === true);
        askedAt = now();
        const result = await this.attemptAcquire({ keys, ttlMs, attempt: attempt + 1, final: attempt === retries, waiting: wait ?? (attempt < retries ? waiting : undefined), onRefused, fencing: options.fencing === true, refusedAt, list });
        sleeper?.attempted();
        if (result instanceof Lock) {
          this.local.hold(keys, result, result.deadline);
          this.events?.record('acquired', keys, result.token, { ttlMs, validityMs: result.validityMs, fence: result.fence, waitMs: refusedAt === undefined ? undefined : Date.now() - refusedAt });
          return result;
        }
        refusedAt ??= Date.now();
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
  private async attemptAcquire({ keys, ttlMs, attempt, final, waiting, onRefused, fencing, refusedAt, list }: AcquireAttempt): Promise<Lock | RedlockError | undefined> {
    const made = list === true && typeof waiting === 'function' ? waiting() : undefined;
    const listing = made && made.keys.length > 0 ? made : undefined;
    const listed = listing ?? (typeof waiting === 'object' ? waiting : undefined);
    const token = tokenWithIdentity(newToken(), Date.now(), this.identity);
    const q = this.quorum;
    const px = String(ttlMs);
    const drift = this.drift(ttlMs);
    const start = now();
    const fence = fencing ? new FenceRound(this.nodes, keys) : undefined;
    const waitListed = listed?.listed === true && listed.keys.length > 0 ? listed : undefined;
    // The single-key grants (grantOn, and fence.grant's) join the tick's batch; any other flushes it first.
    const batchedGrant = keys.length === 1 && (fence !== undefined || (!listing && !waitListed));
    const r = round(
      this.nodes,
      (node) => {
        if (fence) return fence.grant(node, token, px);
        if (listing) return waitAcquireOn(node.client, keys, token, px, listing, true);
        if (waitListed) return waitAcquireOn(node.client, keys, token, px, waitListed);
        if (keys.length === 1) return grantOn(node.client, keys[0], token, px);
        return acquireKeysOn(node.client, keys, token, px);
      },
      this.deadlineFor(ttlMs),
      (rs, pending) => {
        const granted = countGranted(rs);
        return granted >= q || granted + pending < q;
      },
      batchedGrant,
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
      return new Lock({ token, resources: shown, validityMs: Math.floor(validity), ttlMs, settled, deadline: start + ttlMs - drift, keys, rawToken: token, fences: raised?.fences, owner: this });
    }
    // Some nodes may have granted without the reply arriving: undo on all of them. The
    // release goes out after the SET on each connection, so it also undoes a late one.
    // A retrying call is listed as a waiter by this same release (and unlisted when it gives up).
    const wait = typeof waiting === 'function' ? waiting() : waiting;
    // Listed by the refusal itself where the nodes refused (a node that granted part of it
    // took the entry off and is undone below): the entry is fresh.
    if (listing) {
      listing.listed = true;
      listing.writtenAt = start;
    }
    const t = now();
    let undone: Promise<unknown>;
    const undoOn = (nodes: readonly RedisNode[]): Promise<unknown> => round(nodes, (node) => releaseOn(node.client, keys, token), this.deadlineFor(ttlMs), undefined, true).settled;
    if (wait && wait.keys.length > 0 && (final ? wait.listed : entryDue(wait, t))) {
      undone = this.releaseAndWait(keys, token, ttlMs, wait, !final).settled;
      if (!final) wait.writtenAt = t;
    } else if (fence) {
      undone = undoOn(this.nodes);
    } else {
      // A node that answered with the holder set nothing: only the others need undoing,
      // once each has answered (this call waits for them anyway; an undo sent later still
      // follows the grant on the node's connection, so it also undoes a late one).
      undone = r.settled.then((all) => undoOn(this.nodes.filter((_, i) => !refusedOutright(all[i]))));
    }
    const [all] = await Promise.all([r.settled, undone]);
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
    this.events?.record('failed', keys, token, { reason: error.message, waitMs: refusedAt === undefined ? undefined : Date.now() - refusedAt });
    return error;
  }

  /** Turns round results into per-node answers; a refused SET NX asks who holds the key. */
  private describeAcquire(keys: Resource[], results: Array<Settled<unknown>>): Promise<NodeAttempt[]> {
    return describeAcquireOn(this.nodes, keys, results, this.deadlineFor(1000));
  }

  /** A cluster's answers name the master that owns the key (answers.ts). */
  private named<T extends { node: string }>(keys: readonly Resource[], list: T[]): T[] {
    return namedByOwner(this.nodes, keys, list);
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
    await this.nodeSet.ready();
    const scripting = this.writable('extend', this.deadlineFor(ttlMs));
    if (scripting) await scripting;
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
    const describe = (all: ReadonlyArray<Settled<ExtendReply> | undefined>): NodeAttempt[] => describeExtendOn(this.nodes, lock.keys, all);
    const granted = describe(decided).filter((a) => a.outcome === 'granted').length;
    if (granted >= q && validity > 0) {
      this.local.hold(lock.keys, lock, start + ttlMs - drift);
      this.events?.record('extended', lock.keys, lock.token, { ttlMs, validityMs: validity });
      return new Lock({ token: lock.token, resources: lock.resources, validityMs: Math.floor(validity), ttlMs, settled: () => r.settled.then(describe), deadline: start + ttlMs - drift, keys: lock.keys, rawToken: lock.rawToken, fences: lock.fences, owner: this });
    }
    const detail = granted >= q ? `validity used up (${Math.round(elapsed)} ms elapsed of a ${ttlMs} ms TTL)` : undefined;
    const all = await r.settled;
    await restoreExpiriesOn(this.nodes, lock, all, this.deadlineFor(lock.ttlMs));
    const error = new RedlockError('extend', lock.resources, q, describe(all), detail);
    // The evidence of a holder that worked past its lease (docs/audit.md).
    this.events?.record('failed', lock.keys, lock.token, { operation: 'extend', reason: error.message });
    throw error;
  }

  async release(lock: Lock): Promise<ReleaseResult> {
    // No await once connected: an uncontended call pays no extra turn (sequential throughput).
    const connecting = this.nodeSet.connected();
    if (connecting) await connecting;
    this.nodeSet.checkDistinct();
    const scripting = this.writable('release', this.deadlineFor(lock.ttlMs));
    if (scripting) await scripting;
    const q = this.quorum;
    // A retry of ours is about to be woken: its grant leaves in the same writev as this
    // compare-and-delete on each node (one socket write instead of two per handoff).
    if (this.local.awaited(lock.keys)) for (const node of this.nodes) node.corkTurn();
    // Resolves once the outcome is certain (docs/decisions.md): a quorum released, or too
    // few nodes left to reach one; the rest answer through `settled`.
    const r = round(
      this.nodes,
      (node) => releaseOn(node.client, lock.keys, lock.rawToken),
      this.deadlineFor(lock.ttlMs),
      (rs, pending) => {
        let n = 0;
        for (const x of rs) if (x?.ok && x.value > 0) n++;
        return n >= q || n + pending < q;
      },
      true,
    );
    // A retry of ours woken now writes its SET behind this compare-and-delete on each
    // connection already identified, so those nodes free the key before they see it.
    this.local.releasedLock(lock);
    const describe = (results: ReadonlyArray<Settled<number> | undefined>): ReleaseNode[] => describeReleaseOn(this.nodes, lock.keys, results);
    const events = this.events;
    if (events === undefined) {
      // Nothing to record, and quit() waits for the stragglers through NodeSet.close():
      // a release needs no tracking of its own (docs/decisions.md, "Lock round costs").
      const decided = await r.decided;
      return { nodes: describe(decided), settled: r.settled.then(describe) as ReleaseResult['settled'] };
    }
    // Stamped when the first node's delete is known, not when the slowest node answers:
    // a history must not list this release after the next holder's acquisition.
    let recorded = false;
    const recordReleased = (results: ReadonlyArray<Settled<number> | undefined>): void => {
      if (recorded || !results.some((x) => x?.ok && x.value > 0)) return;
      recorded = true;
      events.record('released', lock.keys, lock.token);
    };
    const settled = r.settled.then((all) => {
      recordReleased(all);
      // A quorum said the token was gone already: the holder released after its lease
      // (expired, or taken by another): the evidence the audit needs (docs/audit.md).
      if (!recorded && all.filter((x) => x.ok && x.value === 0).length >= q) {
        recorded = true;
        events.record('released', lock.keys, lock.token, { held: false });
      }
      return describe(all) as Awaited<ReleaseResult['settled']>;
    });
    // quit() waits for these, so every release's events go out before the log is flushed.
    this.releasing.add(settled);
    void settled.finally(() => this.releasing.delete(settled));
    const decided = await r.decided;
    recordReleased(decided);
    return { nodes: describe(decided), settled };
  }

  /**
   * Deletes `resource` only on the nodes that still hold the token observed there;
   * never a blind DEL. A node missing from `observed`, or observed without a token, is
   * left alone.
   */
  async forceRelease(resource: Resource, observed: readonly ObservedCopy[]): Promise<ForceReleaseResult> {
    validateResources([resource]);
    await this.nodeSet.ready();
    const scripting = this.writable('force-release', this.options.commandTimeoutMs ?? 1000);
    if (scripting) await scripting;
    const result = await forceReleaseOn({ nodes: this.nodes, named: (keys, list) => this.named(keys, list), timeoutMs: this.options.commandTimeoutMs ?? 1000 }, resource, observed);
    // In the history as what it was: the holder's token deleted by someone else (each
    // token deleted somewhere, a split's two included), not the holder's own release.
    const deleted = new Set(result.nodes.flatMap((n) => (n.outcome === 'deleted' ? [observed.find((o) => o.node === n.node)?.token ?? null] : [])));
    for (const token of deleted) if (token !== null) this.events?.record('released', [resource], token, { forced: true });
    return result;
  }

  /**
   * Runs `fn` while holding the lock, extending it before expiry. The signal aborts when an
   * extension fails or the validity deadline passes (even while an extension is in flight).
   */
  async using<T>(resource: Resource | Resource[], ttlMs: number, fn: (signal: AbortSignal, lock: Lock) => Promise<T>, options: AcquireOptions = {}): Promise<T> {
    return runHolding(this, (lock, why) => this.events?.record('lost', lock.keys, lock.token, { reason: why }), resource, ttlMs, fn, options);
  }

  /**
   * A Lock for a token someone else holds (as shown: printable or `hex:`), so it can be
   * extended or released by compare-and-set on that token: the CLI's `--token`, or a
   * lock the user sees in a snapshot. `ttlMs` sets the per-node deadline of those calls.
   */
  lockFor(resource: Resource | Resource[], token: string, ttlMs = 10_000): Lock {
    return lockForToken(resource, token, ttlMs, this);
  }

  async quit(): Promise<void> {
    // In-flight releases first: their `released` events go out before the flush below.
    await Promise.all(this.releasing);
    await this.events?.flush();
    await this.nodeSet.close();
  }
}
