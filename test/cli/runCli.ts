// Runs the built CLI (dist/cli.js, `npm run build`) as a user would: a child process whose
// stdin is a pipe (not a terminal), with REDLOCK_* taken from the test only.
import { spawn, ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

// Resolved from the working directory: mocha runs from the repository root, while the
// compiled test may live in any outDir.
export const CLI = resolve(process.env.REDLOCK_CLI ?? resolve(process.cwd(), 'dist/cli.js'));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

function cleanEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(base)) if (k.startsWith('REDLOCK_') || k === 'NO_COLOR' || k === 'FORCE_COLOR') delete base[k];
  return { ...base, ...env };
}

export function startCli(args: string[], env: Record<string, string> = {}): ChildProcess {
  if (!existsSync(CLI)) throw new Error(`${CLI} missing: run \`npm run build\` first`);
  return spawn(process.execPath, [CLI, ...args], { env: cleanEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
}

export function runCli(args: string[], env: Record<string, string> = {}, timeoutMs = 20_000): Promise<CliResult> {
  const t0 = Date.now();
  const child = startCli(args, env);
  child.stdin!.end();
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += String(d)));
  child.stderr!.on('data', (d) => (stderr += String(d)));
  return new Promise((res, rej) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      rej(new Error(`CLI ${args.join(' ')} did not exit within ${timeoutMs} ms; stdout=${stdout} stderr=${stderr}`));
    }, timeoutMs);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      res({ code, signal, stdout, stderr, ms: Date.now() - t0 });
    });
  });
}
