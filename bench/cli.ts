// The CLI as a user starts it: `redlock-inspector status`, as JSON and as the table a person
// reads, on one node holding a few lock keys and on one holding many. Each contender is a
// whole process, rounds interleaved. On a small deployment a command's time is mostly
// starting up, which is what a person at a terminal waits for; on a large one, reading and
// laying out the table.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { RedisServer } from '../src/dev/redisServer';
import { median, timed, type Contender } from './snapshot';
import { fmtMs, fmtRatio, table } from './stats';
import { seed } from './watch';

/** Lock keys on the node, one run of rounds each. */
const SCALES = (process.env.BENCH_CLI_KEYS ?? '20,10000').split(',').map(Number);
const ROUNDS = (process.env.BENCH_CLI_ROUNDS ?? '9,5').split(',').map(Number);
/** Another build's CLI (its dist/cli.js), measured beside ours in the same rounds. */
const BASELINE = process.env.BENCH_BASELINE_CLI;
const OUT = process.env.BENCH_CLI_OUT ?? 'bench/results/cli.json';
/** `off`: ours and the baseline alone, without the reference processes (bench:quick's minute). */
const REFERENCES = process.env.BENCH_CLI_REFERENCES !== 'off';

export async function runCliBench(): Promise<boolean> {
  const server = await RedisServer.start();
  const results: unknown[] = [];
  try {
    const url = `redis://127.0.0.1:${server.port}`;
    const cli = resolve(__dirname, '..', '..', 'dist', 'cli.js');
    const status = (path: string, json: boolean): [string, string[]] => [process.execPath, [path, 'status', ...(json ? ['--json'] : []), '--pattern', 'lock:*', '--node', url]];
    for (const [s, keys] of SCALES.entries()) {
      const rounds = ROUNDS[s] ?? ROUNDS[ROUNDS.length - 1];
      await seed([server], keys);
      const contenders: Contender[] = [
        { name: 'ours: status --json', argv: () => status(cli, true), times: [] },
        { name: 'ours: status (the table)', argv: () => status(cli, false), times: [] },
        { name: 'plain ioredis (SCAN, pipelined GET + PTTL)', argv: () => [process.execPath, [join(__dirname, 'snapshotWorkers.js'), 'plain', url]], times: [] },
      ];
      if (REFERENCES) {
        contenders.push(
          { name: 'ours: --version (starting up alone)', argv: () => [process.execPath, [cli, '--version']], times: [] },
          { name: 'redis-cli --scan (names only)', argv: (port) => ['redis-cli', ['-p', String(port), '--scan', '--pattern', 'lock:*']], times: [] },
          { name: 'node -e 0 (Node starting up)', argv: () => [process.execPath, ['-e', '0']], times: [] },
        );
      }
      if (BASELINE) {
        contenders.push({ name: 'before: status --json', argv: () => status(BASELINE, true), times: [] });
        contenders.push({ name: 'before: status (the table)', argv: () => status(BASELINE, false), times: [] });
      }
      for (let round = 0; round < rounds; round++) {
        for (let k = 0; k < contenders.length; k++) {
          const ct = contenders[(round + k) % contenders.length];
          const [cmd, args] = ct.argv(server.port);
          const { ms, out } = timed(cmd, args, { REDLOCK_NODES: '' });
          if (ct.name.endsWith('status --json')) {
            const seen = (JSON.parse(out) as { locks: unknown[] }).locks.length;
            if (seen !== keys) throw new Error(`${ct.name} saw ${seen} of ${keys} locks`);
          }
          ct.times.push(ms);
        }
      }
      const ours = median(contenders[0].times);
      console.log(`\ncli: status on one node with ${keys.toLocaleString('en-US')} lock keys, whole processes, median of ${rounds} interleaved rounds`);
      console.log(table(['contender', 'time', 'time / ours (--json)'], contenders.map((ct) => [ct.name, fmtMs(median(ct.times)), fmtRatio(median(ct.times) / ours)])));
      results.push({ keys, rounds, contenders: contenders.map((ct) => ({ name: ct.name, medianMs: median(ct.times), timesMs: ct.times })) });
    }
    mkdirSync(dirname(OUT), { recursive: true });
    writeFileSync(OUT, JSON.stringify({ date: new Date().toISOString(), scales: results }, null, 2) + '\n');
    return true;
  } finally {
    await server.dispose();
  }
}
