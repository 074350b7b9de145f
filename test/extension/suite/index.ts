// Entry point of the extension-host test suite: VS Code loads this file inside the
// extension host (through @vscode/test-electron or, offline, through code-server; see
// scripts/test-extension.mjs) and awaits run(). A rejection is a failed run.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { format } from 'node:util';
import Mocha from 'mocha';

// The web workbench (code-server launcher) forwards an extension-host console call only
// when its first argument is a string: console.log() and console.log(obj) vanish there
// (write console.log('%o', obj) in tests). The extension host also ignores assignments to
// console.log, so give mocha's reporter one formatted string per line instead.
function stringOnlyReporterOutput(): () => void {
  const base = Mocha.reporters.Base as unknown as { consoleLog: (...args: unknown[]) => void };
  const saved = base.consoleLog;
  base.consoleLog = (...args: unknown[]) => console.log(args.length ? format(...args) : ' ');
  return () => {
    base.consoleLog = saved;
  };
}

function findTests(dir: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...findTests(full));
    else if (entry.isFile() && entry.name.endsWith('.test.js')) found.push(full);
  }
  return found.sort();
}

export async function run(): Promise<void> {
  const mocha = new Mocha({
    ui: 'bdd',
    color: false,
    timeout: Number(process.env.REDLOCK_EXT_TEST_MOCHA_TIMEOUT_MS) || 20_000,
    // e.g. REDLOCK_TEST_GREP=activation node scripts/test-extension.mjs
    grep: process.env.REDLOCK_TEST_GREP || undefined,
  });

  // The same root hooks as the core suite (every redis-server a test started is stopped).
  const hooks = path.resolve(__dirname, '../../support/hooks.js');
  if (fs.existsSync(hooks)) {
    mocha.rootHooks(require(hooks).mochaHooks);
  }

  // tsc never deletes outputs: skip compiled tests whose .ts source was deleted or renamed.
  const repoRoot = path.resolve(__dirname, '../../../..');
  const files = findTests(__dirname).filter((js) => {
    const ts = path.join(repoRoot, path.relative(path.join(repoRoot, 'out'), js)).replace(/\.js$/, '.ts');
    if (fs.existsSync(path.dirname(ts)) && !fs.existsSync(ts)) {
      console.warn(`skipping ${js}: its source ${ts} is gone (stale tsc output)`);
      return false;
    }
    return true;
  });
  if (files.length === 0) throw new Error(`no *.test.js files under ${__dirname}`);
  for (const f of files) mocha.addFile(f);

  const restoreConsole = stringOnlyReporterOutput();
  let failures: number;
  try {
    failures = await new Promise<number>((resolve, reject) => {
      try {
        mocha.run(resolve);
      } catch (e) {
        reject(e);
      }
    });
  } finally {
    restoreConsole();
  }
  if (failures > 0) throw new Error(`${failures} extension test(s) failed`);
}
