// Acquire+release throughput of our Redlock core against the peer libraries, on the same
// five local redis-server nodes, in one process and one run. Each scenario is split into
// rounds and every round visits the libraries in a balanced order (roundOrder), so drift in
// machine load (this runs on small shared boxes) spreads over all of them instead of favouring one.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setImmediate as setImmediatePromise, setTimeout as sleep } from 'node:timers/promises';
import type Redis from 'ioredis';
import { RedisServer, startNodes } from '../src/dev/redisServer';
import { LibSettings, LockLib, openOurs, openPeer, PEERS, peerName } from './lockLibs';
import { fmtInt, fmtMs, fmtRatio, round2, Samples, table } from './stats';

export interface LockBenchConfig {
  /** Measured time per library per scenario, split over the rounds. */
  seconds: number;
  rounds: number;
  warmupSeconds: number;
  workers: number;
  contenders: number;
  /** Times a contender holds the lock in (c), one phase each (0: across one event-loop turn). */
  holdsMs: number[];
  ttlMs: number;
  /** Retry delays, one set of (c) phases each; the first also serves (a) and (b). */
  retryDelaysMs: number[];
  /** ioredis auto-pipelining for the peers' clients: each setting, or both (each peer twice). */
  peerPipelining: Array<boolean>;
  /** Only these libraries (names), e.g. for a quick side-by-side; empty = all. */
  only: string[];
  /** Only these scenarios (sequential, concurrent, contention); empty = all. */
  scenarios: string[];
  /** Extra builds of our core to compare, `name=path/to/core/index.js`. */
  coreVariants: Array<{ name: string; path: string }>;
  out: string;
}

const num = (name: string, fallback: number, min = 0, integer = false): number => {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n < min || (integer && !Number.isInteger(n))) {
    throw new RangeError(`${name}=${v}: expected ${integer ? 'an integer' : 'a number'} >= ${min}`);
  }
  return n;
};

const list = (name: string): string[] => (process.env[name] ?? '').split(',').map((s) => s.trim()).filter(Boolean);

/** A comma-separated list of numbers >= 0, each checked as `num` checks one. */
function nums(name: string, fallback: number[], integer = false): number[] {
  const items = list(name);
  if (items.length === 0) return fallback;
  return items.map((v) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0 || (integer && !Number.isInteger(n))) {
      throw new RangeError(`${name}=${process.env[name]}: expected ${integer ? 'integers' : 'numbers'} >= 0, comma-separated`);
    }
    return n;
  });
}

function pipeliningFromEnv(v: string): boolean[] {
  if (v === 'both') return [false, true];
  if (v === 'on' || v === '1') return [true];
  if (v === 'off' || v === '0') return [false];
  throw new RangeError(`BENCH_PEER_PIPELINING=${v}: expected on, off or both`);
}

function scenariosFromEnv(): string[] {
  const ids: string[] = SCENARIOS.map((s) => s.id);
  const wanted = list('BENCH_SCENARIOS');
  const unknown = wanted.filter((w) => !ids.includes(w));
  if (unknown.length > 0) throw new RangeError(`BENCH_SCENARIOS: unknown ${unknown.join(', ')} (known: ${ids.join(', ')})`);
  return wanted;
}

export function lockBenchConfig(): LockBenchConfig {
  return {
    seconds: num('BENCH_SECONDS', 5, 0.01),
    rounds: num('BENCH_ROUNDS', 10, 1, true),
    warmupSeconds: num('BENCH_WARMUP_SECONDS', 1.5),
    workers: num('BENCH_WORKERS', 64, 1, true),
    contenders: num('BENCH_CONTENDERS', 16, 1, true),
    // The issue's harness holds across one turn; 1 ms spans turns, so overlaps could show.
    holdsMs: nums('BENCH_HOLD_MS', [0, 1]),
    ttlMs: 10_000,
    // Delay 10 first: (a) and (b) never retry, and their recorded runs used it.
    retryDelaysMs: nums('BENCH_RETRY_DELAY_MS', [10, 0, 50], true),
    peerPipelining: pipeliningFromEnv(process.env.BENCH_PEER_PIPELINING ?? 'both'),
    only: list('BENCH_LIBS'),
    scenarios: scenariosFromEnv(),
    coreVariants: list('BENCH_CORE_VARIANTS').map((v) => {
      const [name, path] = v.split('=');
      return { name: `ours:${name}`, path: resolve(path) };
    }),
    out: resolve(process.env.BENCH_OUT ?? 'bench/results/locks.json'),
  };
}

