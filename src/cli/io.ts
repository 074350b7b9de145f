// The process around a command: output streams, the environment, the terminal, a prompt
// and interruption. Commands only see this interface, so they never call process.exit.
import { createInterface } from 'node:readline';
import { colourWanted } from './style';

export interface Env {
  [name: string]: string | undefined;
}

export interface Io {
  env: Env;
  /** Writes one or more lines to stdout. */
  out(text: string): void;
  /** Writes one or more lines to stderr. */
  err(text: string): void;
  colour: boolean;
  stdinIsTTY: boolean;
  /** Asks on stderr, reads one line from stdin; '' at end of input. */
  ask(question: string): Promise<string>;
  /** Aborts on SIGINT/SIGTERM or a closed stdout (EPIPE); installs its handlers on first use. */
  interruption(): AbortSignal;
}

export function processIo(): Io {
  let controller: AbortController | undefined;
  let stdoutClosed = false;
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
      if (!stdoutClosed) process.stdout.write(text + '\n');
    },
    err(text) {
      process.stderr.write(text + '\n');
    },
    colour: colourWanted(process.stdout, process.env),
    stdinIsTTY: process.stdin.isTTY === true,
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
