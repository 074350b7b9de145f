// `npm test`: build, compile the tests, run the core and CLI suites against real
// redis-server processes, then the extension-host suite.
import { spawnSync } from 'node:child_process';

function run(cmd, args) {
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

run('npm', ['run', '-s', 'build']);
run('npx', ['tsc', '-p', 'tsconfig.test.json']);
run('npx', ['mocha', ...process.argv.slice(2)]);
