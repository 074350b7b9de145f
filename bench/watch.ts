// The inspector's cost at scale: a full snapshot of 100,000 keys on each of 5
// nodes; a 1 Hz watch over 10,000 locks on 5 nodes (each node's CPU from INFO's
// used_cpu_sys/user deltas, the watching process's own CPU); the watcher's peak RSS with
// 100,000 keys under watch. The watcher runs in a child process so its CPU and RSS are its own.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RedisServer, startNodes } from '../src/dev/redisServer';
import { table } from './stats';

const SNAPSHOT_KEYS = Number(process.env.BENCH_SCALE_KEYS ?? 100_000);
const WATCH_KEYS = Number(process.env.BENCH_WATCH_KEYS ?? 10_000);
const WATCH_SECONDS = Number(process.env.BENCH_WATCH_SECONDS ?? 60);
const RSS_SECONDS = Number(process.env.BENCH_RSS_SECONDS ?? 300);

export async function seed(servers: RedisServer[], count: number): Promise<void> {
  await Promise.all(servers.map(async (s) => {
    const c = s.client();
    await c.flushall();
    for (let i = 0; i < count; i += 10_000) {
      const p = c.pipeline();
      for (let j = i; j < Math.min(count, i + 10_000); j++) p.set(`lock:scale:${j}`, j.toString(16).padStart(32, '0'), 'PX', 3_600_000);
      await p.exec();
    }
    c.disconnect();
  }));
}

async function serverCpuSeconds(s: RedisServer): Promise<number> {
  const c = s.client();
  const info = await c.info('cpu');
  c.disconnect();
  const get = (k: string): number => Number(new RegExp(`${k}:([0-9.]+)`).exec(info)?.[1] ?? 0);
  return get('used_cpu_sys') + get('used_cpu_user');
}

function child(mode: string, seconds: number, servers: RedisServer[]): Record<string, number> {
  const r = spawnSync(process.execPath, ['--expose-gc', join(__dirname, 'watchWorker.js'), mode, String(seconds), ...servers.map((s) => s.url)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`watch worker failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, number>;
}

/** `snapshot,watch,memory` (all by default): which parts of the scale bench run. */
const PHASES = new Set((process.env.BENCH_SCALE_PHASES ?? 'snapshot,watch,memory').split(',').map((p) => p.trim()));

export async function runWatchBench(): Promise<boolean> {
  const servers = await startNodes(5);
  try {
    const rows: string[][] = [];
    const result: Record<string, unknown> = { date: new Date().toISOString() };
    if (PHASES.has('snapshot')) {
      await seed(servers, SNAPSHOT_KEYS);
      const snap = child('snapshot', 0, servers);
      rows.push([`full snapshot, ${SNAPSHOT_KEYS.toLocaleString('en-US')} keys x 5 nodes`, `${(snap.ms / 1000).toFixed(2)} s, ${Math.round((SNAPSHOT_KEYS * 5) / (snap.ms / 1000)).toLocaleString('en-US')} key reads/s`, '-', '-']);
      result.snapshot = { keysPerNode: SNAPSHOT_KEYS, nodes: 5, ms: snap.ms };
    }
    if (PHASES.has('watch')) {
      await seed(servers, WATCH_KEYS);
      const before = await Promise.all(servers.map(serverCpuSeconds));
      const watch = child('watch', WATCH_SECONDS, servers);
      const after = await Promise.all(servers.map(serverCpuSeconds));
      const nodePct = after.map((a, i) => ((a - before[i]) / WATCH_SECONDS) * 100);
      const watcherPct = (watch.cpuMs / (WATCH_SECONDS * 1000)) * 100;
      const maxNode = Math.max(...nodePct);
      rows.push(
        [`1 Hz watch, ${WATCH_KEYS.toLocaleString('en-US')} locks x 5 nodes, ${WATCH_SECONDS} s: busiest node CPU`, `${maxNode.toFixed(2)} % of a core`, '< 2 %', maxNode < 2 ? 'met' : 'MISSED'],
        ['  same watch: the watching process CPU', `${watcherPct.toFixed(2)} % of a core (${watch.ticks} ticks)`, '< 5 %', watcherPct < 5 ? 'met' : 'MISSED'],
      );
      result.watch = { locksPerNode: WATCH_KEYS, seconds: WATCH_SECONDS, nodeCpuPct: nodePct, watcherCpuPct: watcherPct, ticks: watch.ticks };
    }
    if (PHASES.has('memory')) {
      await seed(servers, SNAPSHOT_KEYS);
      const rss = child('watch', RSS_SECONDS, servers);
      const keys = SNAPSHOT_KEYS.toLocaleString('en-US');
      rows.push(
        [`watch over ${keys} keys x 5 nodes, ${RSS_SECONDS} s: peak RSS`, `${rss.maxRssMb.toFixed(0)} MB (live heap ${rss.liveHeapMb.toFixed(0)} MB at the end)`, '< 150 MB', rss.maxRssMb < 150 ? 'met' : 'MISSED'],
        ['  same watch: its first snapshot', `${(rss.firstSnapshotMs / 1000).toFixed(2)} s`, '< 5 s', rss.firstSnapshotMs < 5000 ? 'met' : 'MISSED'],
        [`  same watch: locks added, changed or removed while nothing wrote (${rss.ticks} ticks)`, String(rss.changes), '0', rss.changes === 0 ? 'met' : 'MISSED'],
      );
      result.memory = { keysPerNode: SNAPSHOT_KEYS, seconds: RSS_SECONDS, peakRssMb: rss.maxRssMb, liveHeapMb: rss.liveHeapMb, firstSnapshotMs: rss.firstSnapshotMs, ticks: rss.ticks, falseChanges: rss.changes };
    }
    console.log('\nscale: the inspector on 5 local nodes');
    console.log(table(['measure', 'result', 'target', ''], rows));
    mkdirSync('bench/results', { recursive: true });
    writeFileSync(process.env.BENCH_SCALE_OUT ?? 'bench/results/scale.json', JSON.stringify(result, null, 2) + '\n');
    return true;
  } finally {
    await Promise.all(servers.map((s) => s.dispose()));
  }
}
