// The second chaos scenario, made deterministic: a node restarted WITHOUT the delay.
// A holds a lock on exactly nodes 1-3 (nodes 4 and 5 were down during its acquire); node 3
// is killed and restarted at once, empty (no persistence); B then acquires on nodes 3-5.
// Both believe they hold the lock: the double-holder window the spec's delayed restart
// prevents. The inspector must flag the key `split` within 2 polls, by inspect() and by a
// running watch.
import { performance } from 'node:perf_hooks';
import { Redlock, Snapshot, WatchChange } from '../../src/core';
import { RedisServer, startNodes } from '../../src/dev/redisServer';
import { waitFor } from '../support/wait';
import { findOverlaps, Interval } from './chaos';

export interface DoubleHolderResult {
  /** Per-node outcomes of A's acquire and of B's. */
  aOutcomes: string[];
  bOutcomes: string[];
  overlaps: number;
  overlapMs: number;
  /** Verdict of the key on the inspect() poll that flagged it. */
  verdict: string;
  /** inspect() calls after B's acquire until the key showed split (1 = the first). */
  pollsUntilFlagged: number;
  /** Watch ticks started after B's acquire until its change line showed split. */
  watchTicksUntilFlagged: number;
  /** Token counts per holder in the flagged snapshot. */
  holders: Record<string, number>;
  aToken: string;
  bToken: string;
}

export async function doubleHolderScenario(options: { servers?: RedisServer[]; ttlMs?: number } = {}): Promise<DoubleHolderResult> {
  const own = !options.servers;
  const servers = options.servers ?? (await startNodes(5));
  const ttl = options.ttlMs ?? 10_000;
  const key = 'chaos:double-holder';
  const urls = servers.map((s) => s.url);
  const opened: Redlock[] = [];
  const make = (): Redlock => {
    const r = new Redlock(urls, { commandTimeoutMs: 200, connectTimeoutMs: 1000, readTimeoutMs: 500 });
    opened.push(r);
    return r;
  };
  let stopWatch: (() => Promise<void>) | undefined;
  try {
    // 1. A acquires while nodes 4 and 5 are down: its copies live on nodes 1-3 only.
    await Promise.all([servers[3].stop(), servers[4].stop()]);
    const a = make();
    const lockA = await a.acquire(key, ttl);
    const tA = performance.now();
    const aOutcomes = (await lockA.settled).map((x) => x.outcome);
    // Nodes 4 and 5 come back (they never held anything).
    await Promise.all([servers[3].restart(), servers[4].restart()]);

    // An inspector watching all along.
    const inspector = make();
    let ticks = 0;
    let ticksAtB = -1;
    let watchTicksUntilFlagged = -1;
    let first: Snapshot | undefined;
    const w = inspector.watch({ intervalMs: 150, patterns: [key] }, {
      snapshot: (s) => (first = s),
      change: (c: WatchChange) => {
        const e = [...c.added, ...c.changed].find((l) => l.key === key);
        if (ticksAtB >= 0 && watchTicksUntilFlagged < 0 && e?.verdict === 'split') watchTicksUntilFlagged = Math.max(1, ticks - ticksAtB);
      },
    });
    const tick = w.tick.bind(w);
    w.tick = async (): Promise<void> => {
      ticks++;
      await tick();
    };
    stopWatch = () => w.stop();
    await waitFor(() => first !== undefined, 10_000, 'the first watch snapshot');

    // 2. Node 3, which holds A's copy, crashes and comes back at once: empty.
    await servers[2].restart();

    // 3. B acquires on nodes 3, 4 and 5: a quorum, while A still believes it holds.
    const b = make();
    ticksAtB = ticks;
    const lockB = await b.acquire(key, ttl);
    const tB = performance.now();
    const bOutcomes = (await lockB.settled).map((x) => x.outcome);

    const intervals: Interval[] = [
      { resource: 0, hold: 0, client: 0, start: tA, end: lockA.deadline },
      { resource: 0, hold: 1, client: 1, start: tB, end: lockB.deadline },
    ];
    const overlaps = findOverlaps(intervals, () => key);

    // 4. The inspector flags it.
    let polls = 0;
    let verdict = 'absent';
    let holders: Record<string, number> = {};
    while (polls < 5) {
      polls++;
      const snap = await inspector.inspect({ patterns: [key] });
      const e = snap.locks.find((l) => l.key === key);
      verdict = e?.verdict ?? 'absent';
      holders = { ...(e?.holders ?? {}) };
      if (verdict === 'split') break;
    }
    await waitFor(() => watchTicksUntilFlagged > 0 || ticks - ticksAtB > 4, 10_000, 'the watch to flag the key');

    await Promise.all([a.release(lockA), b.release(lockB)]);
    return {
      aOutcomes, bOutcomes,
      overlaps: overlaps.length,
      overlapMs: overlaps[0]?.ms ?? 0,
      verdict,
      pollsUntilFlagged: verdict === 'split' ? polls : Infinity,
      watchTicksUntilFlagged: watchTicksUntilFlagged > 0 ? watchTicksUntilFlagged : Infinity,
      holders,
      aToken: lockA.token,
      bToken: lockB.token,
    };
  } finally {
    await stopWatch?.();
    await Promise.all(opened.map((r) => r.quit()));
    if (own) await Promise.all(servers.map((s) => s.dispose()));
  }
}
