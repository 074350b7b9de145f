// Whole-process contenders for the snapshot bench: each reads every `lock:*` key of one
// node and prints how many it saw. Run as `node out/bench/snapshotWorkers.js <mode> <url>`.
import Redis from 'ioredis';
import type { Redlock as RedlockType } from '../src/core';

// The core as it ships (one bundle in dist/, `npm run build`), not the test build.
const { Redlock } = require('../../dist/core/index.js') as { Redlock: typeof RedlockType };

async function ours(url: string): Promise<number> {
  const rl = new Redlock([url], { readTimeoutMs: 30_000 });
  const snap = await rl.inspect({ patterns: ['lock:*'], maxKeys: 10_000_000, timeBudgetMs: 600_000 });
  await rl.quit();
  return snap.locks.length;
}

/** The straightforward script: SCAN, then GET + PTTL per key through ioredis. */
async function straightforward(url: string): Promise<number> {
  const c = new Redis(url);
  let cursor = '0';
  let n = 0;
  do {
    const [next, keys] = await c.scan(cursor, 'MATCH', 'lock:*', 'COUNT', 1000);
    cursor = next;
    const rows = await Promise.all(keys.map(async (k) => ({ key: k, value: await c.get(k), pttl: await c.pttl(k) })));
    n += rows.filter((r) => r.value !== null).length;
  } while (cursor !== '0');
  c.disconnect();
  return n;
}

const [mode, url] = process.argv.slice(2);
(mode === 'ours' ? ours(url) : straightforward(url)).then(
  (n) => console.log(n),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
