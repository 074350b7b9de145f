// @ts-check
// The UI test: clicks through the real VS Code workbench (code-server + headless Chromium)
// with the packaged extension on 5 seeded redis-server nodes, asserts what a user sees,
// and saves the README screenshots:
//   media/screenshots/workbench-locks.png    the Redlock view, one lock expanded
//   media/screenshots/workbench-tooltip.png  the same with a lock's tooltip
//   media/screenshots/workbench-all-locks.png the all-locks timeline
//   media/screenshots/workbench-timeline.png  a lock's detail panel, its timeline in view
// (only with `--screenshots`, which `npm run screenshots` passes).
//
//   npm run build && node scripts/test-ui.mjs [--screenshots]
//
// It builds nothing (dist/ must exist). Exit 0 when every check passed, 1 on a failed
// check (the message says which), 124 on the overall timeout. Whatever happens, the
// browser, code-server's process group and the demo nodes' process group are stopped.
//
// Env: REDLOCK_UI_TEST_TIMEOUT_MS (whole run once the tools exist, default 240000),
// REDLOCK_UI_TEST_VERBOSE=1 (code-server, demo and browser output), REDLOCK_UI_TEST_KEEP_TMP=1
// (keep the temp dir: workspace, user data with logs, code-server.log, failure.png),
// `--screenshots` (what `npm run screenshots` passes) also saves the README screenshots
// into media/screenshots; without it the run only checks, and writes no tracked file.
// REDLOCK_TOOLS_DIR (see vscode-tools.mjs).
// How it works offline: docs/extension-host.md
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { CHROMIUM, ensureTools } from './vscode-tools.mjs';
import { closeBrowser, codeServerEnv, dataDirArgs, envFlag, finishOnSignals, freePort, killGroupsOnExit, launchBrowser, makeWorkbenchDirs, printLogTail, QUIET_USER_SETTINGS, serveArgs, sleep, spawnCodeServer, stopGroup, waitForHealth, workbenchPage, writeUserSettings } from './workbench.mjs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const screenshotDir = join(repoRoot, 'media', 'screenshots');
const timeoutMs = Number(process.env.REDLOCK_UI_TEST_TIMEOUT_MS) || 240_000;
const verbose = envFlag('REDLOCK_UI_TEST_VERBOSE');
const keepTmp = envFlag('REDLOCK_UI_TEST_KEEP_TMP');
const noScreenshots = !process.argv.includes('--screenshots');
const t0 = Date.now();

const CONTAINER_TITLE = 'Redlock';
const VIEW_CONTAINER = '[id="workbench.view.extension.redlock"]';
const EXTENSION_ID = 'redlock-inspector.redlock-inspector';
// What the seeded demo states must look like in the Locks view (src/dev/demoStates.ts).
const SPLIT_KEY = 'lock:split:payments';
/** @type {Array<[string, RegExp]>} */
const EXPECTED_ROWS = [
  [SPLIT_KEY, /split 2\+2\/5/],
  ['lock:partial:report-export', /partial 2\/5/],
  ['lock:no-ttl:nightly-cleanup', /held 3\/5 · no TTL/],
  ['lock:ttl-skew:cache-rebuild', /held 5\/5 · TTL skew/],
  ['lock:healthy:invoices', /held 5\/5/],
  ['lock:redisson:inventory', /held 3\/5/],
];
// Real key names are long: every demo key gets this prefix (30+ characters in all), so the
// default-width check below meets keys that cannot fit beside their verdict.
const KEY_PREFIX = 'settlement-batch:eu-west-1:';
// Past FLAT_MAX (src/extension/views/lockGroups.ts) the Locks view groups keys in folders:
// this many more healthy locks under one prefix make the demo a long list.
const EXTRA_LOCKS = 40;
const EXTRA_PREFIX = `${KEY_PREFIX}lock:orders:`;
/** VS Code's default side bar width, in CSS pixels. */
const DEFAULT_SIDEBAR_WIDTH = 300;

// The quiet base plus the look of the README screenshots: dark theme, an uncluttered title
// bar and side bars, header actions always visible.
const USER_SETTINGS = {
  ...QUIET_USER_SETTINGS,
  'workbench.colorTheme': 'Default Dark Modern',
  'window.commandCenter': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'workbench.layoutControl.enabled': false,
  'workbench.view.alwaysShowHeaderActions': true,
  'editor.minimap.enabled': false,
};

const say = (msg) => process.stderr.write(`[test-ui] ${msg}\n`);
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;
const elapsed = () => secs(Date.now() - t0);

class CheckFailed extends Error {}
const fail = (msg) => {
  throw new CheckFailed(msg);
};

// ---- cleanup: the browser, code-server's group and the demo's group always go away ----
let tmp;
let codeServer; // leader of its own process group
let demo; // `node dist/demo.js`, leader of its own process group (its redis-servers are in it)
let context; // Playwright persistent context (owns the browser process)
let page;
let codeServerLogPath;
let finishing = false;
let overallTimer;

async function cleanup() {
  const ctx = context;
  context = undefined;
  await closeBrowser(ctx);
  // The demo releases its workers' locks and stops its nodes on SIGTERM (< 3 s).
  await Promise.all([stopGroup(codeServer, 5000), stopGroup(demo, 6000)]);
  if (tmp && !keepTmp) rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
  else if (tmp) say(`kept ${tmp}`);
}

