// Online launcher for the extension-host test suite: the same mocha suite
// (out/test/extension/suite/index.js) in a desktop VS Code that @vscode/test-electron
// downloads (needs update.code.visualstudio.com; on a headless Linux run it under xvfb-run).
// Offline machines use scripts/test-extension.mjs (code-server); scripts/test-extension-auto.mjs picks.
//
//   npm run build && npx tsc -p tsconfig.test.json && node scripts/test-extension-electron.mjs
//
// Env: REDLOCK_VSCODE_VERSION (default 'stable'), REDLOCK_TEST_GREP; everything else in this
// process's environment reaches the extension host (runTests spawns VS Code with it).
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTests } from '@vscode/test-electron';
import { toolsDir } from './vscode-tools.mjs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const extensionTestsPath = join(repoRoot, 'out', 'test', 'extension', 'suite', 'index.js');

for (const [p, how] of [
  [join(repoRoot, 'dist', 'extension.js'), 'npm run build'],
  [extensionTestsPath, 'npx tsc -p tsconfig.test.json'],
]) {
  if (!existsSync(p)) {
    console.error(`[test-extension-electron] ${p} is missing: run \`${how}\` first`);
    process.exit(1);
  }
}
if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
  console.error('[test-extension-electron] no DISPLAY: run under `xvfb-run -a`, or use scripts/test-extension.mjs (code-server, headless)');
}

const tmp = mkdtempSync(join(tmpdir(), 'redlock-ext-test-'));
const workspace = join(tmp, 'workspace');
mkdirSync(workspace);
let code;
try {
  code = await runTests({
    version: process.env.REDLOCK_VSCODE_VERSION || 'stable',
    // Keep the ~150 MB download out of the repo, next to the offline tools.
    cachePath: join(toolsDir(), 'vscode-test'),
    extensionDevelopmentPath: repoRoot,
    extensionTestsPath,
    extensionTestsEnv: { REDLOCK_EXT_TEST: '1' },
    launchArgs: [
      workspace,
      '--disable-extensions',
      `--user-data-dir=${join(tmp, 'user-data')}`,
      `--extensions-dir=${join(tmp, 'extensions')}`,
    ],
  });
} catch (e) {
  // TestRunFailedError: the suite failed (or VS Code crashed); anything else: download/launch trouble.
  console.error(`[test-extension-electron] ${e.message}`);
  code = typeof e.code === 'number' && e.code !== 0 ? e.code : 1;
} finally {
  rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
}
process.exit(code);
