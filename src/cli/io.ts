// The process around a command: output streams, the environment, the terminal, a prompt
// and interruption. Commands only see this interface, so they never call process.exit.
import { createInterface } from 'node:readline';
import { fitWidth } from './displayWidth';
import { colourWanted, Env } from './style';
export type { Env } from './style';

export interface Io {
  env: Env;
  /** Writes one or more lines to stdout. */
  out(text: string): void;
  /**
   * Writes one line to stdout made of `pieces` (safeJsonPieces), each written as it comes and
   * after the one before has drained: the whole line is never one string in memory.
   */
  outPieces(pieces: Iterable<string>): Promise<void>;
  /** Writes one or more lines to stderr. */
  err(text: string): void;
  colour: boolean;
  stdinIsTTY: boolean;
  /** stderr is a terminal: worth drawing progress on. */
  errIsTTY: boolean;
  /**
   * Draws one line of progress on stderr, replacing the previous one (a terminal only:
   * elsewhere it does nothing); null erases it. The next out/err line erases it too.
   */
  progress(text: string | null): void;
  /** Asks on stderr, reads one line from stdin; '' at end of input. */
  ask(question: string): Promise<string>;
  /** Aborts on SIGINT/SIGTERM or a closed stdout (EPIPE); installs its handlers on first use. */
  interruption(): AbortSignal;
}

/** `lines` as outPieces writes them: a thousand lines a piece, joined by newlines, no newline after the last. */
export function* linePieces(lines: readonly string[]): Generator<string> {
  for (let i = 0; i < lines.length; i += PIECE_LINES) {
    const end = Math.min(lines.length, i + PIECE_LINES);
    yield lines.slice(i, end).join('\n') + (end < lines.length ? '\n' : '');
  }
}

const PIECE_LINES = 1000;

export function processIo(): Io {
  let controller: AbortController | undefined;
  let stdoutClosed = false;
  const errIsTTY = process.stderr.isTTY === true;
  let drawn = false;
  const erase = (): void => {
    if (drawn) process.stderr.write('\r\x1b[2K');
    drawn = false;
  };
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    // `... | head -1`: the reader is gone; stop quietly instead of crashing on EPIPE.
    if (e.code === 'EPIPE') {
      stdoutClosed = true;
      controller?.abort();
      return;
    }
    throw e;
  });
  return {
    env: process.env,
    out(text) {
      erase();
      if (!stdoutClosed) process.stdout.write(text + '\n');
    },
    async outPieces(pieces) {
      erase();
      for (const piece of pieces) {
        if (stdoutClosed) return;
        if (!process.stdout.write(piece)) await drained(process.stdout);
      }
      if (!stdoutClosed) process.stdout.write('\n');
    },
    err(text) {
      erase();
      process.stderr.write(text + '\n');
    },
    colour: colourWanted(process.stdout, process.env),
    stdinIsTTY: process.stdin.isTTY === true,
    errIsTTY,
    progress(text) {
      if (!errIsTTY) return;
      erase();
      if (text === null) return;
      // One row only: a wrapped line could not be redrawn in place.
      process.stderr.write(fitWidth(text, (process.stderr.columns || 80) - 1));
      drawn = true;
    },
    ask(question) {
      return new Promise((resolve) => {
        const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
        let answered = false;
        rl.question(question, (answer) => {
          answered = true;
          rl.close();
          resolve(answer);
        });
        rl.once('close', () => {
          if (!answered) resolve('');
        });
      });
    },
    interruption() {
      if (!controller) {
        const c = new AbortController();
        controller = c;
        if (stdoutClosed) c.abort();
        const stop = (): void => {
          // A second Ctrl-C while connections are closing ends the process at once.
          if (c.signal.aborted) process.exit(130);
          c.abort();
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      }
      return controller.signal;
    },
  };
}

/** Resolves once `stream` can take more, or can take nothing any more (closed, failed). */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off('drain', done).off('close', done).off('error', done);
      resolve();
    };
    stream.on('drain', done).on('close', done).on('error', done);
  });
}