interface Tally {
  ops: number;
  ms: number;
  errors: number;
  samples: Samples;
  maxHolders: number;
  violations: number;
}

const newTally = (): Tally => ({ ops: 0, ms: 0, errors: 0, samples: new Samples(), maxHolders: 0, violations: 0 });

/** What one phase runs with: the config, and the hold of a (c) phase. */
type PhaseConfig = LockBenchConfig & { holdMs: number };
type Run = (lib: LockLib, ms: number, t: Tally, cfg: PhaseConfig) => Promise<void>;

/** (a) One caller, one resource: the latency of a whole acquire+release. */
const sequential: Run = async (lib, ms, t) => {
  const start = performance.now();
  const end = start + ms;
  const resource = `bench:${lib.name}:seq`;
  for (let t0 = start; t0 < end; t0 = performance.now()) {
    try {
      await lib.release(await lib.acquire(resource));
      t.ops++;
      t.samples.push(performance.now() - t0);
    } catch {
      t.errors++;
    }
  }
  t.ms += performance.now() - start;
};

/** (b) Many callers on their own resources: throughput when CPU, not the lock, is the limit. */
const concurrent: Run = async (lib, ms, t, cfg) => {
  const start = performance.now();
  const end = start + ms;
  const worker = async (w: number): Promise<void> => {
    const resource = `bench:${lib.name}:w${w}`;
    for (let t0 = performance.now(); t0 < end; t0 = performance.now()) {
      try {
        await lib.release(await lib.acquire(resource));
        t.ops++;
        t.samples.push(performance.now() - t0);
      } catch {
        t.errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: cfg.workers }, (_, w) => worker(w)));
  t.ms += performance.now() - start;
};

/**
 * (c) Contenders on one resource under the shared retry policy. Holders are counted
 * in-process: two at once means the library granted a lock that was still held.
 * Samples are the waits for the lock. Only acquisitions inside the window count;
 * stragglers drain before the next library starts.
 */
const contention: Run = async (lib, ms, t, cfg) => {
  const start = performance.now();
  const end = start + ms;
  const resource = `bench:${lib.name}:hot`;
  let holders = 0;
  const worker = async (): Promise<void> => {
    while (performance.now() < end) {
      let handle: unknown;
      const t0 = performance.now();
      try {
        handle = await lib.acquire(resource);
        t.samples.push(performance.now() - t0);
      } catch {
        t.errors++;
        continue;
      }
      holders++;
      if (holders > 1) t.violations++;
      t.maxHolders = Math.max(t.maxHolders, holders);
      if (performance.now() <= end) t.ops++;
      await (cfg.holdMs > 0 ? sleep(cfg.holdMs) : setImmediatePromise());
      holders--;
      await lib.release(handle).catch(() => t.errors++);
    }
  };
  await Promise.all(Array.from({ length: cfg.contenders }, worker));
  t.ms += ms;
};

const SCENARIOS = [
  { id: 'sequential', title: '(a) sequential acquire+release, one resource', run: sequential },
  { id: 'concurrent', title: '(b) workers on their own resources', run: concurrent },
  { id: 'contention', title: '(c) contenders on one resource', run: contention },
] as const;
type ScenarioId = (typeof SCENARIOS)[number]['id'];

/**
 * The order of round r over n libraries, a balanced Latin square (Williams): over n rounds
 * (2n when n is odd, the second n mirrored) each library takes every slot once and follows
 * every other library once. A plain rotation keeps each library behind the same neighbour in
 * every round, so one library's garbage and stragglers always landed in the same other's slices.
 */
function roundOrder(n: number, r: number): number[] {
  const first = Array.from({ length: n }, (_, j) => (j % 2 === 0 ? n - j / 2 : (j + 1) / 2) % n);
  const row = first.map((x) => (x + (r % n)) % n);
  return n % 2 === 1 && r % (2 * n) >= n ? row.reverse() : row;
}

/** The rounds after which every library took every place and followed every other alike. */
const squareRounds = (n: number): number => (n % 2 === 1 && n > 1 ? 2 * n : n);

