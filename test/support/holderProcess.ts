// A lock holder in a process of its own (holderWorker.ts, on the built core): tests start
// it with a plan, read the words it prints, pause it with SIGSTOP, and stop it.
import { ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';

const WORKER = resolve(__dirname, 'holderWorker.js');

export interface Worker {
  proc: ChildProcess;
  pid: number;
  /** Resolves when the worker printed `word`. */
  said(word: string, timeoutMs?: number): Promise<void>;
  send(word: string): void;
  exited: Promise<number | null>;
}

export function startWorker(plan: Record<string, unknown>): Worker {
  const proc = spawn(process.execPath, [WORKER, JSON.stringify({ ttlMs: 30_000, retryCount: 0, retryDelayMs: 100, ...plan })], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  const seen = new Set<string>();
  const waiting = new Map<string, () => void>();
  proc.stdout!.on('data', (d) => {
    out += String(d);
    for (const w of out.split('\n')) {
      seen.add(w.trim());
      waiting.get(w.trim())?.();
    }
  });
  let err = '';
  proc.stderr!.on('data', (d) => (err += String(d)));
  // A worker a test told to stop may still be exiting when the hook stops it again: a write
  // to its closed stdin (EPIPE) is no error, its exit is awaited either way.
  proc.stdin!.on('error', () => undefined);
  const exited = new Promise<number | null>((r) => proc.once('exit', (c) => r(c)));
  return {
    proc,
    pid: proc.pid!,
    exited,
    send: (word) => proc.stdin!.write(word + '\n'),
    said: (word, timeoutMs = 10_000) =>
      new Promise<void>((res, rej) => {
        if (seen.has(word)) return res();
        const timer = setTimeout(() => rej(new Error(`worker did not say "${word}" within ${timeoutMs} ms; stdout=${out} stderr=${err}`)), timeoutMs);
        waiting.set(word, () => {
          clearTimeout(timer);
          res();
        });
        void exited.then((c) => rej(new Error(`worker exited (${c}) before saying "${word}"; stdout=${out} stderr=${err}`)));
      }),
  };
}

export async function stopWorker(w: Worker): Promise<void> {
  if (w.proc.exitCode !== null || w.proc.signalCode !== null) return;
  w.send('stop');
  const timer = setTimeout(() => w.proc.kill('SIGKILL'), 5000);
  await w.exited;
  clearTimeout(timer);
}
