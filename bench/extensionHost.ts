// The extension's cost in a real VS Code extension host (code-server + headless Chromium,
// scripts/bench-host.mjs), unlike `extension`, which runs the bundle on the stand-in
// `vscode` and so measures our own code only. Per scale: 5 redis-server nodes, N lock keys
// on each, and a writer changing about R keys a second (80% renewals, 20% handovers to a
// new token) for the whole run. Reports the host's CPU with the Locks view visible, hidden
// and never opened, its floor without the extension, RSS growth while visible, and the
// time to first rows (after a click, and with the view open at startup: the first rows,
// which may be the folders last seen, and the first live ones, with the extension's marks).
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type Redis from 'ioredis';
import { startNodes, type RedisServer } from '../src/dev/redisServer';
import { table } from './stats';
import { seed } from './watch';

interface Scale {
  keys: number;
  changesPerSecond: number;
}

/** `10000:50,100:1`: keys per node and changes a second, per scale. */
function scales(): Scale[] {
  const text = process.env.BENCH_HOST_SCALES ?? '10000:50,100:1';
  return text.split(',').map((s) => {
    const [keys, rate] = s.split(':').map(Number);
    return { keys, changesPerSecond: rate };
  });
}

const LONG = /^(1|true|yes)$/i.test(process.env.BENCH_HOST_LONG ?? '');
const PHASE_SECONDS = process.env.BENCH_HOST_PHASE_SECONDS ?? '60';
const VISIBLE_SECONDS = process.env.BENCH_HOST_VISIBLE_SECONDS ?? (LONG ? '300' : '60');
/** The extension to measure: a clone with dist/ built (another branch's, to compare). */
const EXTENSION_DIR = process.env.BENCH_HOST_EXTENSION_DIR ?? join(__dirname, '..', '..');
const LABEL = process.env.BENCH_HOST_LABEL ?? 'this tree';
const OUT = process.env.BENCH_HOST_OUT ?? 'bench/results/extension-host.json';

/** Renewals (PEXPIRE, the same token) and handovers (SET, a new token) on every node, spread over each second. */
function churn(servers: RedisServer[], keys: number, perSecond: number): () => Promise<number> {
  const clients: Redis[] = servers.map((s) => s.client());
  let owed = 0;
  let changes = 0;
  let generation = 0;
  const timer = setInterval(() => {
    owed += perSecond / 10;
    const n = Math.floor(owed);
    owed -= n;
    if (n === 0) return;
    const ops: Array<[string, string | undefined]> = [];
    for (let i = 0; i < n; i++) {
      const key = `lock:scale:${Math.floor(Math.random() * keys)}`;
      ops.push([key, Math.random() < 0.8 ? undefined : `handover-${++generation}`.padStart(32, '0')]);
    }
    changes += n;
    for (const c of clients) {
      const p = c.pipeline();
      for (const [key, token] of ops) {
        if (token === undefined) p.pexpire(key, 3_600_000);
        else p.set(key, token, 'PX', 3_600_000);
      }
      void p.exec().catch(() => undefined);
    }
  }, 100);
  return async () => {
    clearInterval(timer);
    await Promise.all(clients.map((c) => c.quit().catch(() => undefined)));
    return changes;
  };
}

function runHost(urls: string[], skipFloor: boolean): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const script = join(__dirname, '..', '..', 'scripts', 'bench-host.mjs');
    // The heap, share and GC probes talk to the inspector over WebSocket, a flag away on Node 20.
    const probe = ['BENCH_HOST_HEAP', 'BENCH_HOST_SHARE', 'BENCH_HOST_GC'].some((v) => /^(1|true|yes)$/i.test(process.env[v] ?? ''));
    const flags = probe && typeof WebSocket === 'undefined' ? ['--experimental-websocket'] : [];
    const child = spawn(process.execPath, [...flags, script, EXTENSION_DIR, ...urls], {
      env: { ...process.env, BENCH_HOST_PHASE_SECONDS: PHASE_SECONDS, BENCH_HOST_VISIBLE_SECONDS: VISIBLE_SECONDS, BENCH_HOST_SKIP_FLOOR: skipFloor ? '1' : '' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`bench-host exited with ${code}`));
      else resolve(JSON.parse(out.trim().split('\n').pop()!) as Record<string, unknown>);
    });
  });
}

interface Phase {
  cpuPercent: number;
  rss0Mb: number;
  rss1Mb: number;
}