/** The shortest slice worth making up a square for: contenders on one key take some tens of ms to form their line. */
const MIN_SLICE_MS = 150;

/**
 * `asked` rounds, made up to whole squares (a part of one leaves some library behind the
 * same neighbours more often) while each library's slice stays at least MIN_SLICE_MS long:
 * 13 libraries at 5 s run 26 rounds; a quick run's 0.4 s keeps the rounds it asked for.
 */
function measuredRounds(asked: number, n: number, seconds: number): number {
  const whole = Math.ceil(asked / squareRounds(n)) * squareRounds(n);
  return (seconds * 1000) / whole >= MIN_SLICE_MS ? whole : asked;
}

async function measure(libs: LockLib[], run: Run, cfg: PhaseConfig, whole = true): Promise<Map<string, Tally>> {
  const tallies = new Map(libs.map((l) => [l.name, newTally()]));
  const rounds = whole ? measuredRounds(cfg.rounds, libs.length, cfg.seconds) : cfg.rounds;
  const sliceMs = (cfg.seconds * 1000) / rounds;
  for (let r = 0; r < rounds; r++) {
    for (const i of roundOrder(libs.length, r)) {
      const lib = libs[i];
      await run(lib, sliceMs, tallies.get(lib.name)!, cfg);
    }
  }
  return tallies;
}

interface LibResult {
  opsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  ops: number;
  errors: number;
  vsOurs: number;
  maxHolders?: number;
  violations?: number;
}

interface ScenarioResult {
  title: string;
  libs: Record<string, LibResult>;
  fastestPeer?: string;
  oursOverFastestPeer?: number;
  oursP99NoWorse?: boolean;
  targetMet?: boolean;
  /** Keys (locks and our `__rli:` bookkeeping) still on the nodes 500 ms after the phase, per library. */
  leftAfterGrace?: Record<string, number>;
}

const micro = (ms: number): number => Math.round(ms * 1000) / 1000;
const FENCED = 'ours:fenced';

interface FencingCost {
  /** Plain ops/s over fenced ops/s: how many times longer a fenced acquire+release takes. */
  timeRatio: number;
  p50Ms: { plain: number; fenced: number };
  p99Ms: { plain: number; fenced: number };
  /** A fenced acquire+release within 1.5x the time of a plain one. */
  targetMet: boolean;
}

function fencingCost(r: ScenarioResult | undefined): FencingCost | undefined {
  const plain = r?.libs.ours;
  const fenced = r?.libs[FENCED];
  if (!plain || !fenced || fenced.opsPerSec === 0) return undefined;
  const timeRatio = round2(plain.opsPerSec / fenced.opsPerSec);
  return { timeRatio, p50Ms: { plain: plain.p50Ms, fenced: fenced.p50Ms }, p99Ms: { plain: plain.p99Ms, fenced: fenced.p99Ms }, targetMet: timeRatio <= 1.5 };
}
const isOurs = (name: string): boolean => name === 'ours' || name.startsWith('ours:') || name.startsWith('ours+');

/**
 * The issue's goals, ours over the fastest peer: (a) at least 1.0x with a p99 within 1.2x
 * of that peer's, (b) at least 1.2x, (c) at least 1.0x at every retry delay and hold.
 */
const GOALS: Record<ScenarioId, { min: number; p99Within?: number }> = {
  sequential: { min: 1.0, p99Within: 1.2 },
  concurrent: { min: 1.2 },
  contention: { min: 1.0 },
};

function summarize(title: string, tallies: Map<string, Tally>, id: ScenarioId): ScenarioResult {
  const contended = id === 'contention';
  const libs: Record<string, LibResult> = {};
  for (const [name, t] of tallies) {
    libs[name] = {
      opsPerSec: Math.round(t.ops / (t.ms / 1000)),
      p50Ms: micro(t.samples.percentile(50)),
      p99Ms: micro(t.samples.percentile(99)),
      ops: t.ops,
      errors: t.errors,
      vsOurs: NaN,
      ...(contended ? { maxHolders: t.maxHolders, violations: t.violations } : {}),
    };
  }
  const base = libs.ours;
  for (const r of Object.values(libs)) r.vsOurs = base ? round2(r.opsPerSec / base.opsPerSec) : NaN;
  const peers = Object.keys(libs).filter((n) => !isOurs(n));
  const result: ScenarioResult = { title, libs };
  if (!base || peers.length === 0) return result;
  const fastest = peers.reduce((a, b) => (libs[b].opsPerSec > libs[a].opsPerSec ? b : a));
  const goal = GOALS[id];
  result.fastestPeer = fastest;
  result.oursOverFastestPeer = round2(base.opsPerSec / libs[fastest].opsPerSec);
  if (goal.p99Within !== undefined) result.oursP99NoWorse = base.p99Ms <= libs[fastest].p99Ms * goal.p99Within;
  result.targetMet = result.oursOverFastestPeer >= goal.min && result.oursP99NoWorse !== false && (base.violations ?? 0) === 0;
  return result;
}

