// An Io that records what a command prints, for running main() in the test process.
import type { Env, Io } from '../../src/cli/io';

export interface MemoryIo extends Io {
  stdout: string[];
  stderr: string[];
  /** What progress() drew, in order (null: erased); only when stderr is a terminal. */
  progressLines: Array<string | null>;
}

export function memoryIo(env: Env = {}, options: { stdinIsTTY?: boolean; errIsTTY?: boolean; answer?: string } = {}): MemoryIo {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const progressLines: Array<string | null> = [];
  const errIsTTY = options.errIsTTY ?? false;
  return {
    env,
    stdout,
    stderr,
    progressLines,
    out: (text) => void stdout.push(text),
    outPieces: async (pieces) => void stdout.push([...pieces].join('')),
    err: (text) => void stderr.push(text),
    colour: false,
    stdinIsTTY: options.stdinIsTTY ?? false,
    errIsTTY,
    progress: (text) => void (errIsTTY && progressLines.push(text)),
    ask: async () => options.answer ?? '',
    interruption: () => new AbortController().signal,
  };
}