// Last resort when something exits synchronously: nothing of ours survives us.
killGroupsOnExit(() => [codeServer, demo]);

// code-server going away before finish() began is a failed run, whatever its exit code.
function codeServerExited(how) {
  if (!finishing) void finish(1, `code-server exited unexpectedly (${how})`);
}

async function finish(code, why) {
  if (finishing) return;
  finishing = true;
  clearTimeout(overallTimer);
  if (why) say(why);
  if (code !== 0) {
    if (page && tmp) {
      const shot = join(tmp, 'failure.png');
      await Promise.race([page.screenshot({ path: shot }).then(() => say(`screen at failure: ${shot}${keepTmp ? '' : ' (REDLOCK_UI_TEST_KEEP_TMP=1 keeps it)'}`)).catch(() => {}), sleep(3000)]);
    }
    if (!verbose) printLogTail(codeServerLogPath, 'code-server output (last lines)', 40);
  }
  await cleanup().catch((e) => say(`cleanup: ${e.message}`));
  say(`${code === 0 ? 'PASS' : 'FAIL'}: exit ${code} after ${elapsed()}`);
  process.exit(code);
}

finishOnSignals(finish);

// ---- helpers ----
/** Starts 5 seeded redis-server nodes (dist/demo.js); resolves with their URLs. */
function startDemoNodes() {
  demo = spawn(process.execPath, [join(repoRoot, 'dist', 'demo.js')], { cwd: repoRoot, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, REDLOCK_DEMO_KEY_PREFIX: KEY_PREFIX } });
  let stderr = '';
  demo.stderr.on('data', (b) => {
    stderr += b;
    if (verbose) process.stderr.write(b);
  });
  const lines = createInterface({ input: demo.stdout });
  return new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new CheckFailed(`dist/demo.js printed no REDLOCK_NODES= line within 60 s\n${stderr}`)), 60_000);
    demo.once('exit', (code, sig) => {
      clearTimeout(timer);
      rej(new CheckFailed(`dist/demo.js exited (${code ?? sig}) before seeding\n${stderr}`));
    });
    lines.on('line', (line) => {
      if (verbose) process.stderr.write(`[demo] ${line}\n`);
      const m = /^REDLOCK_NODES=(.+)$/.exec(line);
      if (m) {
        clearTimeout(timer);
        demo.removeAllListeners('exit');
        demo.once('exit', (code, sig) => {
          if (!finishing) void finish(1, `the demo nodes exited during the test (${code ?? sig})\n${stderr}`);
        });
        res(m[1].split(','));
      }
    });
  });
}

/** EXTRA_LOCKS healthy locks (one token, 10 min) on every node, beside the demo's. */
async function addHealthyLocks(urls) {
  const { Redis } = await import('ioredis');
  await Promise.all(urls.map(async (url) => {
    const c = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await c.connect();
      const p = c.pipeline();
      for (let i = 0; i < EXTRA_LOCKS; i++) p.set(`${EXTRA_PREFIX}${String(i).padStart(2, '0')}`, `ui-test-token-${i}`.padEnd(32, '0'), 'PX', 600_000);
      await p.exec();
    } finally {
      c.disconnect();
    }
  }));
}

function run(cmd, args, opts) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 120_000, ...opts });
  if (r.error) fail(`${cmd} ${args.join(' ')}: ${r.error.message}`);
  if (r.status !== 0) fail(`${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}\n${r.stdout ?? ''}${r.stderr ?? ''}`);
  return r;
}

/** The side bar's vertical sash, found by position (its element has no stable id). */
async function sidebarSash() {
  return page.evaluate(() => {
    const bar = document.querySelector('.part.sidebar')?.getBoundingClientRect();
    if (!bar) return undefined;
    const cands = Array.from(document.querySelectorAll('.monaco-sash.vertical')).map((e) => e.getBoundingClientRect()).filter((r) => r.height > 100);
    cands.sort((a, b) => Math.abs(a.x + a.width / 2 - bar.right) - Math.abs(b.x + b.width / 2 - bar.right));
    const r = cands[0];
    return r && { x: r.x + r.width / 2, y: r.y + r.height / 2, right: bar.right, width: bar.width };
  });
}

/** Drags the side bar's sash until the side bar is `width` px wide. */
async function setSidebarWidth(width) {
  const sash = await sidebarSash();
  if (!sash) fail('no side bar sash to drag');
  if (Math.abs(sash.width - width) < 2) return;
  await page.mouse.move(sash.x, sash.y);
  await sleep(300);
  await page.mouse.down();
  await page.mouse.move(sash.x + (width - sash.width), sash.y, { steps: 10 });
  await page.mouse.up();
  await page.mouse.move(900, 500); // no hover over the tree
}

/** Text of every row currently rendered in the Redlock container's trees. */
async function rowTexts() {
  return page.locator(`${VIEW_CONTAINER} .monaco-list-row`).evaluateAll((rows) => rows.map((r) => (r.textContent ?? '').replace(/\s+/g, ' ').trim()));
}