function print(r: ScenarioResult, id: ScenarioId): void {
  const contended = id === 'contention';
  const rows = Object.entries(r.libs).map(([name, x]) =>
    contended
      ? [name, fmtInt(x.opsPerSec), fmtMs(x.p50Ms), fmtMs(x.p99Ms), String(x.maxHolders), String(x.violations), String(x.errors), fmtRatio(x.vsOurs)]
      : [name, fmtInt(x.opsPerSec), fmtMs(x.p50Ms), fmtMs(x.p99Ms), String(x.errors), fmtRatio(x.vsOurs)],
  );
  const header = contended
    ? ['library', 'acq/s', 'wait p50 ms', 'wait p99 ms', 'max holders', 'violations', 'errors', 'peer/ours']
    : ['library', 'ops/s', 'p50 ms', 'p99 ms', 'errors', 'peer/ours'];
  console.log(`\n${r.title}\n${table(header, rows)}`);
  if (r.fastestPeer) {
    const goal = GOALS[id];
    const p99 = goal.p99Within === undefined ? '' : `, p99 within ${fmtRatio(goal.p99Within)} of its`;
    console.log(`ours / fastest peer (${r.fastestPeer}) = ${fmtRatio(r.oursOverFastestPeer!)} (target >= ${fmtRatio(goal.min)}${p99}: ${r.targetMet ? 'MET' : 'MISSED'})`);
  }
}

function redisVersion(): string {
  const out = spawnSync('redis-server', ['--version'], { encoding: 'utf8' }).stdout ?? '';
  return /v=(\S+)/.exec(out)?.[1] ?? 'unknown';
}

async function scanAll(c: Redis, pattern: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, page] = await c.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    keys.push(...page);
  } while (cursor !== '0');
  return keys;
}

/**
 * The library a bench key belongs to: `bench:<library>:<what>`, or a waiter set of one.
 * Fence counters and event logs outlive their locks by design (docs/formats.md): not counted.
 */
function libraryOfKey(key: string): string | null {
  // Internal keys wrap the resource: __rli:<kind>:{<resource>} or __rli:<kind>:=<resource>.
  if (key.startsWith('__rli:') && !key.startsWith('__rli:waiters:')) return null;
  const m = /^__rli:[a-z]+:(?:\{(.*)\}|=(.*))$/.exec(key);
  const resource = m ? (m[1] ?? m[2]) : key;
  if (!resource.startsWith('bench:')) return null;
  return resource.slice('bench:'.length, resource.lastIndexOf(':'));
}

/** Keys left per library on every node, deleted once counted so the next phase starts clean. */
async function takeLeftovers(servers: RedisServer[], drop: boolean): Promise<Record<string, number>> {
  const left: Record<string, number> = {};
  for (const server of servers) {
    const c = server.client();
    try {
      const keys = [...await scanAll(c, 'bench:*'), ...await scanAll(c, '__rli:waiters:*')];
      for (const key of keys) {
        const lib = libraryOfKey(key);
        if (lib !== null) left[lib] = (left[lib] ?? 0) + 1;
      }
      if (drop && keys.length > 0) await c.del(...keys);
    } finally {
      c.disconnect();
    }
  }
  return left;
}

