// @ts-check
// `npm run screenshots`: renders the README screenshots into media/screenshots (the only
// command that writes them): the detail panel from its rendering test, the workbench
// views from the UI test. Builds first.
import { spawnSync } from 'node:child_process';

/** @param {string} cmd @param {string[]} args @param {NodeJS.ProcessEnv} [env] */
function run(cmd, args, env = process.env) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', env });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

run('npm', ['run', '-s', 'build']);
run('npx', ['tsc', '-p', 'tsconfig.test.json']);
run('npx', ['mocha', '--no-config', '--timeout', '60000', '--grep', 'README screenshot', 'out/test/webview/main.test.js'], { ...process.env, REDLOCK_SCREENSHOTS: '1' });
run('node', ['scripts/vscode-tools.mjs']);
run('node', ['scripts/test-ui.mjs', '--screenshots']);
