// Child process for the watch bench: `node out/bench/watchWorker.js <mode> <seconds> <url>...`.
// mode `snapshot`: one full snapshot, prints its time. mode `watch`: a 1 Hz watch for the
// given seconds, prints its own CPU time, peak RSS, tick count, the time to its first
// snapshot and the locks its changes named (nothing writes meanwhile: each is a false change).
import { performance } from 'node:perf_hooks';
import { Redlock } from '../src/core';

async function main(): Promise<void> {
  const [mode, secondsText, ...urls] = process.argv.slice(2);
  const rl = new Redlock(urls, { readTimeoutMs: 60_000 });
  const limits = { patterns: ['lock:*'], maxKeys: 10_000_000, timeBudgetMs: 600_000 };
  if (mode === 'snapshot') {
    await rl.inspect({ ...limits, patterns: ['warmup-nothing'] });
    const t0 = performance.now();
    const snap = await rl.inspect(limits);
    const ms = performance.now() - t0;
    console.log(JSON.stringify({ ms, locks: snap.locks.length }));
  } else {
    let ticks = 0;
    let locks = 0;
    let firstSnapshotMs = 0;
    // Nothing writes to the nodes during a watch bench: every added, changed or removed lock is a false change.
    let changes = 0;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const watcher = rl.watch({ ...limits, intervalMs: 1000 }, {
      snapshot: (s) => {
        ticks++;
        locks = s.locks.length;
        firstSnapshotMs = performance.now() - t0;
      },
      change: (c) => {
        changes += c.added.length + c.changed.length + c.removed.length;
      },
      error: (e) => console.error(e),
    });
    const tick = watcher.tick.bind(watcher);
    watcher.tick = async () => {
      await tick();
      ticks++;
    };
    await new Promise((r) => setTimeout(r, Number(secondsText) * 1000));
    await watcher.stop();
    const cpu = process.cpuUsage(cpu0);
    // With --expose-gc: the watch state that stays (live heap), beside the peak.
    global.gc?.();
    const liveHeapMb = process.memoryUsage().heapUsed / 2 ** 20;
    console.log(JSON.stringify({ cpuMs: (cpu.user + cpu.system) / 1000, maxRssMb: process.resourceUsage().maxRSS / 1024, liveHeapMb, ticks, locks, firstSnapshotMs, changes }));
  }
  await rl.quit();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