/** Opens into `libs` (so the caller closes whatever opened, even after a failure). */
async function openLibs(libs: LockLib[], settings: LibSettings, cfg: LockBenchConfig): Promise<void> {
  const wanted = (name: string): boolean => cfg.only.length === 0 || cfg.only.includes(name);
  if (wanted('ours')) libs.push(await openOurs(settings));
  // The same core with { fencing: true }: the cost of a fence, measured in the same rounds.
  if (wanted(FENCED)) libs.push(await openOurs(settings, FENCED, undefined, { fencing: true }));
  // The cost of lasting history: every acquire and release also queues an event write.
  if (wanted('ours+events')) libs.push(await openOurs(settings, 'ours+events', undefined, {}, { events: true }));
  for (const v of cfg.coreVariants) {
    // Compiled JS of another copy of src/core, loaded at run time: it has no types here.
    if (wanted(v.name)) libs.push(await openOurs(settings, v.name, require(v.path)));
  }
  for (const peer of PEERS) {
    for (const p of cfg.peerPipelining) if (wanted(peerName(peer, p))) libs.push(await openPeer(peer, settings, p));
  }
  if (libs.length === 0) throw new Error(`BENCH_LIBS=${cfg.only.join(',')} matches no library`);
}

interface Phase {
  id: ScenarioId;
  title: string;
  run: Run;
  holdMs: number;
}

/** The phases run with the libraries opened at one retry delay: (a) and (b) only at the first. */
function phasesAt(delay: number, first: boolean, cfg: LockBenchConfig): Phase[] {
  const wanted = (id: ScenarioId): boolean => cfg.scenarios.length === 0 || cfg.scenarios.includes(id);
  const phases: Phase[] = [];
  for (const s of SCENARIOS) {
    if (!wanted(s.id)) continue;
    if (s.id === 'sequential' && first) phases.push({ ...s, holdMs: 0 });
    if (s.id === 'concurrent' && first) phases.push({ ...s, title: `${s.title}, ${cfg.workers} workers`, holdMs: 0 });
    if (s.id !== 'contention') continue;
    for (const holdMs of cfg.holdsMs) {
      const hold = holdMs === 0 ? 'held across one event-loop turn' : `held ${holdMs} ms`;
      phases.push({ ...s, title: `${s.title}, ${cfg.contenders} contenders, ${hold}, retry every ${delay} ms`, holdMs });
    }
  }
  return phases;
}

/** A contention phase's name in the JSON and the summary. */
const contentionKey = (p: Phase, delay: number): string => `hold ${p.holdMs} ms, retry ${delay} ms`;

/**
 * Runs the scenarios, prints the tables, writes the JSON; false on a safety failure.
 * The libraries are opened once per retry delay (each library takes its delay when made),
 * warmed up, measured, and closed before the next delay's set opens.
 */