export async function runExtensionHostBench(): Promise<boolean> {
  const results: Array<Record<string, unknown>> = [];
  let floor: Phase | undefined;
  for (const scale of scales()) {
    const servers = await startNodes(5);
    try {
      await seed(servers, scale.keys);
      const stop = churn(servers, scale.keys, scale.changesPerSecond);
      const started = Date.now();
      let r: Record<string, unknown>;
      try {
        r = await runHost(servers.map((s) => s.url), floor !== undefined);
      } finally {
        const changes = await stop();
        console.log(`host bench ${scale.keys} keys: ${(changes / ((Date.now() - started) / 1000)).toFixed(1)} changes/s written`);
      }
      floor ??= r.floor as Phase | undefined;
      results.push({ ...scale, ...r });
    } finally {
      await Promise.all(servers.map((s) => s.dispose()));
    }
  }
  const seconds = (ms: unknown): string => `${((ms as number) / 1000).toFixed(2)} s`;
  const pct = (p: unknown): string => `${(p as Phase).cpuPercent.toFixed(1)} %`;
  const rows = results.map((r) => [
    `${Number(r.keys).toLocaleString('en-US')} × 5, ${String(r.changesPerSecond)}/s`,
    pct(r.visible), pct(r.hidden), pct(r.never), floor ? pct(floor) : '-',
    r.rssGrowth60Mb === undefined
      ? `${(r.rssGrowthMb as number).toFixed(0)} MB in ${VISIBLE_SECONDS} s`
      : `${(r.rssGrowth60Mb as number).toFixed(0)} MB in 60 s, ${(r.rssGrowthAfter60Mb as number).toFixed(0)} MB more to ${VISIBLE_SECONDS} s`,
    `${seconds(r.firstRowsAfterClickMs)} / ${seconds(r.firstRowsAtStartupMs)}` +
      (r.firstLiveRowsAtStartupMs === undefined ? '' : ` (live ${seconds(r.firstLiveRowsAtStartupMs)})`) +
      (r.firstRowsFromReloadMs === undefined ? '' : ` / ${seconds(r.firstRowsFromReloadMs)} (live ${seconds(r.firstLiveRowsFromReloadMs)})`),
  ]);
  console.log(`\nextension host (real VS Code: code-server + Chromium), ${LABEL}; CPU as % of one core; targets: visible < 5 %, RSS < 150 MB in 60 s and < 50 MB more to 300 s, first rows < 1.5 s`);
  console.log(table(['deployment', 'visible', 'hidden', 'never opened', 'floor (no ext.)', 'RSS growth, visible', 'first rows: click / startup, from the workbench (live) / from the reload (live)'], rows));
  for (const r of results) {
    const plain = r.plain as { firstRowsAtStartupMs: number } | undefined;
    if (plain) console.log(`\n${Number(r.keys).toLocaleString('en-US')} keys, first rows with the view open at startup, from the workbench: ours ${seconds(r.firstRowsAtStartupMs)}, the plain extension (the same view, one row at once: VS Code's own part) ${seconds(plain.firstRowsAtStartupMs)}`);
  }
  for (const r of results) {
    const share = r.share as Record<'never' | 'visible' | 'hidden', { oursPercent: number; gcPercent: number }> | undefined;
    if (!share) continue;
    const each = (k: 'never' | 'visible' | 'hidden'): string => `${k} ${share[k].oursPercent.toFixed(2)} %`;
    console.log(`\n${Number(r.keys).toLocaleString('en-US')} keys, our code's share of the host's main thread (CPU profile; target < 1 %): ${each('never')}, ${each('visible')}, ${each('hidden')}; the garbage collector's, everyone's: ${share.never.gcPercent.toFixed(2)} / ${share.visible.gcPercent.toFixed(2)} / ${share.hidden.gcPercent.toFixed(2)} %`);
  }
  for (const r of results) {
    const heap = r.heap as { start: { heapUsedMb: number }; at60?: { heapUsedMb: number; rssMb: number }; end: { heapUsedMb: number; rssMb: number }; promotedAfter60?: { totalKb: number; bySiteKb: Array<[string, number]> } } | undefined;
    if (!heap) continue;
    console.log(`\n${Number(r.keys).toLocaleString('en-US')} keys, live heap after a full GC: ${heap.start.heapUsedMb} MB at the start, ${heap.at60?.heapUsedMb ?? '-'} MB at 60 s, ${heap.end.heapUsedMb} MB at the end (RSS then ${heap.end.rssMb} MB)`);
    if (heap.promotedAfter60) console.log(`outlived a young GC after 60 s: ${(heap.promotedAfter60.totalKb / 1024).toFixed(0)} MB, most from\n${heap.promotedAfter60.bySiteKb.slice(0, 8).map(([site, kb]) => `  ${(kb / 1024).toFixed(1)} MB  ${site}`).join('\n')}`);
  }
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(OUT, JSON.stringify({ date: new Date().toISOString(), label: LABEL, phaseSeconds: Number(PHASE_SECONDS), visibleSeconds: Number(VISIBLE_SECONDS), floor, scales: results }, null, 2) + '\n');
  return true;
}
