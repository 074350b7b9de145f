// Snapshot cost: 100,000 lock keys on one node. Our full snapshot (values, TTLs,
// classification) against `redis-cli --scan` listing names only and the plain ioredis
// script (SCAN, then one pipelined GET + PTTL per key per page), each as a whole process, rounds interleaved.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { RedisServer } from '../src/dev/redisServer';
import { fmtMs, fmtRatio, table } from './stats';

const KEYS = Number(process.env.BENCH_SNAPSHOT_KEYS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_SNAPSHOT_ROUNDS ?? 5);
/** Another build of the core (its dist/core/index.js), measured beside ours in the same rounds. */
const BASELINE = process.env.BENCH_BASELINE_CORE;
const OUT = process.env.BENCH_SNAPSHOT_OUT ?? 'bench/results/snapshot.json';

export interface Contender {
  name: string;
  argv: (port: number) => [string, string[]];
  times: number[];
  env?: NodeJS.ProcessEnv;
}

export function timed(cmd: string, args: string[], env?: NodeJS.ProcessEnv): { ms: number; out: string } {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: env ? { ...process.env, ...env } : process.env });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr}`);
  return { ms, out: r.stdout };
}

/**
 * The node's busy time from INFO commandstats: EVAL/EVALSHA (and their _RO forms) usec
 * when scripts ran (the commands inside a script are counted again under their own names),
 * else every command.
 */
function nodeUsec(info: string): number {
  let all = 0;
  let scripts = 0;
  for (const m of info.matchAll(/cmdstat_(\w+):calls=\d+,usec=(\d+)/g)) {
    all += Number(m[2]);
    if (/^eval(sha)?(_ro)?$/.test(m[1])) scripts += Number(m[2]);
  }
  return scripts || all;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export async function runSnapshotBench(): Promise<boolean> {
  const server = await RedisServer.start();
  try {
    const c = server.client();
    for (let i = 0; i < KEYS; i += 10_000) {
      const p = c.pipeline();
      for (let j = i; j < Math.min(KEYS, i + 10_000); j++) p.set(`lock:bench:${j}`, `${j.toString(16).padStart(32, '0')}`, 'PX', 3_600_000);
      await p.exec();
    }
    c.disconnect();
    const worker = join(__dirname, 'snapshotWorkers.js');
    const contenders: Contender[] = [
      { name: 'ours: full snapshot (values, TTLs, verdicts)', argv: (port) => [process.execPath, [worker, 'ours', `redis://127.0.0.1:${port}`]], times: [] },
      { name: 'redis-cli --scan (names only)', argv: (port) => ['redis-cli', ['-p', String(port), '--scan', '--pattern', 'lock:*']], times: [] },
      { name: 'plain ioredis (SCAN, pipelined GET + PTTL per page)', argv: (port) => [process.execPath, [worker, 'plain', `redis://127.0.0.1:${port}`]], times: [] },
    ];
    if (BASELINE) contenders.push({ name: `before: ${BASELINE}`, argv: (port) => [process.execPath, [worker, 'ours', `redis://127.0.0.1:${port}`]], times: [], env: { BENCH_CORE: BASELINE } });
    // The node's own view of our snapshot: its slowest single command (SLOWLOG keeps those
    // over 1 ms; commands inside scripts are logged too, under another client).
    const admin = server.client();
    await admin.config('SET', 'slowlog-log-slower-than', '1000');
    await admin.config('SET', 'slowlog-max-len', '10000');
    let slowest = { ms: 0, command: '(none over 1 ms)' };
    const nodeMs: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < contenders.length; k++) {
        const ct = contenders[(round + k) % contenders.length];
        const [cmd, args] = ct.argv(server.port);
        if (ct === contenders[0]) {
          await admin.call('SLOWLOG', 'RESET');
          await admin.config('RESETSTAT');
        }
        const { ms, out } = timed(cmd, args, ct.env);
        if (ct === contenders[0]) {
          const log = (await admin.call('SLOWLOG', 'GET', '10000')) as Array<[number, number, number, string[]]>;
          // The node's share of the wall time: commandstats' usec summed over every command.
          nodeMs.push(nodeUsec(String(await admin.info('commandstats'))) / 1000);
          for (const e of log) {
            if (e[2] / 1000 > slowest.ms) slowest = { ms: e[2] / 1000, command: e[3].slice(0, 2).join(' ').slice(0, 60) };
          }
        }
        const seen = ct.name.startsWith('redis-cli') ? out.split('\n').filter(Boolean).length : Number(out.trim());
        if (seen !== KEYS) throw new Error(`${ct.name} saw ${seen} of ${KEYS} keys`);
        ct.times.push(ms);
      }
    }
    admin.disconnect();
    const ours = median(contenders[0].times);
    const rows = contenders.map((ct) => {
      const m = median(ct.times);
      return [ct.name, fmtMs(m), `${Math.round(KEYS / (m / 1000)).toLocaleString('en-US')}`, fmtRatio(m / ours)];
    });
    console.log(`\nsnapshot: ${KEYS.toLocaleString('en-US')} lock keys on one node, whole processes, median of ${ROUNDS} interleaved rounds`);
    console.log(table(['contender', 'time', 'keys/s', 'time / ours'], rows));
    const vsCli = median(contenders[1].times) / ours;
    const vsPlain = median(contenders[2].times) / ours;
    console.log(`ours: node time (INFO commandstats, median) ${fmtMs(median(nodeMs))} of ${fmtMs(ours)} wall; the rest is the client`);
    console.log(`ours: slowest single command on the node ${slowest.ms ? fmtMs(slowest.ms) : '< 1 ms'} (${slowest.command})`);
    // vsCli is redis-cli's time over ours: within 1.5x of it is a ratio of at least 1/1.5.
    console.log(`targets: within 1.5x of redis-cli --scan (ours ${fmtRatio(1 / vsCli)} its time, ${vsCli >= 1 / 1.5 ? 'met' : 'MISSED'}); >= 2.5x the plain script (${fmtRatio(vsPlain)} ${vsPlain >= 2.5 ? 'met' : 'MISSED'})`);
    mkdirSync(dirname(OUT), { recursive: true });
    writeFileSync(
      OUT,
      JSON.stringify({ date: new Date().toISOString(), keys: KEYS, rounds: ROUNDS, oursSlowestCommandMs: slowest.ms, oursNodeMs: median(nodeMs), oursSlowestCommand: slowest.command, contenders: contenders.map((ct) => ({ name: ct.name, medianMs: median(ct.times), timesMs: ct.times })) }, null, 2) + '\n',
    );
    return true;
  } finally {
    await server.dispose();
  }
}
