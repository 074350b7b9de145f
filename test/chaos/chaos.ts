// The chaos engine: N real redis-server nodes, C Redlock clients contending
// through the core's using() (auto-extension) over R resources, while a fault driver
// SIGSTOPs nodes (< TTL/2), kills and restarts them (after the longest TTL unless told
// otherwise), makes them sleep (DEBUG SLEEP) and drops their client connections
// (CLIENT KILL TYPE normal), never more than a minority at once.
//
// All clients live in this one process, so one monotonic clock (performance.now(), the
// clock the core's Lock deadlines use) records when each holder believed it held its
// lock: from the instant acquire() resolved (or an adopted extension resolved) to the end
// of the validity that call gave it, cut at the moment the holder stopped (its function
// returned or its signal aborted, both before the release goes out). Overlaps between
// two holders of one resource are then counted exactly, pair by pair.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { Lock, Redlock, RedlockError } from '../../src/core';
import { READ_EVENTS } from '../../src/core/bookkeeping/events';
import { RedisServer, startNodes } from '../../src/dev/redisServer';
import { execFile } from 'node:child_process';
import { join } from 'node:path';

export type FaultKind = 'pause' | 'kill' | 'sleep' | 'clientKill';
export const FAULT_KINDS: readonly FaultKind[] = ['pause', 'kill', 'sleep', 'clientKill'];

export interface ChaosOptions {
  /** Nodes to start (default 5); ignored when `servers` is given. */
  nodes?: number;
  /** Already running nodes (left running afterwards); default: started and disposed here. */
  servers?: RedisServer[];
  clients?: number;
  resources?: number;
  /** How long the clients contend, at least. */
  durationMs: number;
  /**
   * The run goes on past durationMs, up to maxDurationMs, until this holds: a run's
   * claims need an amount of work, and a slow or busy machine does less in the same time.
   */
  enough?: (r: Readonly<ChaosResult>) => boolean;
  maxDurationMs?: number;
  /** Each hold picks its TTL uniformly in [ttlMinMs, ttlMaxMs]. */
  ttlMinMs?: number;
  ttlMaxMs?: number;
  /** Per-node deadline of one lock command (the core's commandTimeoutMs). */
  commandTimeoutMs?: number;
  /** How long a holder works while holding (it stops early when its signal aborts). */
  holdMinMs?: number;
  holdMaxMs?: number;
  /** Pause between two attempts of one client. */
  idleMaxMs?: number;
  faultKinds?: readonly FaultKind[];
  /** A new fault is considered every [min, max] ms. */
  faultEveryMinMs?: number;
  faultEveryMaxMs?: number;
  /** Most nodes faulty at once; default the largest minority, floor((N - 1) / 2). */
  maxFaulty?: number;
  /**
   * true (the spec): a killed node comes back only after the longest TTL has passed.
   * false: it comes back (empty) at once, which the algorithm does not allow.
   */
  delayedRestart?: boolean;
  /** Allowance over the computed deadlines for the event loop (ms). */
  slackMs?: number;
  /** Seed of the workload and fault randomness (printed, so a run can be replayed). */
  seed?: number;
  prefix?: string;
  log?: (line: string) => void;
  /** Every other client (the even ones) takes its locks with { fencing: true }; default true. */
  fencing?: boolean;
  /**
   * Nodes started here persist every write (AOF, fsync always), so a killed node comes
   * back with its fence counters; default: with delayed restarts. Without it, each
   * restart wipes a node's counters, and a fence may repeat once a quorum has lost the
   * last one (docs/fencing.md).
   */
  persistence?: boolean;
  /**
   * Every client records its events, and the run ends with the CLI's `audit --json` over
   * everything it did: each finding is a violation (docs/audit.md). Off by default: the
   * event writes add load the short run's deadlines are not measured with.
   */
  audit?: boolean;
}

export interface Interval {
  resource: number;
  hold: number;
  client: number;
  start: number;
  end: number;
}

