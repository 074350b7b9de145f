// The detail panel's chart under load: 7 nodes and 10 minutes of 1 s samples in headless
// Chromium. Runs the bounded-chart test of test/webview/main.test.ts with
// PANEL_BENCH_OUT set, which makes it record render times and frames per second; the
// targets are held here, not in the test (no timing assertion in a unit test).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { table } from './stats';

export async function runWebviewBench(): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'redlock-webview-bench-'));
  const out = join(dir, 'figures.json');
  try {
    const r = spawnSync(process.execPath, [require.resolve('mocha/bin/mocha.js'), '--no-config', '--timeout', '60000', '--grep', 'keeps the chart bounded', join(__dirname, '..', 'test', 'webview', 'main.test.js')], { encoding: 'utf8', env: { ...process.env, PANEL_BENCH_OUT: out } });
    if (r.status !== 0) throw new Error(`webview bench failed: ${r.stdout}\n${r.stderr}`);
    const m = JSON.parse(readFileSync(out, 'utf8')) as { renderMs: number[]; framesPerSecond: number };
    const median = [...m.renderMs].sort((a, b) => a - b)[Math.floor(m.renderMs.length / 2)];
    const rows = [
      ['chart re-render, median of 5', `${median.toFixed(1)} ms (${m.renderMs.map((t) => t.toFixed(1)).join(', ')})`, '< 30 ms', median < 30 ? 'met' : 'MISSED'],
      ['frames in 1 s while counting down', String(m.framesPerSecond), '>= 20', m.framesPerSecond >= 20 ? 'met' : 'MISSED'],
    ];
    console.log('\nwebview: detail panel chart, 7 nodes x 600 samples (headless Chromium)');
    console.log(table(['measure', 'result', 'target', ''], rows));
    mkdirSync('bench/results', { recursive: true });
    writeFileSync('bench/results/webview.json', JSON.stringify({ date: new Date().toISOString(), nodes: 7, samples: 600, renderMs: m.renderMs, medianRenderMs: median, framesPerSecond: m.framesPerSecond }, null, 2) + '\n');
    return true;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