async function waitFor(what, limitMs, probe) {
  const until = Date.now() + limitMs;
  let last;
  while (Date.now() < until) {
    last = await probe();
    if (last?.ok) return last;
    await sleep(100);
  }
  fail(`${what}: not seen within ${limitMs} ms${last?.detail ? `\n${last.detail}` : ''}`);
}

/**
 * Opens the command palette with `text` typed in. F1 can land while focus is moving (a
 * webview taking it, a row re-rendered): pressed again until the palette's input shows.
 */
async function palette(text) {
  const input = page.locator('.quick-input-widget input');
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('F1');
    if (await input.waitFor({ state: 'visible', timeout: 5_000 }).then(() => true, () => false)) break;
    if (attempt === 3) fail('F1 did not open the command palette');
  }
  await input.fill(text);
}

/**
 * A probe that clicks `row` while it says closed, at most every 2 s, and gives its
 * aria-expanded: a click can land while the row is re-rendered by a tick or still moving
 * (the Nodes view folding), and the tree then drops it.
 */
function clickUntilOpen(row) {
  let clickedAt = 0;
  return async () => {
    const expanded = await row.getAttribute('aria-expanded');
    if (expanded !== 'true' && Date.now() - clickedAt > 2_000) {
      await row.click();
      clickedAt = Date.now();
    }
    return expanded;
  };
}

/** A lock's first row: in "Needs attention" when it is there, else in its folder. */
const lockRow = (key) => page.locator(`${VIEW_CONTAINER} .monaco-list-row`, { hasText: key }).first();
/** A row's text, whitespace folded. */
const textOf = (locator) => locator.evaluate((r) => (r.textContent ?? '').replace(/\s+/g, ' ').trim());
/** Every row the Locks view shows, as text: what a vanished tooltip's failure compares. */
const viewRows = () => page.locator(`${VIEW_CONTAINER} .monaco-list-row`).evaluateAll((rows) => rows.map((r) => (r.textContent ?? '').replace(/\s+/g, ' ').trim()));
/** Fails for a tooltip gone while it should stay, naming the rows that changed meanwhile. */
async function tooltipVanished(what, ms, rowsBefore) {
  const now = await viewRows().catch(() => []);
  const gone = rowsBefore.filter((r) => !now.includes(r));
  const came = now.filter((r) => !rowsBefore.includes(r));
  fail(`${what} tooltip vanished ${ms} ms after it appeared; rows since: gone ${JSON.stringify(gone)}, new ${JSON.stringify(came)}`);
}

/** Opens a folder row (level 1 or deeper) and waits for it to say so. */
async function openFolder(label) {
  const row = page.locator(`${VIEW_CONTAINER} .monaco-list-row`).filter({ has: page.locator('.label-name', { hasText: new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }) }).first();
  await row.waitFor({ state: 'visible', timeout: 15_000 }).catch(() => fail(`no folder row "${label}"`));
  const open = clickUntilOpen(row);
  await waitFor(`folder ${label} open`, 15_000, async () => {
    const expanded = await open();
    return { ok: expanded === 'true', detail: `aria-expanded: ${expanded}` };
  });
  return row;
}

/** ms from the log line announcing activation to the extension's own "activated" line. */
function activationFromLogs(userDataDir) {
  const files = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.log')) files.push(p);
    }
  };
  try {
    walk(join(userDataDir, 'logs'));
  } catch {
    return undefined;
  }
  const stamp = (line) => {
    const m = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3})/.exec(line);
    return m ? Date.parse(m[1].replace(' ', 'T')) : undefined;
  };
  let start;
  let event;
  let done;
  for (const f of files) {
    for (const line of readFileSync(f, 'utf8').split('\n')) {
      if (start === undefined && line.includes(`_doActivateExtension ${EXTENSION_ID}`)) {
        start = stamp(line);
        event = /activationEvent: '([^']*)'/.exec(line)?.[1];
      }
      if (done === undefined && /Redlock Inspector \S+ activated/.test(line)) done = stamp(line);
    }
  }
  return start !== undefined && done !== undefined ? { ms: done - start, event } : undefined;
}