export async function runLockBench(cfg: LockBenchConfig = lockBenchConfig()): Promise<boolean> {
  let servers: RedisServer[] = [];
  const libs: LockLib[] = [];
  try {
    servers = await startNodes(5);
    console.log(
      `locks: 5 redis-server ${redisVersion()} nodes, node ${process.version}, ${cpus().length} CPUs; ` +
        `${cfg.seconds} s per library per phase in balanced rounds, TTL ${cfg.ttlMs} ms, ` +
        `retry every ${cfg.retryDelaysMs.join(' / ')} ms without jitter, peers with ioredis auto-pipelining ${cfg.peerPipelining.map((p) => (p ? 'on (+ap)' : 'off')).join(' and ')}`,
    );
    const results: { sequential?: ScenarioResult; concurrent?: ScenarioResult; contention: Record<string, ScenarioResult & { holdMs: number; retryDelayMs: number }> } = { contention: {} };
    const leftovers: Record<string, number> = {};
    for (const [d, delay] of cfg.retryDelaysMs.entries()) {
      const phases = phasesAt(delay, d === 0, cfg);
      if (phases.length === 0) continue;
      const settings: LibSettings = { nodes: servers.map((s) => ({ host: '127.0.0.1', port: s.port })), ttlMs: cfg.ttlMs, retryDelayMs: delay };
      await openLibs(libs, settings, cfg);
      if (d === 0) console.log(`${libs.length} libraries: ${libs.map((l) => l.name).join(', ')}; ${measuredRounds(cfg.rounds, libs.length, cfg.seconds)} rounds a phase`);
      // Warm-up: JIT, script caches (EVALSHA misses), connection buffers. Results dropped.
      const warm = { ...cfg, seconds: cfg.warmupSeconds / phases.length, rounds: 1 };
      for (const p of phases) await measure(libs, p.run, { ...warm, holdMs: p.holdMs }, false);
      await sleep(500);
      await takeLeftovers(servers, true);
      for (const p of phases) {
        const r = summarize(p.title, await measure(libs, p.run, { ...cfg, holdMs: p.holdMs }), p.id);
        // What a phase leaves behind once its stragglers had a moment.
        await sleep(500);
        r.leftAfterGrace = await takeLeftovers(servers, true);
        if (p.id === 'contention') results.contention[contentionKey(p, delay)] = { ...r, holdMs: p.holdMs, retryDelayMs: delay };
        else results[p.id] = r;
        print(r, p.id);
        const left = Object.entries(r.leftAfterGrace);
        console.log(`keys left 500 ms after the phase: ${left.length === 0 ? 0 : left.map(([k, n]) => `${k}: ${n}`).join(', ')}`);
      }
      // Leftovers: every library closed (ours: quit() awaits its in-flight releases), then
      // the lock keys still on any node, per library (a key is bench:<library>:<what>).
      await Promise.all(libs.splice(0).map((l) => l.close().catch(() => undefined)));
      for (const [lib, n] of Object.entries(await takeLeftovers(servers, true))) leftovers[lib] = (leftovers[lib] ?? 0) + n;
    }
    const fencing: Partial<Record<ScenarioId, FencingCost>> = {};
    for (const id of ['sequential', 'concurrent'] as const) {
      const c = fencingCost(results[id]);
      if (!c) continue;
      fencing[id] = c;
      console.log(`fencing cost, ${id}: a fenced acquire+release takes ${fmtRatio(c.timeRatio)} the time of a plain one (p50 ${fmtMs(c.p50Ms.fenced)} vs ${fmtMs(c.p50Ms.plain)} ms, p99 ${fmtMs(c.p99Ms.fenced)} vs ${fmtMs(c.p99Ms.plain)} ms; target <= 1.5x: ${c.targetMet ? 'MET' : 'MISSED'})`);
    }
    const left = Object.values(leftovers).reduce((a, b) => a + b, 0);
    console.log(`lock keys left on the nodes after closing: ${left}${left ? ` (${Object.entries(leftovers).map(([k, n]) => `${k}: ${n}`).join(', ')})` : ''}`);
    const labelled: Array<[string, ScenarioResult | undefined]> = [['(a)', results.sequential], ['(b)', results.concurrent], ...Object.entries(results.contention).map(([k, r]): [string, ScenarioResult] => [`(c) ${k}`, r])];
    const all = labelled.flatMap(([label, r]) => (r ? [{ label, r }] : []));
    const violations = Object.values(results.contention).reduce((n, r) => n + Object.values(r.libs).reduce((m, x) => m + (x.violations ?? 0), 0), 0);
    const leftAfterPhases = all.reduce((n, { r }) => n + Object.values(r.leftAfterGrace ?? {}).reduce((a, b) => a + b, 0), 0);
    const targetsMet = all.length > 0 && all.every(({ r }) => r.targetMet === true) && left + leftAfterPhases === 0;
    console.log(`\nours / fastest peer: ${all.map(({ label, r }) => `${label} ${fmtRatio(r.oursOverFastestPeer ?? NaN)} ${r.targetMet ? 'met' : 'MISSED'}`).join('; ')}`);
    console.log(`every target (ratios, keys left ${left + leftAfterPhases}): ${targetsMet ? 'MET' : 'MISSED'}; mutual-exclusion violations: ${violations}`);

    const doc = {
      generatedAt: new Date().toISOString(),
      environment: { node: process.version, platform: `${process.platform}-${process.arch}`, cpus: cpus().length, cpuModel: cpus()[0]?.model, redis: redisVersion() },
      config: { ...cfg, out: undefined },
      scenarios: results,
      fencing,
      targetsMet,
      violations,
      leftovers: { total: left, byLibrary: leftovers },
    };
    mkdirSync(dirname(cfg.out), { recursive: true });
    writeFileSync(cfg.out, JSON.stringify(doc, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2) + '\n');
    console.log(`wrote ${cfg.out}`);
    return violations === 0;
  } finally {
    await Promise.all(libs.map((l) => l.close().catch(() => undefined)));
    await Promise.all(servers.map((s) => s.dispose()));
  }
}