export interface Overlap {
  resource: string;
  a: Interval;
  b: Interval;
  ms: number;
}

export interface ChaosResult {
  seed: number;
  durationMs: number;
  nodes: number;
  clients: number;
  resources: number;
  attempts: number;
  acquisitions: number;
  /** Acquire attempts refused (RedlockError): held elsewhere or no quorum reachable. */
  refusals: number;
  extensions: number;
  extensionFailures: number;
  /** Holds that ended because their signal aborted (an extension failed or the validity ran out). */
  aborted: number;
  releases: number;
  /** Anything other than a RedlockError from the core: always a violation. */
  unexpectedErrors: string[];
  faults: Record<FaultKind, number>;
  maxFaultyAtOnce: number;
  /** Restarts that came back before the longest TTL had passed since the kill. */
  earlyRestarts: number;
  intervals: number;
  overlaps: Overlap[];
  fencedAcquisitions: number;
  /** Fenced acquisitions whose fence was not above every earlier fence of the resource. */
  fencesOutOfOrder: number;
  /** The acquire deadline of a fenced call: one more round (the raise) than a plain one. */
  fencedAcquireDeadlineMs: number;
  /** Keys found on a node once the longest TTL had passed after the clients stopped. */
  leftovers: string[];
  acquireDeadlineMs: number;
  releaseDeadlineMs: number;
  maxAcquireMs: number;
  maxReleaseMs: number;
  /** Calls over their deadline once the event-loop stalls during the call are taken out. */
  acquireOverruns: number;
  releaseOverruns: number;
  /** The same latencies less the stalls of this process's event loop during each call. */
  maxAcquireAdjustedMs: number;
  maxReleaseAdjustedMs: number;
  /** Calls over their deadline in raw wall time (reported, not a violation by itself). */
  acquireRawOverruns: number;
  releaseRawOverruns: number;
  eventLoopMaxDelayMs: number;
  /** Every broken invariant, in words; empty on a clean run. */
  violations: string[];
  /** With `audit`: the findings of `audit --json` over the run, one line each. */
  auditFindings: string[];
  /** With `audit`: whether the event logs still held the whole run (false: the audit covered its later part). */
  auditComplete: boolean | null;
}

/** mulberry32: small, fast, good enough for workload choices. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const now = (): number => performance.now();

/** A wait that is part of the workload or the fault schedule (never a synchronisation). */
function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

interface Hold {
  id: number;
  client: number;
  resource: number;
  /** Validity segments [from success, to its deadline]. */
  segments: Array<[number, number]>;
  signal?: AbortSignal;
  /** The holder stopped believing: fn returned or its signal aborted. */
  stoppedAt?: number;
  /** The fence a fenced acquisition was given. */
  fence?: number;
}

/**
 * Fences out of order: per resource, in the order the acquisitions succeeded, each fence
 * must exceed every earlier one. Holds never overlap (checked separately), so that order
 * is the order in which the locks were held.
 */
export function fencesOutOfOrder(holds: ReadonlyArray<{ resource: number; fence?: number; start?: number }>): number {
  const byResource = new Map<number, Array<{ fence: number; start: number }>>();
  for (const h of holds) {
    if (h.fence === undefined || h.start === undefined) continue;
    const list = byResource.get(h.resource) ?? [];
    list.push({ fence: h.fence, start: h.start });
    byResource.set(h.resource, list);
  }
  let bad = 0;
  for (const list of byResource.values()) {
    list.sort((a, b) => a.start - b.start);
    let max = 0;
    for (const x of list) {
      if (x.fence <= max) bad++;
      max = Math.max(max, x.fence);
    }
  }
  return bad;
}

