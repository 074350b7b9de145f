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
// marks from REDLOCK_STARTUP_TRACE), each from the workbench appearing and from the reload.
// Prints one JSON line on stdout.
//
//   node scripts/bench-host.mjs <extensionDir> <url>... (env: BENCH_HOST_PHASE_SECONDS,
//   BENCH_HOST_VISIBLE_SECONDS, BENCH_HOST_SKIP_FLOOR=1, BENCH_HOST_VERBOSE=1, BENCH_HOST_HEAP=1,
//   BENCH_HOST_SHARE=1, BENCH_HOST_STARTUPS=N: N reloads with the view open, medians reported,
//   BENCH_HOST_SKIP_BARE=1: without the plain extension's startups)
//
// BENCH_HOST_SHARE=1 (Node 20: with --experimental-websocket) profiles the extension host's
// main thread through each phase with the extension (never opened, visible, hidden) and
// notes our own share: the samples with a frame of our bundle on their stack, in % of a
// core, beside the garbage collector's (everyone's). The profiler costs the host CPU of
// its own, so the phases' process CPU of such a run is not the figure to report.
//
// BENCH_HOST_HEAP=1 (Node 20: with --experimental-websocket) opens the extension host's
// inspector (`--inspect-extensions`): the visible phase then notes the live heap after a
// forced GC at its start, at 60 s and at its end, and a sampling heap profile of what was
// allocated after 60 s and outlived a young-generation GC (alive at the end, or collected
// by a full GC: what makes the old generation, and so RSS, grow between full GCs), summed
// by allocating function and by the nearest function of ours on its stack. With
// BENCH_HOST_HEAP_DUMP=dir too, the profiles go there, the visible phase's CPU profile with them
// (and, with BENCH_HOST_SHARE, the never-opened and hidden phases' too).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureTools } from './vscode-tools.mjs';
import { closeBrowser, codeServerEnv, dataDirArgs, envFlag, finishOnSignals, freePort, killGroupsOnExit, launchBrowser, makeWorkbenchDirs, QUIET_USER_SETTINGS, serveArgs, sleep, spawnCodeServer, stopGroup, waitForHealth, workbenchPage, writeUserSettings } from './workbench.mjs';

const PHASE_S = Number(process.env.BENCH_HOST_PHASE_SECONDS ?? 60);
const VISIBLE_S = Number(process.env.BENCH_HOST_VISIBLE_SECONDS ?? PHASE_S);
/** This repository's vsce: it packages ours, or another extension's folder. */
const VSCE = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', '.bin', 'vsce');
const STARTUPS = Math.max(1, Number(process.env.BENCH_HOST_STARTUPS ?? 5));
const verbose = envFlag('BENCH_HOST_VERBOSE');
const VIEW_CONTAINER = '[id="workbench.view.extension.redlock"]';
const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

const heapProbe = envFlag('BENCH_HOST_HEAP');
/**
 * A frame of our installed bundle. Not just "redlock": code-server itself runs from the
 * tools cache (`~/.cache/redlock-inspector-tools`), so every VS Code frame says it too.
 */
const OUR_BUNDLE = /\/extensions\/redlock-inspector\.redlock-inspector-[^/]+\//;
const shareProbe = envFlag('BENCH_HOST_SHARE');
/** Only the collections per phase, by kind, over the inspector: nothing forced, nothing sampled. */
const gcProbe = envFlag('BENCH_HOST_GC');
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

/** utime+stime of a `/proc/.../stat` line (after the name, which may hold spaces). */
function ticksOfStat(stat) {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

function cpuTicks(pid) {
  return ticksOfStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/** Each thread's utime+stime, by tid, with its name (`comm`): the main thread's tid is the pid. */
function threadTicks(pid) {
  const out = new Map();
  let tids = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      out.set(tid, { name: Number(tid) === pid ? 'main' : name, ticks: ticksOfStat(stat) });
    } catch {
      /* ended meanwhile */
    }
  }
  return out;
}

/**
 * Where a phase's CPU went, by thread name (the main thread as `main`), % of one core: what
 * the process figure cannot say, such as V8's workers (marking, TurboFan) against our code.
 */
function threadShares(before, after, seconds) {
  const by = {};
  for (const [tid, t] of after) {
    const d = t.ticks - (before.get(tid)?.ticks ?? 0);
    if (d > 0) by[t.name] = (by[t.name] ?? 0) + (d / CLK_TCK / seconds) * 100;
  }
  return Object.fromEntries(Object.entries(by).sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, Math.round(v * 100) / 100]));
}

