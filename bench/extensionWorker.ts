// Child process for the extension bench: `node out/bench/extensionWorker.js <visibleS> <hiddenS> <url>...`.
// Loads the shipped bundle (dist/extension.js) against the stand-in `vscode` module and
// activates it with the nodes configured, as a user opening the Locks view would: the
// same model, watcher, tree, countdown, status bar and notifier code as in the editor.
// Prints one JSON line: activation time, time to first rows, CPU visible and hidden, RSS.
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createFakeVscode, installFakeVscode, type FakeTreeView } from '../src/dev/fakeVscode';

const cpuMs = (u: NodeJS.CpuUsage): number => (u.user + u.system) / 1000;

async function waitUntil(probe: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function main(): Promise<void> {
  const [visibleText, hiddenText, expectedText, ...urls] = process.argv.slice(2);
  const visibleS = Number(visibleText);
  const hiddenS = Number(hiddenText);
  const expected = Number(expectedText);
  const fake = createFakeVscode();
  installFakeVscode(fake);
  fake.settings.set('nodes', urls);
  fake.settings.set('keyPatterns', ['lock:*']);
  fake.settings.set('refreshIntervalMs', 1000);
  fake.settings.set('maxKeys', 10_000);
  const root = join(__dirname, '..', '..');
  global.gc?.();
  const rss0 = process.memoryUsage().rss;

  const l0 = performance.now();
  const ext = require(join(root, 'dist', 'extension.js')) as { activate(c: unknown): { model: { snapshot?: { locks: unknown[] } } }; deactivate(): Promise<void> };
  const loadMs = performance.now() - l0;
  const a0 = performance.now();
  const api = ext.activate(fake.context(root));
  const activateMs = performance.now() - a0;

  const view = fake.views.get('redlock.locks') as FakeTreeView<unknown>;
  const shown = performance.now();
  await view.setVisible(true);
  // Rows: one per lock (plus "Load more" when the scan was cut).
  await waitUntil(() => view.rows.length >= expected, 60_000, 'first rows');
  const firstRowsMs = performance.now() - shown;

  const built0 = view.itemsBuilt;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, visibleS * 1000));
  await view.settled();
  const visibleCpu = cpuMs(process.cpuUsage(c0)) / (performance.now() - t0);
  const itemsPerSecond = (view.itemsBuilt - built0) / visibleS;
  global.gc?.();
  const rssVisible = process.memoryUsage().rss;
  const heapVisibleMb = process.memoryUsage().heapUsed / 2 ** 20;

  await view.setVisible(false);
  const nodesView = fake.views.get('redlock.nodes') as FakeTreeView<unknown>;
  await nodesView.setVisible(false);
  const c1 = process.cpuUsage();
  const t1 = performance.now();
  await new Promise((r) => setTimeout(r, hiddenS * 1000));
  const hiddenCpu = cpuMs(process.cpuUsage(c1)) / (performance.now() - t1);

  const locks = api.model.snapshot?.locks.length ?? 0;
  await ext.deactivate();
  console.log(JSON.stringify({
    loadMs, activateMs, firstRowsMs, cpuPercent: visibleCpu * 100, hiddenCpuPercent: hiddenCpu * 100,
    rssGrowthMb: (rssVisible - rss0) / 2 ** 20, heapMb: heapVisibleMb, maxRssMb: process.resourceUsage().maxRSS / 1024,
    itemsPerSecond, locks,
  }));
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
