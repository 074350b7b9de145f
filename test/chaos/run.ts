// On-demand chaos run (`npm run test:chaos`): CHAOS_SECONDS (default 120) of contention
// under faults with delayed restarts (every invariant must hold), then the same with
// immediate restarts (overlaps counted, not asserted: the algorithm does not allow it),
// the first run ending with `audit --json` over its recorded events (a finding fails it),
// then the deterministic double-holder scenario. Exit 1 on any violation of the first run
// or if the scenario is not flagged by the inspector.
import { runChaos, summary } from './chaos';
import { doubleHolderScenario } from './doubleHolder';
import { stopAll } from '../../src/dev/redisServer';

async function main(): Promise<number> {
  const seconds = Number(process.env.CHAOS_SECONDS ?? 120);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new Error(`CHAOS_SECONDS must be a positive number, got ${process.env.CHAOS_SECONDS}`);
  const seed = process.env.CHAOS_SEED ? Number(process.env.CHAOS_SEED) : undefined;
  const log = (l: string): void => console.log(l);
  let failed = false;

  console.log(`== 1. delayed restarts (the spec), ${seconds} s`);
  const safe = await runChaos({ durationMs: seconds * 1000, seed, log, audit: true });
  console.log(summary(safe));
  if (safe.violations.length) failed = true;

  const unsafeSeconds = Math.max(10, Math.round(seconds / 4));
  console.log(`\n== 2. immediate restarts (outside the spec), ${unsafeSeconds} s: overlaps may happen`);
  const unsafe = await runChaos({ durationMs: unsafeSeconds * 1000, seed, log, delayedRestart: false, faultKinds: ['kill'], holdMinMs: 500 });
  console.log(summary(unsafe));

  console.log('\n== 3. deterministic double holder after an immediate restart');
  const s = await doubleHolderScenario();
  console.log(`overlaps ${s.overlaps}, overlap window ${s.overlapMs.toFixed(0)} ms, inspector verdict "${s.verdict}" on poll ${s.pollsUntilFlagged}, watch flagged it on tick ${s.watchTicksUntilFlagged}`);
  if (s.overlaps !== 1 || s.pollsUntilFlagged > 2 || s.watchTicksUntilFlagged > 2) failed = true;

  console.log(`\n${failed ? 'FAILED' : 'OK'}: violations ${safe.violations.length} (delayed restarts)`);
  return failed ? 1 : 0;
}

main().then(
  async (code) => {
    await stopAll();
    process.exit(code);
  },
  async (e: unknown) => {
    console.error(e);
    await stopAll();
    process.exit(2);
  },
);