/** Exact pairwise overlap count over every resource (intervals of distinct holds). */
export function findOverlaps(intervals: Interval[], name: (r: number) => string): Overlap[] {
  const out: Overlap[] = [];
  const byResource = new Map<number, Interval[]>();
  for (const i of intervals) {
    if (i.end <= i.start) continue;
    const list = byResource.get(i.resource) ?? [];
    list.push(i);
    byResource.set(i.resource, list);
  }
  for (const [r, list] of byResource) {
    list.sort((x, y) => x.start - y.start);
    const active: Interval[] = [];
    for (const cur of list) {
      for (let k = active.length - 1; k >= 0; k--) if (active[k].end <= cur.start) active.splice(k, 1);
      for (const other of active) {
        if (other.hold !== cur.hold) out.push({ resource: name(r), a: other, b: cur, ms: Math.min(other.end, cur.end) - cur.start });
      }
      active.push(cur);
    }
  }
  return out;
}

export async function runChaos(options: ChaosOptions): Promise<ChaosResult> {
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  const rand = prng(seed);
  const between = (a: number, b: number): number => a + rand() * (b - a);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const log = options.log ?? (() => undefined);

  const ownServers = !options.servers;
  const persist = options.persistence ?? options.delayedRestart ?? true;
  const servers = options.servers ?? (await startNodes(options.nodes ?? 5, persist ? { args: ['--appendonly', 'yes', '--appendfsync', 'always'] } : {}));
  const n = servers.length;
  const clientCount = options.clients ?? 16;
  const resourceCount = options.resources ?? 8;
  const ttlMin = options.ttlMinMs ?? 1000;
  const ttlMax = options.ttlMaxMs ?? 2000;
  const cmdTimeout = options.commandTimeoutMs ?? 80;
  const holdMin = options.holdMinMs ?? 20;
  const holdMax = options.holdMaxMs ?? ttlMax * 2;
  const idleMax = options.idleMaxMs ?? 20;
  const kinds = options.faultKinds ?? FAULT_KINDS;
  const maxFaulty = options.maxFaulty ?? Math.floor((n - 1) / 2);
  const delayed = options.delayedRestart ?? true;
  const slack = options.slackMs ?? 150;
  const prefix = options.prefix ?? 'chaos:';
  const resourceName = (r: number): string => `${prefix}res:${r}`;
  // A failed acquire: the SET round, the rollback round, then one GET naming the holder.
  const acquireDeadlineMs = 3 * cmdTimeout + slack;
  const fencedAcquireDeadlineMs = 4 * cmdTimeout + slack;
  const fencing = options.fencing ?? true;
  const releaseDeadlineMs = cmdTimeout + slack;

  const result: ChaosResult = {
    seed, durationMs: options.durationMs, nodes: n, clients: clientCount, resources: resourceCount,
    attempts: 0, acquisitions: 0, refusals: 0, extensions: 0, extensionFailures: 0, aborted: 0, releases: 0,
    unexpectedErrors: [], faults: { pause: 0, kill: 0, sleep: 0, clientKill: 0 }, maxFaultyAtOnce: 0, earlyRestarts: 0,
    intervals: 0, overlaps: [], fencedAcquisitions: 0, fencesOutOfOrder: 0, fencedAcquireDeadlineMs, leftovers: [], acquireDeadlineMs, releaseDeadlineMs, maxAcquireMs: 0, maxReleaseMs: 0,
    acquireOverruns: 0, releaseOverruns: 0, maxAcquireAdjustedMs: 0, maxReleaseAdjustedMs: 0, acquireRawOverruns: 0, releaseRawOverruns: 0,
    eventLoopMaxDelayMs: 0, violations: [], auditFindings: [], auditComplete: null,
  };
  const runStarted = now();
  // The core's deadlines are timers: while this process's event loop is blocked (GC, the
  // harness's synchronous spawn at a restart, CPU starvation) no timer fires, for the
  // core or anyone. Stalls are recorded so a call's latency can be judged without them.
  const stalls: Array<[number, number]> = [];
  let lastBeat = now();
  const beat = setInterval(() => {
    const t = now();
    if (t - lastBeat > 15) stalls.push([lastBeat + 10, t]);
    lastBeat = t;
  }, 10);
  const stalledWithin = (from: number, to: number): number => {
    let sum = 0;
    for (let k = stalls.length - 1; k >= 0 && stalls[k][1] > from; k--) {
      sum += Math.max(0, Math.min(to, stalls[k][1]) - Math.max(from, stalls[k][0]));
    }
    return sum;
  };
  const judge = (kind: 'acquire' | 'release', t0: number, fenced = false): void => {
    const t1 = now();
    const ms = t1 - t0;
    const limit = kind === 'acquire' ? (fenced ? fencedAcquireDeadlineMs : acquireDeadlineMs) : releaseDeadlineMs;
    const adjusted = ms > limit ? ms - stalledWithin(t0, t1) : ms;
    if (kind === 'acquire') {
      result.maxAcquireMs = Math.max(result.maxAcquireMs, ms);
      result.maxAcquireAdjustedMs = Math.max(result.maxAcquireAdjustedMs, adjusted);
      if (ms > limit) result.acquireRawOverruns++;
      if (adjusted > limit) result.acquireOverruns++;
    } else {
      result.maxReleaseMs = Math.max(result.maxReleaseMs, ms);
      result.maxReleaseAdjustedMs = Math.max(result.maxReleaseAdjustedMs, adjusted);
      if (ms > limit) result.releaseRawOverruns++;
      if (adjusted > limit) result.releaseOverruns++;
    }
  };
  log(`chaos: seed ${seed}, ${n} nodes, ${clientCount} clients, ${resourceCount} resources, ${options.durationMs} ms, TTL ${ttlMin}-${ttlMax} ms, per-node deadline ${cmdTimeout} ms, faults ${kinds.join('/')}, ${delayed ? 'delayed' : 'IMMEDIATE'} restarts${ownServers ? (persist ? ', nodes persist every write' : ', nodes restart empty') : ''}`);

  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const holds: Hold[] = [];
  const clients: Redlock[] = [];
  const stop = new AbortController();
  let faulty = 0;
  const faultyNodes = new Set<number>();
  const pendingRecoveries = new Map<number, () => Promise<void>>();

  try {
    const urls = servers.map((s) => s.url);
    for (let c = 0; c < clientCount; c++) {
      const rl = new Redlock(urls, { commandTimeoutMs: cmdTimeout, retryCount: 0, connectTimeoutMs: 2000, events: options.audit === true && { max: READ_EVENTS } });
      clients.push(rl);
    }

    // ---- the workload -----------------------------------------------------------------
    const runClient = async (c: number): Promise<void> => {
      const rl = clients[c];
      let current: Hold | undefined;
      // Observe what using() is given, without changing what it does.
      const acquire = rl.acquire.bind(rl);
      const extend = rl.extend.bind(rl);
      const release = rl.release.bind(rl);
      rl.acquire = async (...args: Parameters<Redlock['acquire']>): Promise<Lock> => {
        result.attempts++;
        const t0 = now();
        const fenced = args[2]?.fencing === true;
        try {
          const lock = await acquire(...args);
          const t = now();
          current!.segments.push([t, lock.deadline]);
          result.acquisitions++;
          if (fenced) {
            current!.fence = lock.fence;
            result.fencedAcquisitions++;
          }
          return lock;
        } finally {
          judge('acquire', t0, fenced);
        }
      };
      rl.extend = async (lock: Lock, ttl: number): Promise<Lock> => {
        const hold = current!;
        try {
          const next = await extend(lock, ttl);
          // using() adopts an extension only while it is still running and not aborted.
          if (hold.stoppedAt === undefined && !hold.signal?.aborted) hold.segments.push([now(), next.deadline]);
          result.extensions++;
          return next;
        } catch (e) {
          result.extensionFailures++;
          throw e;
        }
      };
      rl.release = async (lock: Lock) => {
        const t0 = now();
        try {
          return await release(lock);
        } finally {
          result.releases++;
          judge('release', t0);
        }
      };

      while (!stop.signal.aborted) {
        const r = Math.floor(rand() * resourceCount);
        const ttl = Math.round(between(ttlMin, ttlMax));
        const hold: Hold = { id: holds.length, client: c, resource: r, segments: [] };
        current = hold;
        holds.push(hold);
        try {
          await rl.using(resourceName(r), ttl, async (signal) => {
            hold.signal = signal;
            signal.addEventListener('abort', () => {
              hold.stoppedAt ??= now();
              result.aborted++;
            }, { once: true });
            await delay(between(holdMin, holdMax), signal);
            hold.stoppedAt ??= now();
          }, { fencing: fencing && c % 2 === 0 });
        } catch (e) {
          if (e instanceof RedlockError) result.refusals++;
          else result.unexpectedErrors.push(`client ${c}: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
        }
        await delay(rand() * idleMax);
      }
    };

    // ---- the fault driver -------------------------------------------------------------
    const admin = async <T>(i: number, fn: (c: import('ioredis').default) => Promise<T>): Promise<T> => {
      const c = servers[i].client({ maxRetriesPerRequest: 0, connectTimeout: 1000 });
      try {
        return await fn(c);
      } finally {
        c.disconnect();
      }
    };
    const markFaulty = (i: number): void => {
      faultyNodes.add(i);
      faulty = faultyNodes.size;
      result.maxFaultyAtOnce = Math.max(result.maxFaultyAtOnce, faulty);
      if (faulty > maxFaulty) result.violations.push(`driver bug: ${faulty} nodes faulty at once (at most ${maxFaulty})`);
    };
    const markHealthy = (i: number): void => {
      faultyNodes.delete(i);
      faulty = faultyNodes.size;
    };
    const inject = async (i: number, kind: FaultKind): Promise<void> => {
      const s = servers[i];
      result.faults[kind]++;
      markFaulty(i);
      switch (kind) {
        case 'pause': {
          // Strictly below half the shortest TTL.
          const ms = between(ttlMin / 8, ttlMin / 2 - 20);
          s.pause();
          let done = false;
          const recover = async (): Promise<void> => {
            if (done) return;
            done = true;
            s.resume();
            pendingRecoveries.delete(i);
            markHealthy(i);
          };
          pendingRecoveries.set(i, recover);
          await delay(ms, stop.signal);
          await recover();
          return;
        }
        case 'kill': {
          await s.stop();
          const killedAt = now();
          // Every key it held was set at most ttlMax ago, so all are expired after ttlMax.
          const waitMs = delayed ? ttlMax + 50 : 0;
          let done = false;
          const recover = async (): Promise<void> => {
            if (done) return;
            done = true;
            if (stop.signal.aborted === false && delayed && now() - killedAt < ttlMax) result.earlyRestarts++;
            await s.restart();
            pendingRecoveries.delete(i);
            markHealthy(i);
          };
          pendingRecoveries.set(i, recover);
          // After the clients stopped, waiting out the delay protects nobody: recover at once.
          await delay(waitMs, stop.signal);
          await recover();
          return;
        }
        case 'sleep': {
          const secs = (between(ttlMin / 8, ttlMin / 2 - 20) / 1000).toFixed(3);
          await admin(i, (c) => c.call('DEBUG', 'SLEEP', secs)).catch(() => undefined);
          markHealthy(i);
          return;
        }
        case 'clientKill': {
          await admin(i, (c) => c.call('CLIENT', 'KILL', 'TYPE', 'normal')).catch(() => undefined);
          // The clients reconnect within ~100 ms (the core's retry strategy): count it as
          // faulty for that window.
          await delay(250);
          markHealthy(i);
          return;
        }
      }
    };
    const driver = async (): Promise<void> => {
      const running: Promise<void>[] = [];
      while (!stop.signal.aborted) {
        await delay(between(options.faultEveryMinMs ?? 100, options.faultEveryMaxMs ?? 300), stop.signal);
        if (stop.signal.aborted || faulty >= maxFaulty || kinds.length === 0) continue;
        const healthy = servers.map((_, i) => i).filter((i) => !faultyNodes.has(i));
        if (healthy.length === 0) continue;
        const i = pick(healthy);
        const kind = pick(kinds);
        running.push(inject(i, kind).catch((e: unknown) => {
          result.unexpectedErrors.push(`fault ${kind} on node ${i}: ${e instanceof Error ? e.message : String(e)}`);
        }));
      }
      await Promise.all(running);
    };

    const t0 = now();
    const work = Promise.all(clients.map((_, c) => runClient(c)));
    const faults = driver();
    await delay(options.durationMs);
    const cap = t0 + Math.max(options.durationMs, options.maxDurationMs ?? 0);
    // Polled, not awaited on an event: the counts move in many places.
    while (options.enough && !options.enough(result) && now() < cap) await delay(200);
    result.durationMs = Math.round(now() - t0);
    stop.abort();
    await work;
    const clientsStopped = now();
    // Recover every node still faulty, then the driver winds down.
    await Promise.all([...pendingRecoveries.values()].map((r) => r()));
    await faults;
    const recovered = now();
    log(`chaos: clients stopped after ${Math.round(clientsStopped - t0)} ms, nodes recovered ${Math.round(recovered - clientsStopped)} ms later`);

    // ---- invariants ---------------------------------------------------------------------
    const intervals: Interval[] = [];
    for (const h of holds) {
      const cut = h.stoppedAt ?? Infinity;
      for (const [from, to] of h.segments) {
        intervals.push({ resource: h.resource, hold: h.id, client: h.client, start: from, end: Math.min(to, cut) });
      }
    }
    result.intervals = intervals.length;
    result.overlaps = findOverlaps(intervals, resourceName);
    result.fencesOutOfOrder = fencesOutOfOrder(holds.map((h) => ({ resource: h.resource, fence: h.fence, start: h.segments[0]?.[0] })));

    // Queued commands of a paused node ran at its resume at the latest: once the longest
    // TTL has passed after that, nothing may be left. (Waiting is the invariant here.)
    await delay(Math.max(0, recovered + ttlMax + 100 - now()));
    for (let i = 0; i < n; i++) {
      const names = Array.from({ length: resourceCount }, (_, r) => resourceName(r));
      const left = await admin(i, async (c) => {
        const found: string[] = [];
        for (const k of names) if ((await c.exists(k)) === 1) found.push(`${k} (pttl ${await c.pttl(k)} ms, value ${await c.get(k)})`);
        const stray = await c.keys(`${prefix}*`);
        for (const k of stray) if (!names.includes(k)) found.push(k);
        return found;
      });
      for (const k of left) result.leftovers.push(`node ${servers[i].port}: ${k}`);
    }

    if (options.audit) {
      // Every event queued by a client goes out before the audit reads the logs.
      await Promise.all(clients.map((c) => c.quit().catch(() => undefined)));
      const audit = await auditRun(urls, now() - runStarted + 60_000);
      result.auditFindings = audit.findings;
      // Logs keep their newest entries: a long run outgrows them, and the audit says so.
      result.auditComplete = audit.complete;
      for (const f of result.auditFindings) result.violations.push(`audit: ${f}`);
    }

    result.eventLoopMaxDelayMs = Math.round(loop.max / 1e6);
    for (const o of result.overlaps) {
      result.violations.push(`overlap on ${o.resource}: hold ${o.a.hold} (client ${o.a.client}) and hold ${o.b.hold} (client ${o.b.client}) for ${o.ms.toFixed(1)} ms`);
    }
    if (result.fencesOutOfOrder) result.violations.push(`${result.fencesOutOfOrder} fenced acquisitions got a fence not above an earlier one of the same resource`);
    for (const l of result.leftovers) result.violations.push(`leftover key after the longest TTL: ${l}`);
    if (result.acquireOverruns) result.violations.push(`${result.acquireOverruns} acquire calls took longer than ${acquireDeadlineMs} ms, event-loop stalls excluded (max ${result.maxAcquireAdjustedMs.toFixed(1)} ms)`);
    if (result.releaseOverruns) result.violations.push(`${result.releaseOverruns} release calls took longer than ${releaseDeadlineMs} ms, event-loop stalls excluded (max ${result.maxReleaseAdjustedMs.toFixed(1)} ms)`);
    for (const e of result.unexpectedErrors) result.violations.push(`unexpected error: ${e}`);
    if (result.earlyRestarts) result.violations.push(`${result.earlyRestarts} delayed restarts came back early`);
    return result;
  } finally {
    stop.abort();
    loop.disable();
    clearInterval(beat);
    await Promise.all([...pendingRecoveries.values()].map((r) => r().catch(() => undefined)));
    await Promise.all(clients.map((c) => c.quit().catch(() => undefined)));
    for (const s of servers) s.resume();
    if (ownServers) await Promise.all(servers.map((s) => s.dispose()));
  }
}

/** The findings of the built CLI's `audit --json` over the last `sinceMs` on `urls`, one line each. */
async function auditRun(urls: readonly string[], sinceMs: number): Promise<{ findings: string[]; complete: boolean }> {
  const cli = join(__dirname, '../../../dist/cli.js');
  const args = [cli, 'audit', '--json', '--since', `${Math.ceil(sinceMs / 1000)}s`, ...urls.flatMap((u) => ['--node', u])];
  const out = await new Promise<string>((resolve, reject) => {
    // Exit 4 means findings: the document is on stdout either way.
    execFile(process.execPath, args, { maxBuffer: 64 * 2 ** 20 }, (e, stdout, stderr) => (stdout ? resolve(stdout) : reject(new Error(`audit failed: ${stderr || e?.message}`))));
  });
  const doc = JSON.parse(out) as { findings: Array<{ kind: string; resource: string; detail: string }>; complete: boolean };
  return { findings: doc.findings.map((f) => `${f.kind} on ${f.resource}: ${f.detail}`), complete: doc.complete };
}

/** The counts as printed by the on-demand run and the short test. */
export function summary(r: ChaosResult): string {
  const faults = Object.entries(r.faults).map(([k, v]) => `${k} ${v}`).join(', ');
  return [
    `seed ${r.seed}: ${r.nodes} nodes, ${r.clients} clients, ${r.resources} resources, ${r.durationMs} ms`,
    `attempts ${r.attempts}, acquisitions ${r.acquisitions}, refusals ${r.refusals}, extensions ${r.extensions} (${r.extensionFailures} failed), aborted holds ${r.aborted}, releases ${r.releases}`,
    `faults injected: ${faults} (at most ${r.maxFaultyAtOnce} nodes faulty at once)`,
    `intervals ${r.intervals}, overlaps ${r.overlaps.length}, leftover keys ${r.leftovers.length}, fenced acquisitions ${r.fencedAcquisitions}, fences out of order: ${r.fencesOutOfOrder}`,
    `acquire max ${r.maxAcquireMs.toFixed(1)} ms raw / ${r.maxAcquireAdjustedMs.toFixed(1)} ms without event-loop stalls (deadline ${r.acquireDeadlineMs}, fenced ${r.fencedAcquireDeadlineMs}, ${r.acquireRawOverruns} raw overruns), release max ${r.maxReleaseMs.toFixed(1)} / ${r.maxReleaseAdjustedMs.toFixed(1)} ms (deadline ${r.releaseDeadlineMs}, ${r.releaseRawOverruns} raw overruns), event loop max delay ${r.eventLoopMaxDelayMs} ms`,
    `audit ${r.auditComplete === null ? 'not run' : `findings ${r.auditFindings.length}${r.auditComplete ? '' : ' (the logs no longer held the run\'s start: the audit covered the rest)'}`}`,
    `violations ${r.violations.length}${r.violations.length ? ':\n  ' + r.violations.slice(0, 20).join('\n  ') : ''}`,
  ].join('\n');
}
