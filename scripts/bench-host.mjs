// @ts-check
// The extension's cost in a real VS Code: code-server + headless Chromium (the UI test's
// launcher, scripts/workbench.mjs) with the packaged extension on nodes someone else runs
// and churns (bench/extensionHost.ts starts them). Measures the extension host process
// (`--type=extensionHost`): CPU as % of one core from utime+stime in /proc/<pid>/stat, RSS
// from VmRSS. Phases, each BENCH_HOST_PHASE_SECONDS:
//   floor      the workbench without the extension (VS Code's own polling)
//   never      the extension installed and configured, the Redlock view never opened
//   visible    the Locks view open (BENCH_HOST_VISIBLE_SECONDS; RSS growth over it)
//   hidden     the Explorer shown instead
// and the time to first rows: after the click on the Redlock icon, and after a reload with
// the view open at startup (first rows, first live rows, and the extension's own startup
// marks from REDLOCK_STARTUP_TRACE). Prints one JSON line on stdout.
//
//   node scripts/bench-host.mjs <extensionDir> <url>... (env: BENCH_HOST_PHASE_SECONDS,
//   BENCH_HOST_VISIBLE_SECONDS, BENCH_HOST_SKIP_FLOOR=1, BENCH_HOST_VERBOSE=1)
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureTools } from './vscode-tools.mjs';
import { closeBrowser, codeServerEnv, dataDirArgs, envFlag, finishOnSignals, freePort, killGroupsOnExit, launchBrowser, makeWorkbenchDirs, QUIET_USER_SETTINGS, serveArgs, sleep, spawnCodeServer, stopGroup, waitForHealth, workbenchPage, writeUserSettings } from './workbench.mjs';

const PHASE_S = Number(process.env.BENCH_HOST_PHASE_SECONDS ?? 60);
const VISIBLE_S = Number(process.env.BENCH_HOST_VISIBLE_SECONDS ?? PHASE_S);
const verbose = envFlag('BENCH_HOST_VERBOSE');
const VIEW_CONTAINER = '[id="workbench.view.extension.redlock"]';
const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

const say = (m) => process.stderr.write(`[bench-host] ${m}\n`);

const [extensionDir, ...urls] = process.argv.slice(2);
if (!extensionDir || urls.length === 0) {
  say('usage: node scripts/bench-host.mjs <extensionDir> <url>...');
  process.exit(2);
}

/** @type {import('node:child_process').ChildProcess | undefined} */
let codeServer;
/** @type {any} */
let context;
let tmp = '';
killGroupsOnExit(() => [codeServer]);

async function cleanup() {
  await closeBrowser(context);
  context = undefined;
  await stopGroup(codeServer, 5000);
  codeServer = undefined;
}

finishOnSignals(async (code, why) => {
  if (why) say(why);
  await cleanup();
  if (tmp) rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
  process.exit(code);
});

// ---- the extension host, read from /proc ----

/** The newest extension host in code-server's process group. */
function extensionHostPid() {
  let best;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
      if (!cmd.includes('--type=extensionHost')) continue;
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // fields[2] is the process group; fields[19] the start time (clock ticks since boot).
      if (Number(fields[2]) !== codeServer?.pid) continue;
      const start = Number(fields[19]);
      if (!best || start > best.start) best = { pid: Number(d), start };
    } catch {
      /* gone meanwhile */
    }
  }
  return best?.pid;
}

