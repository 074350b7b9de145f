// An Io that records what a command prints, for running main() in the test process.
import type { Env, Io } from '../../src/cli/io';

export interface MemoryIo extends Io {
  stdout: string[];
  stderr: string[];
}

export function memoryIo(env: Env = {}, options: { stdinIsTTY?: boolean; answer?: string } = {}): MemoryIo {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    env,
    stdout,
    stderr,
    out: (text) => void stdout.push(text),
    err: (text) => void stderr.push(text),
    colour: false,
    stdinIsTTY: options.stdinIsTTY ?? false,
    ask: async () => options.answer ?? '',
    interruption: () => new AbortController().signal,
  };
}
