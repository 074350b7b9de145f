// A separate process using the built core (dist/core), driven by the holders tests:
// argv[2] is a JSON plan; it reports on stdout one word per line (`held`, `got`,
// `gaveup`) and takes `go` (start waiting) and `stop` (release and exit) on stdin.
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

type Core = typeof import('../../src/core');
// Resolved from the working directory: the tests run from the repository root.
const core = require(resolve(process.cwd(), 'dist/core/index.js')) as Core;

interface Plan {
  urls: string[];
  name: string;
  hold?: string;
  waitFor?: string;
  /** Wait for `go` on stdin before waiting for `waitFor`. */
  waitForGo?: boolean;
  ttlMs: number;
  retryCount: number;
  retryDelayMs: number;
  identity?: 'full' | 'anonymous';
  /** Record events (history, audit). */
  events?: boolean;
  /** Hold this lock through `using()` (renewed at half its TTL) until `stop`. */
  using?: string;
}

const plan = JSON.parse(process.argv[2]) as Plan;
const redlock = new core.Redlock(plan.urls, { holderName: plan.name, identity: plan.identity, retryDelayMs: plan.retryDelayMs, retryJitterMs: 20, events: plan.events });
const lines = createInterface({ input: process.stdin });
const queue: string[] = [];
let wake: (() => void) | undefined;
lines.on('line', (l) => {
  queue.push(l.trim());
  wake?.();
});
async function next(word: string): Promise<void> {
  for (;;) {
    const i = queue.indexOf(word);
    if (i >= 0) {
      queue.splice(i, 1);
      return;
    }
    await new Promise<void>((r) => (wake = r));
  }
}

(async () => {
  if (plan.using) {
    await redlock.using(plan.using, plan.ttlMs, async () => {
      console.log('held');
      await next('stop');
    });
    await redlock.quit();
    process.exit(0);
  }
  const held = [];
  if (plan.hold) {
    held.push(await redlock.acquire(plan.hold, plan.ttlMs));
    console.log('held');
  }
  if (plan.waitFor) {
    if (plan.waitForGo) await next('go');
    try {
      held.push(await redlock.acquire(plan.waitFor, plan.ttlMs, { retryCount: plan.retryCount }));
      console.log('got');
    } catch {
      console.log('gaveup');
    }
  }
  await next('stop');
  for (const l of held) await redlock.release(l);
  await redlock.quit();
  process.exit(0);
})().catch((e) => {
  console.error(e);
  process.exit(2);
});
