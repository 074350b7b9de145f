// A split is told only once a re-read confirms it: real processes hand locks over hundreds
// of times a second (release, then acquire) and no surface of the core reports a split,
// while a split seeded on the nodes is still reported by the first tick that reads it.
import assert from 'node:assert/strict';
import { ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { LockEntry } from '../../../src/core';
import { useNodes } from '../../support/nodesFixture';
import { waitFor } from '../../support/wait';

const WORKER = resolve(__dirname, '..', '..', 'support', 'handoverWorker.js');

interface Worker {
  proc: ChildProcess;
  out: () => string;
  exited: Promise<number | null>;
}

function startWorker(urls: string[], keys: string[]): Worker {
  const proc = spawn(process.execPath, [WORKER, JSON.stringify({ urls, keys })], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d) => (out += String(d)));
  proc.stderr!.on('data', (d) => (out += String(d)));
  const exited = new Promise<number | null>((r) => proc.once('exit', (c) => r(c)));
  return { proc, out: () => out, exited };
}

describe('split confirmation on real nodes', function () {
  this.timeout(60_000);
  const fx = useNodes(5, { commandTimeoutMs: 500, readTimeoutMs: 500 });

  it('reports no split while processes hand locks over hundreds of times a second, and a seeded split within one tick', async () => {
    const urls = fx.servers.map((s) => s.url);
    const workers = [startWorker(urls, ['lock:hand:a', 'lock:hand:b']), startWorker(urls, ['lock:hand:c', 'lock:hand:d'])];
    const splits: string[] = [];
    // The tick count when the first split was told: waitFor below polls slower than 5 ms ticks.
    let toldAt = -1;
    const noteSplits = (entries: LockEntry[], where: string): void => {
      for (const e of entries) {
        if (e.verdict !== 'split') continue;
        if (splits.length === 0) toldAt = ticks;
        splits.push(`${where}: ${e.key} ${JSON.stringify(e.holders)}`);
      }
    };
    let ticks = 0;
    const w = fx.rl.watch({ intervalMs: 5 }, {
      snapshot: (s) => noteSplits(s.locks, 'watch snapshot'),
      change: (c) => noteSplits([...c.added, ...c.changed], 'watch change'),
      status: () => ticks++,
    });
    const started = Date.now();
    try {
      await waitFor(() => workers.every((wk) => wk.out().includes('ready')), 10_000, 'workers holding their keys');
      const from = ticks;
      let snapshots = 0;
      // Snapshots (the CLI's, the exporter's and MCP's read) alongside the watch's ticks.
      const until = Date.now() + 20_000;
      while ((ticks - from < 100 || snapshots < 50) && Date.now() < until) {
        noteSplits((await fx.rl.inspect()).locks, 'snapshot');
        snapshots++;
      }
      for (const wk of workers) wk.proc.stdin!.write('stop\n');
      const codes = await Promise.race([Promise.all(workers.map((wk) => wk.exited)), new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`workers did not stop: ${workers.map((wk) => wk.out()).join(' | ')}`)), 10_000))]);
      const seconds = (Date.now() - started) / 1000;
      const handovers = workers.reduce((n, wk) => n + Number(/handovers (\d+)/.exec(wk.out())?.[1] ?? 0), 0);
      assert.deepEqual(codes, [0, 0], workers.map((wk) => wk.out()).join('\n'));
      console.log(`      ${handovers} handovers in ${seconds.toFixed(1)} s, ${ticks - from} watch ticks, ${snapshots} snapshots`);
      assert.ok(ticks - from >= 100 && snapshots >= 50, `only ${ticks - from} ticks and ${snapshots} snapshots in 20 s`);
      assert.ok(handovers / seconds >= 200, `only ${handovers} handovers in ${seconds} s`);
      assert.deepEqual(splits, []);

      // A real split: two tokens on the nodes at once, as after a failover.
      const clients = fx.servers.map((s) => s.client());
      try {
        await Promise.all(clients.map((c, i) => c.set('lock:seeded', i < 2 ? 'token-a' : 'token-b', 'PX', 60_000)));
      } finally {
        for (const c of clients) c.disconnect();
      }
      // The tick under way may have scanned before the seed; the one after it must tell.
      const seededAt = ticks;
      await waitFor(() => splits.length > 0, 5000, 'the seeded split');
      assert.ok(toldAt - seededAt <= 2, `told after ${toldAt - seededAt} ticks`);
      assert.match(splits[0], /^watch change: lock:seeded /);
      const snap = await fx.rl.inspect();
      assert.equal(snap.locks.find((l) => l.key === 'lock:seeded')?.verdict, 'split');
    } finally {
      await w.stop();
      for (const wk of workers) if (wk.proc.exitCode === null) wk.proc.kill();
    }
  });
});

describe('TTL skew confirmation on real nodes', function () {
  this.timeout(30_000);
  const fx = useNodes(3, { commandTimeoutMs: 500, readTimeoutMs: 500 });

  it('a renewal that lands on the nodes a moment apart is no skew; a skew that stays put is told', async () => {
    const clients = fx.servers.map((s) => s.client());
    try {
      for (const c of clients) await c.set('lock:renewed', 'tok', 'PX', 30_000);
      for (const [i, c] of clients.entries()) await c.set('lock:skewed', 'tok2', 'PX', i === 0 ? 20_000 : 60_000);
      // The holder renews every 30 ms, each time a second further, one node after the other
      // 3 ms apart: a read in between sees copies a second apart, far past the drift allowance.
      let renewing = true;
      const renewer = (async () => {
        for (let ttl = 31_000; renewing; ttl += 1000) {
          for (const c of clients) {
            await c.pexpire('lock:renewed', ttl);
            await new Promise((r) => setTimeout(r, 3));
          }
          await new Promise((r) => setTimeout(r, 24));
        }
      })();
      const seen = { renewed: 0, skewed: 0, reads: 0 };
      try {
        const until = Date.now() + 3000;
        while (Date.now() < until) {
          const s = await fx.rl.inspect({ patterns: ['lock:renewed', 'lock:skewed'] });
          seen.reads++;
          if (s.locks.find((l) => l.key === 'lock:renewed')?.flags.includes('ttl-skew')) seen.renewed++;
          if (s.locks.find((l) => l.key === 'lock:skewed')?.flags.includes('ttl-skew')) seen.skewed++;
        }
      } finally {
        renewing = false;
        await renewer;
      }
      assert.ok(seen.reads > 20, `only ${seen.reads} reads`);
      assert.equal(seen.skewed, seen.reads, 'the copies that stay apart are a skew every time');
      assert.equal(seen.renewed, 0, `a renewal in flight was told as a skew ${seen.renewed} times of ${seen.reads}`);
    } finally {
      clients.forEach((c) => c.disconnect());
    }
  });
});
