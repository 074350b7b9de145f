// The editor extension's cost with 10,000 locks on each of 5 nodes, refreshing every
// second: the shipped bundle runs in a child process against the stand-in `vscode`
// (src/dev/fakeVscode.ts), with the Locks view visible for BENCH_EXT_VISIBLE_SECONDS, then
// hidden for BENCH_EXT_HIDDEN_SECONDS. The stand-in builds every tree item the provider
// fires, as the extension host does; VS Code's own rendering is not in these figures.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startNodes } from '../src/dev/redisServer';
import { table } from './stats';
import { seed } from './watch';

const LOCKS = Number(process.env.BENCH_EXT_LOCKS ?? 10_000);
const VISIBLE_SECONDS = Number(process.env.BENCH_EXT_VISIBLE_SECONDS ?? 60);
const HIDDEN_SECONDS = Number(process.env.BENCH_EXT_HIDDEN_SECONDS ?? 60);

export async function runExtensionBench(): Promise<boolean> {
  const servers = await startNodes(5);
  try {
    await seed(servers, LOCKS);
    const r = spawnSync(process.execPath, ['--expose-gc', join(__dirname, 'extensionWorker.js'), String(VISIBLE_SECONDS), String(HIDDEN_SECONDS), String(LOCKS), ...servers.map((s) => s.url)], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`extension worker failed: ${r.stderr}`);
    const m = JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, number>;
    const rows = [
      ['activate()', `${m.activateMs.toFixed(1)} ms (bundle load ${m.loadMs.toFixed(0)} ms)`, '< 50 ms', m.activateMs < 50 ? 'met' : 'MISSED'],
      ['first rows after the view opens', `${(m.firstRowsMs / 1000).toFixed(2)} s`, '< 1.5 s', m.firstRowsMs < 1500 ? 'met' : 'MISSED'],
      [`CPU, view visible (${VISIBLE_SECONDS} s)`, `${m.cpuPercent.toFixed(2)} % of a core (${Math.round(m.itemsPerSecond)} tree items/s)`, '< 5 %', m.cpuPercent < 5 ? 'met' : 'MISSED'],
      [`CPU, view hidden (${HIDDEN_SECONDS} s)`, `${m.hiddenCpuPercent.toFixed(2)} % of a core`, '< 1 %', m.hiddenCpuPercent < 1 ? 'met' : 'MISSED'],
      ['RSS growth, before activation to end of visible phase', `${m.rssGrowthMb.toFixed(0)} MB (heap ${m.heapMb.toFixed(0)} MB)`, '< 150 MB', m.rssGrowthMb < 150 ? 'met' : 'MISSED'],
    ];
    console.log(`\nextension: ${LOCKS.toLocaleString('en-US')} locks x 5 nodes, 1 s refresh (bundle + stand-in vscode)`);
    console.log(table(['measure', 'result', 'target', ''], rows));
    mkdirSync('bench/results', { recursive: true });
    writeFileSync('bench/results/extension.json', JSON.stringify({
      date: new Date().toISOString(),
      locksPerNode: LOCKS, nodes: 5, refreshIntervalMs: 1000, visibleSeconds: VISIBLE_SECONDS, hiddenSeconds: HIDDEN_SECONDS,
      cpuPercent: m.cpuPercent, hiddenCpuPercent: m.hiddenCpuPercent, rssGrowthMb: m.rssGrowthMb, activateMs: m.activateMs,
      loadMs: m.loadMs, firstRowsMs: m.firstRowsMs, heapMb: m.heapMb, treeItemsPerSecond: m.itemsPerSecond,
    }, null, 2) + '\n');
    return true;
  } finally {
    await Promise.all(servers.map((s) => s.dispose()));
  }
}
