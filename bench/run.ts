// `npm run bench`: runs every bench (or those named on the command line, e.g. `locks`).
// Not a test: it prints tables and writes bench/results/*.json for the record.
import { stopAll } from '../src/dev/redisServer';
import { runDiscoverBench } from './discover';
import { runExtensionBench } from './extension';
import { runExtensionHostBench } from './extensionHost';
import { runLockBench } from './locks';
import { runSnapshotBench } from './snapshot';
import { runWatchBench } from './watch';
import { runWebviewBench } from './webview';
import { runAllLocksBench } from './allLocks';
import { runCliBench } from './cli';

/** Each bench starts its own nodes and returns false on a safety failure. */
const BENCHES: Record<string, () => Promise<boolean>> = {
  locks: () => runLockBench(),
  snapshot: () => runSnapshotBench(),
  discover: () => runDiscoverBench(),
  cli: () => runCliBench(),
  scale: () => runWatchBench(),
  extension: () => runExtensionBench(),
  host: () => runExtensionHostBench(),
  webview: () => runWebviewBench(),
  'all-locks': () => runAllLocksBench(),
};

async function main(): Promise<number> {
  const names = process.argv.slice(2);
  const unknown = names.filter((n) => !(n in BENCHES));
  if (unknown.length > 0) {
    console.error(`unknown bench ${unknown.join(', ')}; known: ${Object.keys(BENCHES).join(', ')}`);
    return 2;
  }
  let ok = true;
  for (const [name, run] of Object.entries(BENCHES)) {
    if (names.length === 0 || names.includes(name)) ok = (await run()) && ok;
  }
  return ok ? 0 : 1;
}

main()
  .catch((e: unknown) => {
    console.error(e);
    return 1;
  })
  // Whatever happened, no redis-server outlives the bench; exit even if a client lingers.
  .then(async (code) => {
    await stopAll();
    process.exit(code);
  });