function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/**
 * CPU and RSS over `seconds`; a phase longer than a minute also notes its RSS at 60 s (growth
 * after the first minute). `at60` runs at 60 s; the time it takes (a forced GC) is not counted.
 * @param {number} pid
 * @param {number} seconds
 * @param {{ at60?: () => Promise<void> }} [hooks]
 */
async function measure(pid, seconds, { at60 } = {}) {
  const rss0 = rssMb(pid);
  let c0 = cpuTicks(pid);
  let t0 = Date.now();
  const threads0 = threadTicks(pid);
  const threadsFrom = Date.now();
  let rss60Mb;
  if (seconds > 60) {
    await sleep(60_000);
    rss60Mb = rssMb(pid);
    if (at60) {
      const c = cpuTicks(pid) - c0;
      const t = Date.now() - t0;
      await at60();
      c0 = cpuTicks(pid) - c;
      t0 = Date.now() - t;
    }
    await sleep((seconds - 60) * 1000);
  } else await sleep(seconds * 1000);
  const cpu = ((cpuTicks(pid) - c0) / CLK_TCK / ((Date.now() - t0) / 1000)) * 100;
  // Per thread over the whole phase (a forced GC at 60 s included, unlike cpuPercent).
  const threads = threadShares(threads0, threadTicks(pid), (Date.now() - threadsFrom) / 1000);
  return { cpuPercent: cpu, threads, rss0Mb: rss0, rss1Mb: rssMb(pid), ...(rss60Mb === undefined ? {} : { rss60Mb }) };
}

// ---- the extension host's heap, over the inspector (BENCH_HOST_HEAP=1) ----

/** A DevTools protocol session on the inspector at `port` (the extension host's); `other`: not that host's (the one before a reload). */
async function inspectorSession(port, other) {
  const url = await waitFor('the extension host inspector', 30_000, async () => {
    try {
      const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
      return targets.map((t) => t.webSocketDebuggerUrl).find((u) => u !== other);
    } catch {
      return undefined;
    }
  });
  const ws = new globalThis.WebSocket(url);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  let id = 0;
  const pending = new Map();
  ws.onmessage = (m) => {
    const msg = JSON.parse(String(m.data));
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    if (msg.error) p.reject(new Error(`${msg.error.message}`));
    else p.resolve(msg.result);
  };
  /** @type {(method: string, params?: object) => Promise<any>} */
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      pending.set(++id, { resolve, reject });
      ws.send(JSON.stringify({ id, method, params }));
    });
  return { url, send, close: () => ws.close() };
}

