// Whole-process contenders for the snapshot bench: each reads every `lock:*` key of one
// node and prints how many it saw. Run as `node out/bench/snapshotWorkers.js <mode> <url>`.
import Redis from 'ioredis';
import type { Redlock as RedlockType } from '../src/core';

// The core as it ships (one bundle in dist/, `npm run build`), not the test build; or
// another build of it (BENCH_CORE, e.g. the main a change started from), side by side.
const { Redlock } = require(process.env.BENCH_CORE ?? '../../dist/core/index.js') as { Redlock: typeof RedlockType };

async function ours(url: string): Promise<number> {
  const rl = new Redlock([url], { readTimeoutMs: 30_000 });
  const snap = await rl.inspect({ patterns: ['lock:*'], maxKeys: 10_000_000, timeBudgetMs: 600_000 });
  await rl.quit();
  return snap.locks.length;
}

/**
 * The plain script an experienced user writes: SCAN COUNT 1000, then one pipeline per page
 * with a GET and a PTTL per key (one round trip per page).
 */
async function plain(url: string): Promise<number> {
  const c = new Redis(url);
  let cursor = '0';
  let n = 0;
  do {
    const [next, keys] = await c.scan(cursor, 'MATCH', 'lock:*', 'COUNT', 1000);
    cursor = next;
    const p = c.pipeline();
    for (const k of keys) p.get(k).pttl(k);
    const replies = (await p.exec()) ?? [];
    for (let i = 0; i < replies.length; i += 2) if (replies[i][1] !== null) n++;
  } while (cursor !== '0');
  c.disconnect();
  return n;
}

/** Our discover over the whole keyspace: prints the lock-shaped keys it found. */
async function discover(url: string): Promise<number> {
  const rl = new Redlock([url], { readTimeoutMs: 30_000 });
  const d = await rl.discover({ budgetKeys: 10_000_000, timeBudgetMs: 600_000 });
  await rl.quit();
  return d.patterns.reduce((n, p) => n + p.count, 0);
}

const MODES: Record<string, (url: string) => Promise<number>> = { ours, plain, discover };
const [mode, url] = process.argv.slice(2);
MODES[mode](url).then(
  (n) => console.log(n),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
