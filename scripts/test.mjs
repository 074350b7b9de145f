// @ts-check
// `npm test`: lint, build, compile the tests, run the core and CLI suites against real
// redis-server processes, then the extension-host suite in a real VS Code, then one UI
// test in the real workbench.
// `npm test -- --core-only` skips the extension host.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';

const coreOnly = process.argv.includes('--core-only');
const mochaArgs = process.argv.slice(2).filter((a) => a !== '--core-only');

function run(cmd, args) {
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

run('npm', ['run', '-s', 'lint']);
run('npm', ['run', '-s', 'build']);
// A test moved or deleted must not run on from an old compiled copy.
rmSync('out', { recursive: true, force: true });
run('npx', ['tsc', '-p', 'tsconfig.test.json']);
run('npx', ['mocha', ...mochaArgs]);
if (!coreOnly) {
  run('node', ['scripts/vscode-tools.mjs']);
  run('node', ['scripts/test-extension.mjs']);
  // One test that clicks through the real workbench (`npm run screenshots` saves its views).
  run('node', ['scripts/test-ui.mjs']);
}
