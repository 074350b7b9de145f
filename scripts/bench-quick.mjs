// @ts-check
// `npm run bench:quick`: the same benches as `npm run bench` on fewer keys and shorter
// rounds (snapshot, discover, the CLI's status, the lock scenarios), under a minute, so
// anyone can compare a change before they stop. The ratios are the figures to compare;
// results go to out/bench-quick/, never over the recorded bench/results/. With
// BENCH_BASELINE=<a checkout of main, built>, that build's core and CLI run beside ours in
// the same rounds.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

function run(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const baseline = process.env.BENCH_BASELINE ? resolve(process.env.BENCH_BASELINE) : undefined;
run('npm', ['run', '-s', 'build']);
run('npx', ['tsc', '-p', 'tsconfig.test.json']);
run('node', ['out/bench/run.js', 'snapshot', 'discover', 'cli', 'locks'], {
  BENCH_SNAPSHOT_KEYS: '20000',
  BENCH_SNAPSHOT_ROUNDS: '3',
  BENCH_SNAPSHOT_OUT: 'out/bench-quick/snapshot.json',
  BENCH_DISCOVER_KEYS: '100000',
  BENCH_DISCOVER_ROUNDS: '2',
  BENCH_DISCOVER_OUT: 'out/bench-quick/discover.json',
  BENCH_CLI_KEYS: '2000',
  BENCH_CLI_ROUNDS: '3',
  BENCH_CLI_REFERENCES: 'off',
  BENCH_CLI_OUT: 'out/bench-quick/cli.json',
  BENCH_SECONDS: '0.4',
  BENCH_ROUNDS: '2',
  BENCH_WARMUP_SECONDS: '0.2',
  // One contention phase, the harness (held across one turn, retry every 10 ms).
  BENCH_HOLD_MS: '0',
  BENCH_RETRY_DELAY_MS: '10',
  BENCH_PEER_PIPELINING: 'off',
  BENCH_OUT: 'out/bench-quick/locks.json',
  ...(baseline ? { BENCH_BASELINE_CORE: `${baseline}/dist/core/index.js`, BENCH_BASELINE_CLI: `${baseline}/dist/cli.js`, BENCH_CORE_VARIANTS: `before=${baseline}/out/src/core/index.js` } : {}),
});
