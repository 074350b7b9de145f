// Discover cost: a node of random-token locks (`lock:res:N`, 40 hex characters, a TTL)
// among as many keys that are no locks. Our discover over the whole keyspace against
// `redis-cli --scan` listing every name, as whole processes in interleaved rounds; the
// node's SLOWLOG at 10 ms shows whether any of our commands broke the read ceiling.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { RedisServer } from '../src/dev/redisServer';
import { fmtMs, fmtRatio, table } from './stats';
import { median, timed, type Contender } from './snapshot';

const KEYS = Number(process.env.BENCH_DISCOVER_KEYS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_DISCOVER_ROUNDS ?? 3);
const BASELINE = process.env.BENCH_BASELINE_CORE;
const OUT = process.env.BENCH_DISCOVER_OUT ?? 'bench/results/discover.json';
/** The read ceiling: no command of ours may take longer on the node. */
const CEILING_US = 10_000;

export async function runDiscoverBench(): Promise<boolean> {
  const server = await RedisServer.start();
  try {
    const c = server.client();
    const locks = Math.floor(KEYS / 2);
    for (let i = 0; i < KEYS; i += 10_000) {
      const p = c.pipeline();
      for (let j = i; j < Math.min(KEYS, i + 10_000); j++) {
        if (j < locks) p.set(`lock:res:${j}`, randomBytes(20).toString('hex'), 'PX', 3_600_000);
        else p.set(`cache:item:${j}`, `some cached value ${j}`);
      }
      await p.exec();
    }
    c.disconnect();
    const worker = join(__dirname, 'snapshotWorkers.js');
    const contenders: Contender[] = [
      { name: 'ours: discover (names, values, TTLs, shapes)', argv: (port) => [process.execPath, [worker, 'discover', `redis://127.0.0.1:${port}`]], times: [] },
      { name: 'redis-cli --scan (names only)', argv: (port) => ['redis-cli', ['-p', String(port), '--scan']], times: [] },
    ];
    if (BASELINE) contenders.push({ name: `before: ${BASELINE}`, argv: (port) => [process.execPath, [worker, 'discover', `redis://127.0.0.1:${port}`]], times: [], env: { BENCH_CORE: BASELINE } });
    const admin = server.client();
    await admin.config('SET', 'slowlog-log-slower-than', String(CEILING_US));
    await admin.config('SET', 'slowlog-max-len', '10000');
    const over = new Map<Contender, string[]>();
    const found = new Map<Contender, number>();
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < contenders.length; k++) {
        const ct = contenders[(round + k) % contenders.length];
        const [cmd, args] = ct.argv(server.port);
        await admin.call('SLOWLOG', 'RESET');
        const { ms, out } = timed(cmd, args, ct.env);
        const log = (await admin.call('SLOWLOG', 'GET', '10000')) as Array<[number, number, number, string[]]>;
        const slow = over.get(ct) ?? [];
        for (const e of log) slow.push(`${fmtMs(e[2] / 1000)} ${e[3].slice(0, 2).join(' ').slice(0, 40)}`);
        over.set(ct, slow);
        found.set(ct, ct.name.startsWith('redis-cli') ? out.split('\n').filter(Boolean).length : Number(out.trim()));
        ct.times.push(ms);
      }
    }
    admin.disconnect();
    const ours = median(contenders[0].times);
    console.log(`\ndiscover: ${KEYS.toLocaleString('en-US')} keys on one node (${locks.toLocaleString('en-US')} locks with 40-hex tokens), whole processes, median of ${ROUNDS} interleaved rounds`);
    console.log(table(['contender', 'time', 'keys found', 'commands over 10 ms', 'time / ours'], contenders.map((ct) => [ct.name, fmtMs(median(ct.times)), String(found.get(ct)), String(over.get(ct)?.length ?? 0), fmtRatio(median(ct.times) / ours)])));
    const perMillion = (ours / KEYS) * 1_000_000;
    console.log(`targets: every lock found (${found.get(contenders[0]) === locks ? 'met' : 'MISSED'}); no command over 10 ms (${over.get(contenders[0])!.length === 0 ? 'met' : `MISSED: ${over.get(contenders[0])!.slice(0, 3).join('; ')}`}); 1M keys under 5 s (${fmtMs(perMillion)} per 1M, ${perMillion < 5000 ? 'met' : 'MISSED'})`);
    mkdirSync(dirname(OUT), { recursive: true });
    writeFileSync(OUT, JSON.stringify({ date: new Date().toISOString(), keys: KEYS, locks, rounds: ROUNDS, contenders: contenders.map((ct) => ({ name: ct.name, medianMs: median(ct.times), timesMs: ct.times, found: found.get(ct), commandsOver10ms: over.get(ct) })) }, null, 2) + '\n');
    return true;
  } finally {
    await server.dispose();
  }
}
