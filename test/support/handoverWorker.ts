// A separate process using the built core (dist/core) that hands its locks over as fast as
// it can: release, then acquire again with a new token, on each key of its plan, until it
// reads `stop` on stdin. Prints `ready` once it holds every key, and `handovers N` at exit.
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

type Core = typeof import('../../src/core');
// Resolved from the working directory: the tests run from the repository root.
const core = require(resolve(process.cwd(), 'dist/core/index.js')) as Core;

interface Plan {
  urls: string[];
  keys: string[];
}

const plan = JSON.parse(process.argv[2]) as Plan;
const redlock = new core.Redlock(plan.urls, { retryCount: 0, commandTimeoutMs: 500 });
let stopping = false;
const lines = createInterface({ input: process.stdin });
lines.on('line', (l) => {
  if (l.trim() === 'stop') stopping = true;
});

(async () => {
  const held = await Promise.all(plan.keys.map((k) => redlock.acquire(k, 10_000)));
  console.log('ready');
  let handovers = 0;
  await Promise.all(plan.keys.map(async (key, i) => {
    while (!stopping) {
      await redlock.release(held[i]);
      held[i] = await redlock.acquire(key, 10_000);
      handovers++;
    }
  }));
  for (const l of held) await redlock.release(l);
  console.log(`handovers ${handovers}`);
  await redlock.quit();
  // An open stdin would keep the process alive.
  lines.close();
  process.stdin.destroy();
})().catch((e) => {
  console.error(e);
  process.exit(2);
});
