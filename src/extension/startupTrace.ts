// Where the time to the first rows goes when the Locks view is open at startup: marks on
// the epoch clock from the extension host's own start, logged once when the first rows are
// handed to VS Code. The host bench sets REDLOCK_STARTUP_TRACE to a file and reads them there
// (docs/benchmarks.md). Imported first by extension.ts, so its first mark is the bundle's start.
import { appendFileSync } from 'node:fs';

const marks: Array<[string, number]> = [
  ['extension host started', Math.round(Date.now() - process.uptime() * 1000)],
  ['bundle loading', Date.now()],
];
let finished = false;

/** The first time a step happens; later ones are not startup. */
export function mark(step: string): void {
  if (!finished && !marks.some(([s]) => s === step)) marks.push([step, Date.now()]);
}

/** The first rows are shown: says each step's share once (ms from the host's start). */
export function finishStartup(say: (line: string) => void): void {
  if (finished) return;
  mark('first rows');
  finished = true;
  const start = marks[0][1];
  say(`startup: ${marks.map(([s, at]) => `${s} +${at - start} ms`).join(', ')}`);
  const file = process.env.REDLOCK_STARTUP_TRACE;
  if (file) {
    try {
      appendFileSync(file, JSON.stringify({ marks }) + '\n');
    } catch {
      // A bench's file: the trace is optional, the extension is not.
    }
  }
}