// ---- main ----
async function main() {
  for (const f of ['extension.js', 'demo.js']) {
    if (!existsSync(join(repoRoot, 'dist', f))) fail(`dist/${f} is missing: run \`npm run build\` first`);
  }
  const tools = ensureTools();
  if (!tools.chromium) fail(`${CHROMIUM} is missing (sudo apt-get install -y chromium)`);
  overallTimer = setTimeout(() => void finish(124, `timed out after ${timeoutMs} ms (REDLOCK_UI_TEST_TIMEOUT_MS)`), timeoutMs);

  tmp = mkdtempSync(join(tmpdir(), 'redlock-ui-test-'));
  const dirs = makeWorkbenchDirs(tmp);
  codeServerLogPath = join(tmp, 'code-server.log');

  // 1. Nodes and the packaged extension, side by side.
  const nodesReady = startDemoNodes();
  nodesReady.catch(() => {}); // awaited below
  const vsix = join(tmp, 'redlock-inspector.vsix');
  let t = Date.now();
  run('npx', ['vsce', 'package', '--no-dependencies', '--out', vsix], { cwd: repoRoot });
  say(`packaged ${(statSync(vsix).size / 1024).toFixed(0)} KB .vsix in ${secs(Date.now() - t)}`);

  const env = codeServerEnv(dirs);
  t = Date.now();
  const inst = run(tools.node, [tools.codeServerEntry, ...dataDirArgs(dirs), '--install-extension', vsix], { env });
  if (!/successfully installed/i.test(inst.stdout + inst.stderr)) fail(`--install-extension did not confirm:\n${inst.stdout}${inst.stderr}`);
  say(`installed into code-server in ${secs(Date.now() - t)}`);

  const urls = await nodesReady;
  say(`5 seeded nodes: ${urls.join(' ')} (${elapsed()})`);
  if (urls.length !== 5) fail(`expected 5 node URLs from dist/demo.js, got ${urls.length}`);
  await addHealthyLocks(urls);

  writeUserSettings(dirs['user-data'], USER_SETTINGS);
  mkdirSync(join(dirs.workspace, '.vscode'), { recursive: true });
  writeFileSync(join(dirs.workspace, '.vscode', 'settings.json'), JSON.stringify({ 'redlock.nodes': urls }, null, 2));

  // 2. code-server.
  const port = await freePort();
  const authority = `127.0.0.1:${port}`;
  codeServer = spawnCodeServer(tools, serveArgs(tools, dirs, authority), { cwd: dirs.workspace, env, logPath: codeServerLogPath, verbose, onExit: codeServerExited });
  await waitForHealth(`http://${authority}/healthz`, codeServer, 60_000, CheckFailed);
  say(`code-server up on ${authority} (${elapsed()})`);

  // 3. The browser.
  context = await launchBrowser(tools, dirs, tmp, { viewport: { width: 1400, height: 860 }, deviceScaleFactor: 1, colorScheme: 'dark' });
  page = await workbenchPage(context, { verbose, onCrash: () => void finish(1, 'the workbench page crashed') });

  const tNav = Date.now();
  await page.goto(`http://${authority}/?folder=${encodeURIComponent(dirs.workspace)}`, { waitUntil: 'domcontentloaded', timeout: 60_000 });
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
  const tWorkbench = Date.now();
  say(`workbench visible ${secs(tWorkbench - tNav)} after navigation (${elapsed()})`);

  // 4. The Redlock container in the activity bar.
  const entry = page.locator(`.activitybar [aria-label="${CONTAINER_TITLE}"]`).first();
  await entry.waitFor({ state: 'visible', timeout: 30_000 }).catch(() => fail(`no "${CONTAINER_TITLE}" entry in the activity bar (extension not installed or not contributed?)`));
  await entry.click();
  const tClick = Date.now();
  await page.locator(VIEW_CONTAINER).waitFor({ state: 'visible', timeout: 15_000 }).catch(() => fail(`clicking "${CONTAINER_TITLE}" did not open ${VIEW_CONTAINER}`));

  // 5. A long list: "Needs attention" first and open, holding every anomaly; then the keys
  // in folders, closed, each with its count and worst verdict.
  await waitFor('a first lock row in the Locks view', 60_000, async () => {
    const texts = await rowTexts();
    return { ok: texts.some((x) => EXPECTED_ROWS.some(([key]) => x.includes(key))), detail: texts.join('\n') };
  });
  const tFirstRow = Date.now();
  say(`first lock row ${tFirstRow - tWorkbench} ms after the workbench appeared (${tFirstRow - tClick} ms after clicking ${CONTAINER_TITLE})`);
  // The first read may still be confirming the split (docs/decisions.md): poll until it shows.
  const { lockTop, folderRow } = await waitFor('"Needs attention" (open, every anomaly under it) and a closed folder with its count and worst verdict', 30_000, async () => {
    const top = await page.locator(`${VIEW_CONTAINER} .monaco-list-row[aria-level="1"]`).evaluateAll((rows) => rows.map((r) => ({ text: (r.textContent ?? '').replace(/\s+/g, ' ').trim(), expanded: r.getAttribute('aria-expanded') })));
    const lockTop = top.filter((r) => !/127\.0\.0\.1/.test(r.text));
    const folderRow = lockTop.find((r) => r.text.startsWith(KEY_PREFIX));
    const grouped = await page.locator(`${VIEW_CONTAINER} .monaco-list-row[aria-level="2"]`).evaluateAll((rows) => rows.map((r) => (r.textContent ?? '').replace(/\s+/g, ' ').trim()));
    const missing = EXPECTED_ROWS.slice(0, 4).filter(([key, verdict]) => !grouped.some((x) => x.includes(key) && verdict.test(x)));
    const ok = /^Needs attention/.test(lockTop[0]?.text ?? '') && lockTop[0].expanded === 'true' && folderRow?.expanded === 'false' && /\d+ locks · \d+ need attention, worst: split/.test(folderRow.text) && missing.length === 0;
    return { ok, lockTop, folderRow, detail: `top level:\n${top.map((r) => `${r.text} (expanded: ${r.expanded})`).join('\n')}\nnot in the group: ${missing.map(([k]) => k).join(', ')}\nlevel 2:\n${grouped.join('\n')}` };
  });
  say(`top level: "${lockTop[0].text}" (open), folder "${folderRow.text}" (closed); split, partial, no TTL and TTL skew in the group`);
  // The healthy ones are in the folders: open them down to the demo's own keys, with the
  // Nodes view folded so that every row of the Locks view fits (a list renders rows on screen only).
  await page.locator(`${VIEW_CONTAINER} .pane-header`, { hasText: 'Nodes' }).first().click().catch(() => say('could not fold the Nodes view'));
  await openFolder(KEY_PREFIX);
  await openFolder('lock:');
  const orders = page.locator(`${VIEW_CONTAINER} .monaco-list-row`, { hasText: `orders:` }).filter({ hasText: `${EXTRA_LOCKS} locks` }).first();
  await orders.waitFor({ state: 'visible', timeout: 10_000 }).catch(() => fail(`no closed folder "orders:" of ${EXTRA_LOCKS} locks inside lock:`));
  if ((await orders.getAttribute('aria-expanded')) !== 'false') fail('the orders: folder is open before anyone opened it');
  say(`folders opened: ${KEY_PREFIX} > lock: ; "${await textOf(orders)}" stays closed`);
  await waitFor('the seeded demo locks with their verdicts', 30_000, async () => {
    const texts = await rowTexts();
    const missing = EXPECTED_ROWS.filter(([key, verdict]) => !texts.some((x) => x.includes(key) && verdict.test(x)));
    return { ok: missing.length === 0, detail: `missing: ${missing.map(([k, v]) => `${k} ${v}`).join(', ')}\nrows:\n${texts.join('\n')}` };
  });
  const tAllRows = Date.now();
  say(`all ${EXPECTED_ROWS.length} checked locks with verdicts ${tAllRows - tWorkbench} ms after the workbench appeared`);

  // 5b. At the default side bar width, each checked row's verdict and action flags (the
  // label's headline, before the key) lie inside the row's visible box: a long key is
  // what gets clipped, never the verdict.
  await setSidebarWidth(DEFAULT_SIDEBAR_WIDTH);
  const sidebar = await page.locator('.part.sidebar').boundingBox();
  if (!sidebar || Math.abs(sidebar.width - DEFAULT_SIDEBAR_WIDTH) > 12) fail(`the side bar is ${sidebar?.width} px wide, not about ${DEFAULT_SIDEBAR_WIDTH}`);
  for (const [key, verdict] of EXPECTED_ROWS) {
    if ((KEY_PREFIX + key).length < 30) fail(`${KEY_PREFIX + key} is shorter than 30 characters`);
    const box = await lockRow(key).evaluate((row, source) => {
      const label = row.querySelector('.label-name');
      const text = label?.textContent ?? '';
      const m = new RegExp(source).exec(text);
      if (!label || !m) return { text };
      // The text node(s) holding the match: a Range measures exactly those characters.
      const walker = document.createTreeWalker(label, window.NodeFilter.SHOW_TEXT);
      const range = document.createRange();
      let offset = 0;
      let started = false;
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const len = n.textContent.length;
        if (!started && m.index < offset + len) { range.setStart(n, m.index - offset); started = true; }
        if (started && m.index + m[0].length <= offset + len) { range.setEnd(n, m.index + m[0].length - offset); break; }
        offset += len;
      }
      const r = range.getBoundingClientRect();
      // What is visible of the row: clipped by every ancestor that hides overflow.
      let right = row.getBoundingClientRect().right;
      let left = row.getBoundingClientRect().left;
      for (let e = label; e && e !== document.body; e = e.parentElement) {
        const cs = window.getComputedStyle(e);
        if (cs.overflowX !== 'visible' || cs.overflow !== 'visible') {
          const b = e.getBoundingClientRect();
          right = Math.min(right, b.right);
          left = Math.max(left, b.left);
        }
      }
      return { text, verdict: m[0], left: r.left, right: r.right, visibleLeft: left, visibleRight: right, labelScroll: label.scrollWidth, labelClient: label.clientWidth };
    }, verdict.source);
    if (box.verdict === undefined) fail(`the ${key} row's label does not lead with ${verdict}: "${box.text}"`);
    if (!box.text.startsWith(box.verdict)) fail(`the ${key} row's label does not start with its verdict: "${box.text}"`);
    if (box.left < box.visibleLeft - 0.5 || box.right > box.visibleRight + 0.5) {
      fail(`at ${sidebar.width} px the verdict "${box.verdict}" of ${key} is clipped: text ${box.left.toFixed(0)}..${box.right.toFixed(0)}, visible ${box.visibleLeft.toFixed(0)}..${box.visibleRight.toFixed(0)} ("${box.text}")`);
    }
    say(`${sidebar.width} px side bar: "${box.verdict}" of ${KEY_PREFIX}${key} at ${box.left.toFixed(0)}..${box.right.toFixed(0)} within ${box.visibleLeft.toFixed(0)}..${box.visibleRight.toFixed(0)}`);
  }

  // 6. Expand the split lock: one child row per node copy.
  const split = lockRow(SPLIT_KEY);
  const open = clickUntilOpen(split);
  await waitFor(`node copies under ${SPLIT_KEY}`, 15_000, async () => {
    await open();
    const children = await page
      .locator(`${VIEW_CONTAINER} .monaco-list-row[aria-level="${Number(await split.getAttribute('aria-level')) + 1}"]`)
      .evaluateAll((rows) => rows.map((r) => (r.textContent ?? '').replace(/\s+/g, ' ').trim()));
    const nodeRows = children.filter((x) => /127\.0\.0\.1:\d+/.test(x));
    // The two holders' copies carry the CLI's letters, A and B, before the node id.
    const lettered = ['A', 'B'].every((l) => nodeRows.filter((x) => x.startsWith(`${l} · 127.0.0.1:`)).length === 2);
    return { ok: nodeRows.length >= 4 && lettered && (await split.getAttribute('aria-expanded')) === 'true', detail: `children (two copies each lettered A and B expected):\n${children.join('\n')}` };
  });
  say(`expanded ${SPLIT_KEY}: node copy rows shown, lettered A and B`);

  // 7. A command from the palette, and no error notification afterwards.
  await palette('>Redlock: Refresh');
  // The exact entry: fuzzy matching also lists "Redlock: Pause Auto-Refresh".
  const pickRefresh = async () => {
    const rows = page.locator('.quick-input-list .monaco-list-row');
    const labels = await rows.evaluateAll((rs) => rs.map((r) => (r.querySelector('.label-name')?.textContent ?? '').replace(/\s+/g, ' ').trim()));
    const i = labels.indexOf('Redlock: Refresh');
    return i < 0 ? { ok: false, detail: `palette entries: ${labels.join(' | ')}` } : { ok: true, row: rows.nth(i) };
  };
  const { row: refreshRow } = await waitFor('"Redlock: Refresh" in the command palette', 10_000, pickRefresh);
  await refreshRow.click();
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => fail('the palette did not close after Enter'));
  await sleep(1500); // a failed refresh reports within the refresh round trip
  const rowsAfter = await rowTexts();
  if (!rowsAfter.some((x) => x.includes(SPLIT_KEY) && /split 2\+2\/5/.test(x))) fail(`after Redlock: Refresh the split lock is gone:\n${rowsAfter.join('\n')}`);

  const status = await page.locator('.statusbar .statusbar-item[id$="redlock.status"]').first().textContent().catch(() => null);
  const statusHtml = await page.locator('.statusbar .statusbar-item[id$="redlock.status"]').first().innerHTML().catch(() => '');
  if (status === null) fail('no Redlock item in the status bar');
  if (/debug-pause|codicon-error/.test(statusHtml)) fail(`the Redlock status bar item shows paused or an error after Redlock: Refresh: ${statusHtml}`);

  // Read every notification (toasts and the center) and reject any error.
  await page.locator('.statusbar [id="status.notifications"] a').first().click().catch(() => {});
  const center = page.locator('.notifications-center');
  await center.waitFor({ state: 'visible', timeout: 5000 }).catch(() => {});
  const notes = await page.locator('.notifications-center .notification-list-item, .notification-toast .notification-list-item').evaluateAll((items) =>
    items.map((i) => ({
      error: !!i.querySelector('.codicon-error, .codicon-notifications-error'),
      text: (i.querySelector('.notification-list-item-message')?.textContent ?? i.textContent ?? '').trim(),
    })),
  );
  const errors = notes.filter((n) => n.error || /^(Error|Command '.*' resulted in an error)/.test(n.text));
  for (const n of notes) say(`notification${n.error ? ' (error)' : ''}: ${n.text}`);
  if (errors.length > 0) fail(`error notification(s) after Redlock: Refresh:\n${errors.map((n) => n.text).join('\n')}`);
  // Clear them: the screenshots show the view, not the toasts.
  await palette('>Notifications: Clear All Notifications');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Clear All Notifications' }).first().waitFor({ state: 'visible', timeout: 10_000 });
  await page.keyboard.press('Enter');
  await page.locator('.notifications-center').waitFor({ state: 'hidden', timeout: 5000 }).catch(() => {});
  await page.keyboard.press('Escape');

  // 8. The row's inline "Open Lock Details" action opens the lock in the editor area.
  // The live countdown re-renders rows every second, which can swallow a click on a hover
  // action: try a few times before calling it a failure.
  const detailsAction = split.locator('.actions .action-label[aria-label^="Open Lock Details"]').first();
  const tab = page.locator('.editor-group-container .tabs-container .tab', { hasText: 'split:payments' }).first();
  for (let attempt = 1; ; attempt++) {
    await split.hover();
    await detailsAction.waitFor({ state: 'visible', timeout: 10_000 }).catch(() => fail(`no inline "Open Lock Details" action on the ${SPLIT_KEY} row`));
    await detailsAction.click().catch(() => {});
    if (await tab.waitFor({ state: 'visible', timeout: 5_000 }).then(() => true, () => false)) break;
    if (attempt === 4) fail(`"Open Lock Details" opened no editor tab for ${SPLIT_KEY}`);
  }
  // The detail panel is a webview: its page lives in a nested iframe; locators pierce shadow roots.
  const shown = async () => {
    for (const f of page.frames()) {
      if (f === page.mainFrame()) continue;
      if (await f.locator('text=split 2+2/5').first().isVisible().catch(() => false)) return true;
    }
    return false;
  };
  const until = Date.now() + 15_000;
  while (!(await shown())) {
    if (Date.now() > until) fail(`the lock detail panel of ${SPLIT_KEY} does not show its verdict`);
    await page.waitForTimeout(200);
  }
  say(`Open Lock Details: editor tab "${((await tab.textContent()) ?? '').trim()}"`);

  const activation = activationFromLogs(dirs['user-data']);
  if (activation) say(`activate() took ${activation.ms} ms (log timestamps; activation event ${activation.event})`);

  // 9. Screenshots.
  if (!noScreenshots) {
    mkdirSync(screenshotDir, { recursive: true });
    // A wider side bar: the long keys and descriptions fit without ellipsis.
    await setSidebarWidth(DEFAULT_SIDEBAR_WIDTH + 250);
    say(`sidebar now ${JSON.stringify(await page.locator('.part.sidebar').boundingBox())}`);
    if ((await split.getAttribute('aria-expanded')) !== 'true') fail(`${SPLIT_KEY} collapsed again`);
    await page.mouse.move(900, 500); // no hover over the tree
    await sleep(800);
    const locksShot = join(screenshotDir, 'workbench-locks.png');
    await page.screenshot({ path: locksShot });
    say(`saved ${locksShot}`);
  }

  // 10. A lock's tooltip, built when the pointer rests on the row (resolveTreeItem).
  {
    // One hover, no retry: the no-TTL lock's row never counts down, and nothing else
    // re-renders it while the order holds still (docs/decisions.md, "Tooltips that stay").
    // Near the row's start: the middle of a clipped label lies under the row's inline actions.
    const hover = page.locator('.workbench-hover, .monaco-hover').filter({ hasText: 'nightly-cleanup' }).first();
    await page.mouse.move(900, 500);
    await lockRow('lock:no-ttl:nightly-cleanup').locator('.label-name').first().hover({ position: { x: 30, y: 8 } });
    const shown = await hover.waitFor({ state: 'visible', timeout: 4000 }).then(() => true, () => false);
    if (!shown) fail('hovering the lock:no-ttl:nightly-cleanup row showed no tooltip');
    // It stays while other rows count down and the watch reads the nodes: only a row whose
    // text changed is re-rendered, and the order does not move (docs/decisions.md).
    const stayMs = 4000;
    const tShown = Date.now();
    const rowsBefore = await viewRows();
    while (Date.now() - tShown < stayMs) {
      if (!(await hover.isVisible())) await tooltipVanished('the lock:no-ttl:nightly-cleanup', Date.now() - tShown, rowsBefore);
      await sleep(200);
    }
    say(`the tooltip stayed ${stayMs} ms`);
    if (!noScreenshots) {
      const tipShot = join(screenshotDir, 'workbench-tooltip.png');
      await page.screenshot({ path: tipShot });
      say(`saved ${tipShot}`);
    }
  }

  // 11. A counting-down row keeps its tooltip too: the Redisson lock's time left steps
  // down every 5 s and its watchdog renews it every 10 s, yet the row holds still while its
  // tooltip is read, and counts down again once the pointer has left (docs/decisions.md,
  // "Tooltips that stay"). A step or a renewal that lands in the hover delay, before VS Code
  // asks for the tooltip, still cancels that hover: a step every 5 s and a renewal every
  // 10 s can each cancel one try, so three are allowed.
  {
    const key = 'lock:redisson:inventory';
    const row = lockRow(key);
    // Far from expiry a row says `> 10 s`, which its renewals do not move; a row the user
    // selected counts down live (docs/decisions.md, "A tree for 10,000 locks").
    const description = () => row.locator('.label-description').first().textContent().then((t) => (t ?? '').trim());
    // The last tooltip away first: it would take the click.
    await page.mouse.move(900, 500);
    await page.locator('.workbench-hover, .monaco-hover').filter({ visible: true }).first().waitFor({ state: 'detached', timeout: 5000 }).catch(() => {});
    const rough = await description();
    if (!/^> \d+ (s|min)/.test(rough)) fail(`${key}, far from expiry and not selected, reads "${rough}", not a rough time`);
    await row.click();
    // Away at once: a pointer resting on the row resolves its tooltip, and the row holds still 15 s.
    await page.mouse.move(900, 500);
    // Folded again (the click opened it), still selected: its node rows out of the way.
    await page.keyboard.press('ArrowLeft');
    await waitFor(`${key} selected and counting down live`, 25_000, async () => {
      const now = await description();
      return { ok: (await row.getAttribute('aria-selected')) === 'true' && /^\d+(\.\d)? s/.test(now), detail: `reads "${now}"` };
    });
    const hover = page.locator('.workbench-hover, .monaco-hover').filter({ hasText: 'inventory' }).first();
    let shown = false;
    for (let attempt = 1; attempt <= 3 && !shown; attempt++) {
      // Away from the tree until no tooltip shows: a hover still open takes the next one's place.
      await page.mouse.move(900, 500);
      await page.locator('.workbench-hover, .monaco-hover').filter({ visible: true }).first().waitFor({ state: 'detached', timeout: 5000 }).catch(() => {});
      // Near the row's start: the middle of a clipped label lies under the row's inline actions.
      await row.locator('.label-name').first().hover({ position: { x: 30, y: 8 } });
      shown = await hover.waitFor({ state: 'visible', timeout: 4000 }).then(() => true, () => false);
      if (!shown) say(`hover attempt ${attempt} on ${key}: no tooltip yet`);
    }
    if (!shown) fail(`hovering the ${key} row showed no tooltip`);
    const heldText = await description();
    const stayMs = 4000;
    const tShown = Date.now();
    const rowsBefore = await viewRows();
    while (Date.now() - tShown < stayMs) {
      if (!(await hover.isVisible())) await tooltipVanished(`the counting-down ${key}`, Date.now() - tShown, rowsBefore);
      await sleep(200);
    }
    say(`the counting-down ${key} tooltip stayed ${stayMs} ms (row read "${heldText}")`);
    await page.mouse.move(900, 500);
    // The hold lasts 15 s; then the row shows each of its steps within one 10 s renewal cycle.
    await waitFor(`the ${key} row counting down again after the hover`, 30_000, async () => {
      const now = await description();
      return { ok: now !== heldText, detail: `still "${now}"` };
    });
    say(`${key} counts down again after the hover`);
  }

  // 12. The all-locks timeline, from the palette (its button sits in the Locks view's
  // title): the demo's recording worker's lock is a row; a click on that row in the chart
  // opens the lock's detail panel, whose timeline draws the holders' lane from the recorded history.
  if ((await page.locator(`${VIEW_CONTAINER} .action-label[aria-label="Show All-Locks Timeline"]`).count()) === 0) fail('no "Show All-Locks Timeline" button in the Locks view\'s title');
  await palette('>Redlock: Show All-Locks Timeline');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Show All-Locks Timeline' }).first().waitFor({ state: 'visible', timeout: 10_000 }).catch(() => fail('no "Redlock: Show All-Locks Timeline" in the palette'));
  await page.keyboard.press('Enter');
  const inWebview = async (selector) => {
    for (const f of page.frames()) {
      if (f === page.mainFrame()) continue;
      const l = f.locator(selector).first();
      if (await l.isVisible().catch(() => false)) return l;
    }
    return undefined;
  };
  const HEALTHY = 'lock:healthy:invoices';
  const { row: allRow, index } = await waitFor(`the all-locks timeline with a row for ${HEALTHY}`, 30_000, async () => {
    const list = await inWebview('#al-list');
    const texts = list ? await list.locator('.al-open').evaluateAll((bs) => bs.map((b) => b.textContent ?? '')) : [];
    const i = texts.findIndex((x) => x.includes(HEALTHY));
    return { ok: i >= 0, row: list, index: i, detail: list ? `rows listed: ${texts.join(' | ')}` : 'no all-locks webview yet' };
  });
  const canvas = await inWebview('#al-canvas');
  if (!canvas || !allRow) fail('the all-locks timeline has no chart');
  if (!noScreenshots) {
    await page.mouse.move(900, 500);
    const shot = join(screenshotDir, 'workbench-all-locks.png');
    mkdirSync(screenshotDir, { recursive: true });
    await page.screenshot({ path: shot });
    say(`saved ${shot}`);
  }
  say(`all-locks timeline: ${await allRow.locator('.al-open').count()} row(s), "${(await allRow.locator('.al-open').nth(index).textContent())?.trim()}"`);
  // Rows are 22 px under a 22 px time axis (webview/allLocksChart.ts).
  await canvas.click({ position: { x: 40, y: 22 + index * 22 + 11 } });
  const healthyTab = page.locator('.editor-group-container .tabs-container .tab', { hasText: 'healthy:invoices' }).first();
  await healthyTab.waitFor({ state: 'visible', timeout: 10_000 }).catch(() => fail(`a click on the ${HEALTHY} row of the all-locks timeline opened no detail panel`));
  await waitFor(`the holders' lane in the ${HEALTHY} panel's timeline`, 20_000, async () => ({ ok: (await inWebview('#timeline [data-lane="holders"] rect.hold')) !== undefined }));
  say(`the all-locks row opened "${((await healthyTab.textContent()) ?? '').trim()}"; its timeline draws the holders' lane`);
  if (!noScreenshots) {
    // The chart in view: it sits under the header and the nodes table.
    await (await inWebview('#timeline'))?.scrollIntoViewIfNeeded();
    await page.mouse.move(900, 500);
    await sleep(500);
    const shot = join(screenshotDir, 'workbench-timeline.png');
    await page.screenshot({ path: shot });
    say(`saved ${shot}`);
  }

  say(
    `times: workbench ${secs(tWorkbench - tNav)} after navigation; first lock row ${tFirstRow - tWorkbench} ms after the workbench appeared (${tFirstRow - tClick} ms after the click), all checked rows after ${tAllRows - tWorkbench} ms` +
      (activation ? `; activate() ${activation.ms} ms` : ''),
  );
  return finish(0, 'all UI checks passed');
}

main().catch((e) => finish(1, e instanceof CheckFailed ? `check failed: ${e.message}` : `failed: ${e.stack ?? e}`));
