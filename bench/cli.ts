// The CLI as a user starts it: `redlock-inspector status --json` on one node holding a few
// lock keys, each contender a whole process, rounds interleaved. On a small deployment a
// command's time is mostly starting up, which is what a person at a terminal waits for.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { RedisServer } from '../src/dev/redisServer';
import { median, timed, type Contender } from './snapshot';
import { fmtMs, fmtRatio, table } from './stats';

const KEYS = Number(process.env.BENCH_CLI_KEYS ?? 20);
const ROUNDS = Number(process.env.BENCH_CLI_ROUNDS ?? 9);
/** Another build's CLI (its dist/cli.js), measured beside ours in the same rounds. */
const BASELINE = process.env.BENCH_BASELINE_CLI;
const OUT = process.env.BENCH_CLI_OUT ?? 'bench/results/cli.json';

export async function runCliBench(): Promise<boolean> {
  const server = await RedisServer.start();
  try {
    const c = server.client();
    const p = c.pipeline();
    for (let j = 0; j < KEYS; j++) p.set(`lock:cli:${j}`, j.toString(16).padStart(32, '0'), 'PX', 3_600_000);
    await p.exec();
    c.disconnect();
    const url = `redis://127.0.0.1:${server.port}`;
    const cli = resolve(__dirname, '..', '..', 'dist', 'cli.js');
    const status = (path: string): [string, string[]] => [process.execPath, [path, 'status', '--json', '--pattern', 'lock:*', '--node', url]];
    const contenders: Contender[] = [
      { name: 'ours: status --json', argv: () => status(cli), times: [] },
      { name: 'ours: --version (starting up alone)', argv: () => [process.execPath, [cli, '--version']], times: [] },
      { name: 'redis-cli --scan (names only)', argv: (port) => ['redis-cli', ['-p', String(port), '--scan', '--pattern', 'lock:*']], times: [] },
      { name: 'plain ioredis (SCAN, pipelined GET + PTTL)', argv: () => [process.execPath, [join(__dirname, 'snapshotWorkers.js'), 'plain', url]], times: [] },
      { name: 'node -e 0 (Node starting up)', argv: () => [process.execPath, ['-e', '0']], times: [] },
    ];
    if (BASELINE) contenders.push({ name: `before: ${BASELINE} status --json`, argv: () => status(BASELINE), times: [] });
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < contenders.length; k++) {
        const ct = contenders[(round + k) % contenders.length];
        const [cmd, args] = ct.argv(server.port);
        const { ms, out } = timed(cmd, args, { REDLOCK_NODES: '' });
        if (ct.name.endsWith('status --json')) {
          const seen = (JSON.parse(out) as { locks: unknown[] }).locks.length;
          if (seen !== KEYS) throw new Error(`${ct.name} saw ${seen} of ${KEYS} locks`);
        }
        ct.times.push(ms);
      }
    }
    const ours = median(contenders[0].times);
    console.log(`\ncli: status --json on one node with ${KEYS} lock keys, whole processes, median of ${ROUNDS} interleaved rounds`);
    console.log(table(['contender', 'time', 'time / ours'], contenders.map((ct) => [ct.name, fmtMs(median(ct.times)), fmtRatio(median(ct.times) / ours)])));
    mkdirSync(dirname(OUT), { recursive: true });
    writeFileSync(OUT, JSON.stringify({ date: new Date().toISOString(), keys: KEYS, rounds: ROUNDS, contenders: contenders.map((ct) => ({ name: ct.name, medianMs: median(ct.times), timesMs: ct.times })) }, null, 2) + '\n');
    return true;
  } finally {
    await server.dispose();
  }
}