/** Live heap after a forced GC, and the process's own view of its memory, in MB. */
async function liveHeap(session, pid) {
  await session.send('HeapProfiler.collectGarbage');
  const { result } = await session.send('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true });
  const mem = JSON.parse(result.value);
  const mb = (n) => Math.round((n / 1048576) * 10) / 10;
  return { rssMb: mb(mem.rss), procRssMb: Math.round(rssMb(pid) * 10) / 10, heapUsedMb: mb(mem.heapUsed), heapTotalMb: mb(mem.heapTotal), externalMb: mb(mem.external), arrayBuffersMb: mb(mem.arrayBuffers) };
}

/**
 * The host's garbage collections through a phase, by kind and V8's flags (count and
 * main-thread ms), with the heap spaces' sizes at its end, from a PerformanceObserver
 * placed in the host: `start` places it, then it is read. `oldGrowthMb`: the old
 * generation's growth summed over the observer's calls (each after a collection), which is
 * what promotion brings in and what a full collection then has to clear.
 */
async function gcCounter(session, start) {
  const expression = start
    ? `(() => { const { PerformanceObserver, constants: c } = process.getBuiltinModule('node:perf_hooks'); const kinds = { [c.NODE_PERFORMANCE_GC_MAJOR]: 'major', [c.NODE_PERFORMANCE_GC_MINOR]: 'minor', [c.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental', [c.NODE_PERFORMANCE_GC_WEAKCB]: 'weak' }; const seen = {}; const v8 = process.getBuiltinModule('node:v8'); const oldUsed = () => { let u = 0; for (const x of v8.getHeapSpaceStatistics()) if (x.space_name === 'old_space' || x.space_name === 'large_object_space') u += x.space_used_size; return u; }; let prev = oldUsed(); const grown = { bytes: 0 }; const o = new PerformanceObserver((l) => { const u = oldUsed(); if (u > prev) grown.bytes += u - prev; prev = u; for (const e of l.getEntries()) { const why = Object.keys(c).filter((n) => n.startsWith('NODE_PERFORMANCE_GC_FLAGS_') && c[n] && e.detail.flags & c[n]).map((n) => n.slice(26).toLowerCase()).join('+'); const k = (kinds[e.detail.kind] ?? String(e.detail.kind)) + (why ? ' ' + why : ''); const v = (seen[k] ??= { count: 0, ms: 0 }); v.count++; v.ms = Math.round((v.ms + e.duration) * 10) / 10; } }); o.observe({ entryTypes: ['gc'] }); globalThis.__benchGcs = { o, seen, grown }; return 'ok'; })()`
    : `(() => { const g = globalThis.__benchGcs; g.o.disconnect(); delete globalThis.__benchGcs; const spaces = Object.fromEntries(process.getBuiltinModule('node:v8').getHeapSpaceStatistics().map((x) => [x.space_name, Math.round(x.space_size / 1048576)])); return JSON.stringify({ ...g.seen, oldGrowthMb: Math.round(g.grown.bytes / 104857.6) / 10, spacesMb: spaces }); })()`;
  const { result, exceptionDetails } = await session.send('Runtime.evaluate', { expression, returnByValue: true });
  if (exceptionDetails) throw new Error(`the GC counter: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
  return start ? undefined : JSON.parse(result.value);
}

/** A sampling heap profile's bytes summed by allocating function, and by the nearest caller in our bundle. */
function heapGrowers(profile, top = 15) {
  const bySite = new Map();
  const byOurs = new Map();
  const frame = (f) => `${f.functionName || '(anonymous)'} ${(f.url || '').split('/').slice(-2).join('/')}:${f.lineNumber + 1}:${f.columnNumber + 1}`;
  const walk = (node, stack) => {
    const here = [...stack, node.callFrame];
    if (node.selfSize > 0) {
      const site = frame(node.callFrame);
      bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
      const ours = [...here].reverse().find((f) => OUR_BUNDLE.test(f.url));
      const key = ours ? frame(ours) : '(no frame of ours)';
      byOurs.set(key, (byOurs.get(key) ?? 0) + node.selfSize);
    }
    for (const c of node.children) walk(c, here);
  };
  walk(profile.head, []);
  const list = (m) => [...m].sort((a, b) => b[1] - a[1]).slice(0, top).map(([site, bytes]) => [site, Math.round(bytes / 1024)]);
  let total = 0;
  for (const v of bySite.values()) total += v;
  return { totalKb: Math.round(total / 1024), bySiteKb: list(bySite), byOurCallerKb: list(byOurs) };
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

/**
 * The extension's own share of a phase, from a CPU profile of the extension host's main
 * thread: the samples with a frame of our bundle on their stack, as % of one core over the
 * profile's span, and the garbage collector's (everyone's: VS Code's and ours) beside it.
 * The host's process CPU cannot tell us from its floor within a point; this can.
 */
function shareOf(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const oursById = new Map();
  const isOurs = (id) => {
    let v = oursById.get(id);
    if (v === undefined) {
      const n = byId.get(id);
      v = OUR_BUNDLE.test(n.callFrame.url) || (parent.has(id) && isOurs(parent.get(id)));
      oursById.set(id, v);
    }
    return v;
  };
  let ours = 0;
  let gc = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const us = profile.timeDeltas[i + 1] ?? 0;
    const id = profile.samples[i];
    if (byId.get(id).callFrame.functionName === '(garbage collector)') gc += us;
    else if (isOurs(id)) ours += us;
  }
  const span = profile.endTime - profile.startTime;
  const pct = (us) => Math.round((us / span) * 10000) / 100;
  return { oursPercent: pct(ours), gcPercent: pct(gc), seconds: Math.round(span / 1e5) / 10 };
}

/** Keeps a profile in BENCH_HOST_HEAP_DUMP, where one is given (for DevTools). */
function keepProfile(name, profile) {
  if (process.env.BENCH_HOST_HEAP_DUMP) writeFileSync(join(process.env.BENCH_HOST_HEAP_DUMP, name), JSON.stringify(profile));
}

/** `run` with the host's CPU profiled: its result and the extension's share (shareOf). */
async function profiled(session, run) {
  await session.send('Profiler.enable');
  await session.send('Profiler.setSamplingInterval', { interval: 1000 });
  await session.send('Profiler.start');
  const result = await run();
  const { profile } = await session.send('Profiler.stop');
  return { result, profile, share: shareOf(profile) };
}

/** A CPU profile's self time by function, and by where the code comes from, in ms. */
function cpuByFunction(profile, top = 25) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const bySource = new Map();
  const source = (url) => (!url ? '(vm)' : OUR_BUNDLE.test(url) ? 'ours' : /extHost|vs\/workbench|vs\/base|vs\/platform/.test(url) ? 'vscode' : /^node:/.test(url) ? 'node' : url.split('/').slice(-2).join('/'));
  for (let i = 0; i < profile.samples.length; i++) {
    const n = byId.get(profile.samples[i]);
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const f = n.callFrame;
    const name = `${f.functionName || '(anonymous)'} ${(f.url || '').split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;
    self.set(name, (self.get(name) ?? 0) + ms);
    const src = f.functionName.startsWith('(') ? f.functionName : source(f.url);
    bySource.set(src, (bySource.get(src) ?? 0) + ms);
  }
  const list = (m, k) => [...m].sort((a, b) => b[1] - a[1]).slice(0, k).map(([n, ms]) => [n, Math.round(ms)]);
  return { totalMs: Math.round((profile.endTime - profile.startTime) / 1000), bySource: list(bySource, 12), byFunction: list(self, top) };
}

// ---- one workbench ----

/** `withExtension`: ours (true), none (false), or the folder of another extension. */
async function startWorkbench(tools, { withExtension }) {
  tmp = mkdtempSync(join(tmpdir(), 'redlock-bench-host-'));
  const dirs = makeWorkbenchDirs(tmp);
  // The extension writes its startup marks here (src/extension/startupTrace.ts); a build without them writes none.
  const env = codeServerEnv(dirs, { REDLOCK_STARTUP_TRACE: join(tmp, 'startup-trace.jsonl') });
  const inspectPort = (heapProbe || shareProbe || gcProbe) && withExtension === true ? await freePort() : undefined;
  if (withExtension) {
    const vsix = join(tmp, 'redlock-inspector.vsix');
    const dir = typeof withExtension === 'string' ? withExtension : extensionDir;
    const pack = spawnSync(VSCE, ['package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--out', vsix], { cwd: dir, encoding: 'utf8', timeout: 180_000 });
    if (pack.status !== 0) throw new Error(`vsce package failed in ${dir}:\n${pack.stdout}${pack.stderr}`);
    const inst = spawnSync(tools.node, [tools.codeServerEntry, ...dataDirArgs(dirs), '--install-extension', vsix], { env, encoding: 'utf8', timeout: 180_000 });
    if (!/successfully installed/i.test(inst.stdout + inst.stderr)) throw new Error(`--install-extension did not confirm:\n${inst.stdout}${inst.stderr}`);
  }
  writeUserSettings(dirs['user-data'], { ...QUIET_USER_SETTINGS, 'workbench.colorTheme': 'Default Dark Modern' });
  mkdirSync(join(dirs.workspace, '.vscode'), { recursive: true });
  writeFileSync(join(dirs.workspace, '.vscode', 'settings.json'), JSON.stringify({ 'redlock.nodes': urls, 'redlock.keyPatterns': ['lock:*'], 'redlock.refreshIntervalMs': 1000, 'redlock.maxKeys': 20_000 }, null, 2));
  const authority = `127.0.0.1:${await freePort()}`;
  codeServer = spawnCodeServer(tools, serveArgs(tools, dirs, authority, { extra: inspectPort ? ['--vscode-option', 'enable-smoke-test-driver'] : [] }), { cwd: dirs.workspace, env, logPath: join(tmp, 'code-server.log'), verbose });
  await waitForHealth(`http://${authority}/healthz`, codeServer, 60_000);
  context = await launchBrowser(tools, dirs, tmp, { viewport: { width: 1400, height: 860 }, deviceScaleFactor: 1 });
  const page = await workbenchPage(context, { verbose, onCrash: () => say('the workbench page crashed') });
  // The web workbench takes the extension host's inspector port from its payload, which it reads with the smoke-test driver on.
  const payload = inspectPort ? `&payload=${encodeURIComponent(JSON.stringify([['inspect-extensions', String(inspectPort)]]))}` : '';
  await page.goto(`http://${authority}/?folder=${encodeURIComponent(dirs.workspace)}${payload}`, { waitUntil: 'domcontentloaded', timeout: 60_000 });
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
  const pid = await waitFor('the extension host', 60_000, async () => extensionHostPid());
  return { page, pid, dirs, inspectPort };
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

/** STARTUPS reloads with the Locks view open; medians, each run kept when there are several. */
async function startups(page, inspectPort, before, who = 'ours') {
  await page.locator('.activitybar [aria-label="Redlock"]').first().click();
  await sleep(1500);
  const runs = [];
  for (let i = 0; i < STARTUPS; i++) {
    const one = await startupOnce(page, inspectPort, before, i === 0);
    before = one.url;
    delete one.url;
    runs.push(one);
    say(`${who}, view open at startup: first rows ${one.firstRowsAtStartupMs} ms, first live rows ${one.firstLiveRowsAtStartupMs} ms after the workbench appeared (${one.firstRowsFromReloadMs} and ${one.firstLiveRowsFromReloadMs} ms after the reload)`);
    if (one.startupSteps) say(`startup steps (ms after the workbench appeared): ${one.startupSteps.map(([s, ms]) => `${s} ${ms}`).join(', ')}`);
  }
  const out = {};
  for (const k of ['workbenchAfterReloadMs', 'firstRowsAtStartupMs', 'firstLiveRowsAtStartupMs', 'firstRowsFromReloadMs', 'firstLiveRowsFromReloadMs']) out[k] = median(runs.map((r) => r[k]));
  const steps = (runs.find((r) => r.firstRowsAtStartupMs === out.firstRowsAtStartupMs) ?? runs[0]).startupSteps;
  if (steps) out.startupSteps = steps;
  if (runs[0].startupProfile) out.startupProfile = runs[0].startupProfile;
  if (STARTUPS > 1) {
    out.startups = runs.map(({ startupProfile: _, ...r }) => r);
    say(`${who}, startups (median of ${STARTUPS}): first rows ${out.firstRowsAtStartupMs} ms (${runs.map((r) => r.firstRowsAtStartupMs).join(', ')}), live ${out.firstLiveRowsAtStartupMs} ms (${runs.map((r) => r.firstLiveRowsAtStartupMs).join(', ')})`);
  }
  return out;
}

/**
 * The plain extension beside ours, written to `dir`: the same view container and Locks view,
 * activated on it, answering with one row at once. Its first rows at startup are VS Code's
 * part of ours.
 */
function bareExtension(dir) {
  mkdirSync(join(dir, 'media'), { recursive: true });
  const manifest = {
    name: 'bare-tree', publisher: 'bench', version: '0.0.1', engines: { vscode: '^1.80.0' }, main: './extension.js',
    activationEvents: ['onView:redlock.locks'],
    contributes: { viewsContainers: { activitybar: [{ id: 'redlock', title: 'Redlock', icon: 'media/icon.svg' }] }, views: { redlock: [{ id: 'redlock.locks', name: 'Locks' }] } },
  };
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  writeFileSync(join(dir, 'README.md'), 'The host bench\'s plain extension: one tree row.\n');
  writeFileSync(join(dir, 'extension.js'), [
    "const vscode = require('vscode');",
    'exports.activate = (context) => {',
    "  const rows = { getChildren: (e) => (e ? [] : ['lock: one row']), getTreeItem: (e) => new vscode.TreeItem(e) };",
    "  context.subscriptions.push(vscode.window.registerTreeDataProvider('redlock.locks', rows));",
    '};',
    '',
  ].join('\n'));
  writeFileSync(join(dir, 'media', 'icon.svg'), '<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24"><rect width="24" height="24"/></svg>\n');
  return dir;
}

/** Middle value (the lower of the two middle ones); undefined for none. */
function median(xs) {
  const v = xs.filter((x) => x !== undefined).sort((a, b) => a - b);
  return v.length ? v[Math.floor((v.length - 1) / 2)] : undefined;
}

/** One reload with the Locks view open: first rows (last-seen, then live) and the new host's marks; `profile`: a CPU profile of its start (with an inspector). */
async function startupOnce(page, inspectPort, before, profile) {
  const one = {};
  // BENCH_HOST_RENDERER_PROFILE=<dir>: the workbench page's own CPU profile of the first startup.
  const rendererDir = profile ? process.env.BENCH_HOST_RENDERER_PROFILE : undefined;
  const cdp = rendererDir ? await page.context().newCDPSession(page) : undefined;
  if (cdp) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
    await cdp.send('Profiler.start');
  }
  const reload = Date.now();
  await page.reload({ waitUntil: 'domcontentloaded' });
  // With an inspector (heap or share probe): a CPU profile of the new extension host from its inspector's first answer to the first live rows.
  const session = inspectPort ? inspectorSession(inspectPort, before) : undefined;
  const profiling = profile && session
    ? session.then(async (s) => {
        await s.send('Profiler.enable');
        await s.send('Profiler.setSamplingInterval', { interval: 500 });
        await s.send('Profiler.start');
        return { s, at: Date.now() };
      })
    : undefined;
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
  const shown = Date.now();
  one.workbenchAfterReloadMs = shown - reload;
  one.firstRowsAtStartupMs = await firstRows(page, shown);
  // Rows from the last read (marked not live) may come first: the live ones are timed too.
  one.firstLiveRowsAtStartupMs = await firstRows(page, shown, { live: true });
  if (cdp) {
    const { profile: p } = await cdp.send('Profiler.stop');
    writeFileSync(join(rendererDir, 'renderer-startup.cpuprofile'), JSON.stringify(p));
    writeFileSync(join(rendererDir, 'renderer-startup.json'), JSON.stringify({ reload, shown, firstRows: shown + one.firstRowsAtStartupMs }));
    await cdp.detach();
  }
  if (profiling) {
    const { s, at } = await profiling;
    const { profile: p } = await s.send('Profiler.stop');
    one.startupProfile = { fromMs: at - shown, ...cpuByFunction(p) };
    keepProfile('startup.cpuprofile', p);
    say(`startup CPU profile: ${JSON.stringify(one.startupProfile)}`);
  }
  if (session) {
    const s = await session;
    one.url = s.url;
    s.close();
  }
  // Both clocks: from the reload (what a person waits) and from the workbench appearing (what is left once VS Code drew it).
  one.firstRowsFromReloadMs = one.workbenchAfterReloadMs + one.firstRowsAtStartupMs;
  one.firstLiveRowsFromReloadMs = one.workbenchAfterReloadMs + one.firstLiveRowsAtStartupMs;
  one.startupSteps = startupSteps(join(tmp, 'startup-trace.jsonl'), shown);
  return one;
}

async function main() {
  const tools = ensureTools();
  const out = { phaseSeconds: PHASE_S, visibleSeconds: VISIBLE_S };

  if (!envFlag('BENCH_HOST_SKIP_FLOOR')) {
    const { pid } = await startWorkbench(tools, { withExtension: false });
    await sleep(5000); // the workbench's start-up work is not its floor
    out.floor = await measure(pid, PHASE_S);
    say(`floor (no extension): ${out.floor.cpuPercent.toFixed(1)} % of a core; by thread ${JSON.stringify(out.floor.threads)}`);
    await stopWorkbench();
  }

  const { page, pid, inspectPort } = await startWorkbench(tools, { withExtension: true });
  // The probes use the host's inspector from the first phase on (the one before the view opens).
  const session = shareProbe || heapProbe || gcProbe ? await inspectorSession(inspectPort) : undefined;
  // With the heap probe: the host's collections in each phase (gcCounter).
  const gcs = {};
  if (shareProbe) out.share = {};
  // onStartupFinished activates it; its first (hidden-rate) read follows.
  await sleep(8000);
  /** A phase without the view: with the share probe profiled, with the heap probe its collections counted. */
  const phase = async (name) => {
    if (shareProbe) {
      const p = await profiled(session, () => measure(pid, PHASE_S));
      out.share[name] = p.share;
      keepProfile(`${name}.cpuprofile`, p.profile);
      return p.result;
    }
    if (!heapProbe && !gcProbe) return measure(pid, PHASE_S);
    await gcCounter(session, true);
    const r = await measure(pid, PHASE_S);
    gcs[name] = await gcCounter(session, false);
    return r;
  };
  out.never = await phase('never');
  say(`never opened: ${out.never.cpuPercent.toFixed(1)} %; by thread ${JSON.stringify(out.never.threads)}`);

  const click = Date.now();
  await page.locator('.activitybar [aria-label="Redlock"]').first().click();
  out.firstRowsAfterClickMs = await firstRows(page, click);
  say(`first rows ${out.firstRowsAfterClickMs} ms after the click`);
  if (heapProbe) out.heap = { start: await liveHeap(session, pid) };
  if (heapProbe || gcProbe) await gcCounter(session, true);
  // With a dump folder: where the visible phase's CPU goes, for DevTools (visible.cpuprofile).
  const cpuDump = heapProbe && process.env.BENCH_HOST_HEAP_DUMP;
  const visible = () =>
    measure(pid, VISIBLE_S, {
      at60: heapProbe
        ? async () => {
            out.heap.at60 = await liveHeap(session, pid);
            await session.send('HeapProfiler.startSampling', { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false });
          }
        : undefined,
    });
  if (cpuDump || shareProbe) {
    const p = await profiled(session, visible);
    out.visible = p.result;
    if (shareProbe) out.share.visible = p.share;
    keepProfile('visible.cpuprofile', p.profile);
  } else out.visible = await visible();
  if (heapProbe || gcProbe) gcs.visible = await gcCounter(session, false);
  if (gcProbe) out.gcs = gcs;
  if (heapProbe) {
    out.heap.gcs = gcs;
    out.heap.end = await liveHeap(session, pid);
    if (out.heap.at60) {
      const { profile } = await session.send('HeapProfiler.getSamplingProfile');
      await session.send('HeapProfiler.stopSampling');
      out.heap.promotedAfter60 = heapGrowers(profile);
      if (process.env.BENCH_HOST_HEAP_DUMP) writeFileSync(join(process.env.BENCH_HOST_HEAP_DUMP, 'promoted.heapprofile'), JSON.stringify(profile));
    }
    say(`heap: ${JSON.stringify(out.heap)}`);
    out.heap.sessionUrl = session.url;
  }
  out.rssGrowthMb = out.visible.rss1Mb - out.visible.rss0Mb;
  if (out.visible.rss60Mb !== undefined) {
    out.rssGrowth60Mb = out.visible.rss60Mb - out.visible.rss0Mb;
    out.rssGrowthAfter60Mb = out.visible.rss1Mb - out.visible.rss60Mb;
  }
  say(`visible: ${out.visible.cpuPercent.toFixed(1)} %, RSS ${out.visible.rss0Mb.toFixed(0)} -> ${out.visible.rss1Mb.toFixed(0)} MB; by thread ${JSON.stringify(out.visible.threads)}`);

  await page.locator('.activitybar [aria-label^="Explorer"]').first().click();
  await sleep(1000);
  out.hidden = await phase('hidden');
  if (shareProbe) say(`our share by CPU profile: ${JSON.stringify(out.share)}`);
  if (gcProbe) say(`collections per phase: ${JSON.stringify(gcs)}`);
  const beforeUrl = session?.url;
  session?.close();
  say(`hidden: ${out.hidden.cpuPercent.toFixed(1)} %; by thread ${JSON.stringify(out.hidden.threads)}`);

  // The view open at startup: a new window (and extension host) on the Redlock container,
  // BENCH_HOST_STARTUPS times (each figure is then the median, each run is kept).
  Object.assign(out, await startups(page, inspectPort, beforeUrl));
  await stopWorkbench();
  // The floor of that figure: the plain extension a good engineer would write, the same view
  // answering with one row at once, in a workbench of its own.
  if (!envFlag('BENCH_HOST_SKIP_BARE')) {
    const dir = bareExtension(mkdtempSync(join(tmpdir(), 'redlock-bench-bare-')));
    const bare = await startWorkbench(tools, { withExtension: dir });
    const r = await startups(bare.page, undefined, undefined, 'the plain extension').finally(() => rmSync(dir, { recursive: true, force: true }));
    out.plain = { workbenchAfterReloadMs: r.workbenchAfterReloadMs, firstRowsAtStartupMs: r.firstRowsAtStartupMs, firstRowsFromReloadMs: r.firstRowsFromReloadMs, ...(r.startups ? { startups: r.startups.map((x) => x.firstRowsAtStartupMs) } : {}) };
    await stopWorkbench();
  }
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