function cpuTicks(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** CPU of pid over `seconds`, as % of one core; RSS before and after. */
/** CPU and RSS over `seconds`; a phase longer than a minute also notes its RSS at 60 s (growth after the first minute). */
async function measure(pid, seconds) {
  const rss0 = rssMb(pid);
  const c0 = cpuTicks(pid);
  const t0 = Date.now();
  let rss60Mb;
  if (seconds > 60) {
    await sleep(60_000);
    rss60Mb = rssMb(pid);
    await sleep((seconds - 60) * 1000);
  } else await sleep(seconds * 1000);
  const cpu = ((cpuTicks(pid) - c0) / CLK_TCK / ((Date.now() - t0) / 1000)) * 100;
  return { cpuPercent: cpu, rss0Mb: rss0, rss1Mb: rssMb(pid), ...(rss60Mb === undefined ? {} : { rss60Mb }) };
}

async function waitFor(what, limitMs, probe) {
  const until = Date.now() + limitMs;
  while (Date.now() < until) {
    const v = await probe();
    if (v) return v;
    await sleep(50);
  }
  throw new Error(`${what}: not within ${limitMs} ms`);
}

// ---- one workbench ----

async function startWorkbench(tools, { withExtension }) {
  tmp = mkdtempSync(join(tmpdir(), 'redlock-bench-host-'));
  const dirs = makeWorkbenchDirs(tmp);
  // The extension writes its startup marks here (src/extension/startupTrace.ts); a build without them writes none.
  const env = codeServerEnv(dirs, { REDLOCK_STARTUP_TRACE: join(tmp, 'startup-trace.jsonl') });
  if (withExtension) {
    const vsix = join(tmp, 'redlock-inspector.vsix');
    const pack = spawnSync('npx', ['vsce', 'package', '--no-dependencies', '--out', vsix], { cwd: extensionDir, encoding: 'utf8', timeout: 180_000 });
    if (pack.status !== 0) throw new Error(`vsce package failed in ${extensionDir}:\n${pack.stdout}${pack.stderr}`);
    const inst = spawnSync(tools.node, [tools.codeServerEntry, ...dataDirArgs(dirs), '--install-extension', vsix], { env, encoding: 'utf8', timeout: 180_000 });
    if (!/successfully installed/i.test(inst.stdout + inst.stderr)) throw new Error(`--install-extension did not confirm:\n${inst.stdout}${inst.stderr}`);
  }
  writeUserSettings(dirs['user-data'], { ...QUIET_USER_SETTINGS, 'workbench.colorTheme': 'Default Dark Modern' });
  mkdirSync(join(dirs.workspace, '.vscode'), { recursive: true });
  writeFileSync(join(dirs.workspace, '.vscode', 'settings.json'), JSON.stringify({ 'redlock.nodes': urls, 'redlock.keyPatterns': ['lock:*'], 'redlock.refreshIntervalMs': 1000, 'redlock.maxKeys': 20_000 }, null, 2));
  const authority = `127.0.0.1:${await freePort()}`;
  codeServer = spawnCodeServer(tools, serveArgs(tools, dirs, authority), { cwd: dirs.workspace, env, logPath: join(tmp, 'code-server.log'), verbose });
  await waitForHealth(`http://${authority}/healthz`, codeServer, 60_000);
  context = await launchBrowser(tools, dirs, tmp, { viewport: { width: 1400, height: 860 }, deviceScaleFactor: 1 });
  const page = await workbenchPage(context, { verbose, onCrash: () => say('the workbench page crashed') });
  await page.goto(`http://${authority}/?folder=${encodeURIComponent(dirs.workspace)}`, { waitUntil: 'domcontentloaded', timeout: 60_000 });
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
  const pid = await waitFor('the extension host', 60_000, async () => extensionHostPid());
  return { page, pid, dirs };
}

async function stopWorkbench() {
  await cleanup();
  rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
  tmp = '';
}

/** A first row of the Locks view (a lock, a folder or the group), in ms from `since`; `live`: not a last-seen row. */
async function firstRows(page, since, { live = false } = {}) {
  let rows = page.locator(`${VIEW_CONTAINER} .monaco-list-row`, { hasText: /lock:|Needs attention/ });
  if (live) rows = rows.filter({ hasNotText: /not live/ });
  await rows.first().waitFor({ state: 'visible', timeout: 120_000 });
  return Date.now() - since;
}

/** The reloaded window's startup marks (the last extension host's), in ms from `shown`. */
function startupSteps(file, shown) {
  let lines;
  try {
    lines = readFileSync(file, 'utf8').trim().split('\n');
  } catch {
    return undefined;
  }
  const { marks } = JSON.parse(lines[lines.length - 1]);
  return marks.map(([step, at]) => [step, at - shown]);
}

async function main() {
  const tools = ensureTools();
  const out = { phaseSeconds: PHASE_S, visibleSeconds: VISIBLE_S };

  if (!envFlag('BENCH_HOST_SKIP_FLOOR')) {
    const { pid } = await startWorkbench(tools, { withExtension: false });
    await sleep(5000); // the workbench's start-up work is not its floor
    out.floor = await measure(pid, PHASE_S);
    say(`floor (no extension): ${out.floor.cpuPercent.toFixed(1)} % of a core`);
    await stopWorkbench();
  }

  const { page, pid } = await startWorkbench(tools, { withExtension: true });
  // onStartupFinished activates it; its first (hidden-rate) read follows.
  await sleep(8000);
  out.never = await measure(pid, PHASE_S);
  say(`never opened: ${out.never.cpuPercent.toFixed(1)} %`);

  const click = Date.now();
  await page.locator('.activitybar [aria-label="Redlock"]').first().click();
  out.firstRowsAfterClickMs = await firstRows(page, click);
  say(`first rows ${out.firstRowsAfterClickMs} ms after the click`);
  out.visible = await measure(pid, VISIBLE_S);
  out.rssGrowthMb = out.visible.rss1Mb - out.visible.rss0Mb;
  if (out.visible.rss60Mb !== undefined) {
    out.rssGrowth60Mb = out.visible.rss60Mb - out.visible.rss0Mb;
    out.rssGrowthAfter60Mb = out.visible.rss1Mb - out.visible.rss60Mb;
  }
  say(`visible: ${out.visible.cpuPercent.toFixed(1)} %, RSS ${out.visible.rss0Mb.toFixed(0)} -> ${out.visible.rss1Mb.toFixed(0)} MB`);

  await page.locator('.activitybar [aria-label^="Explorer"]').first().click();
  await sleep(1000);
  out.hidden = await measure(pid, PHASE_S);
  say(`hidden: ${out.hidden.cpuPercent.toFixed(1)} %`);

  // The view open at startup: a new window (and extension host) on the Redlock container.
  await page.locator('.activitybar [aria-label="Redlock"]').first().click();
  await sleep(1500);
  const reload = Date.now();
  await page.reload({ waitUntil: 'domcontentloaded' });
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
  const shown = Date.now();
  out.workbenchAfterReloadMs = shown - reload;
  out.firstRowsAtStartupMs = await firstRows(page, shown);
  // Rows from the last read (marked not live) may come first: the live ones are timed too.
  out.firstLiveRowsAtStartupMs = await firstRows(page, shown, { live: true });
  say(`view open at startup: first rows ${out.firstRowsAtStartupMs} ms, first live rows ${out.firstLiveRowsAtStartupMs} ms after the workbench appeared`);
  out.startupSteps = startupSteps(join(tmp, 'startup-trace.jsonl'), shown);
  if (out.startupSteps) say(`startup steps (ms after the workbench appeared): ${out.startupSteps.map(([s, ms]) => `${s} ${ms}`).join(', ')}`);
  await stopWorkbench();
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().then(
  () => process.exit(0),
  async (e) => {
    say(`failed: ${e?.stack ?? e}`);
    await cleanup().catch(() => {});
    if (tmp) rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
    process.exit(1);
  },
);
