// The all-locks timeline rendered in headless Chromium (test/support/webviewPage.ts): rows
// drawn on the canvas and listed as text, a click and the keyboard open a lock, hostile
// key names stay text. With ALL_LOCKS_BENCH_OUT set, the 1,000-lock scene also records
// its frame times for bench/allLocks.ts, which holds the targets.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import type * as http from 'node:http';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { allLocksRows, rowText } from '../../src/shared/allLocksRows';
import { ALL_LOCKS_PROTOCOL_VERSION, type RowsMessage } from '../../src/shared/allLocksProtocol';
import type { HistoryEvent } from '../../src/shared/protocol';
import { CHROMIUM, launchChromium, standIn, startServer, webviewDir, type Recorded } from '../support/webviewPage';

const ev = (at: number, kind: HistoryEvent['kind'], token: string | null, over: Partial<HistoryEvent> = {}): HistoryEvent =>
  ({ at, kind, nodes: [], token, previousToken: null, from: null, to: null, recordedBy: null, ...over });
const HOSTILE = 'job:<img src=x onerror=alert(1)>\u202e';

function rowsMessage(now: number): RowsMessage {
  const rows = allLocksRows([
    { key: 'calm', events: [ev(now - 60_000, 'acquired', 'A'), ev(now - 50_000, 'released', 'A')] },
    { key: HOSTILE, events: [ev(now - 30_000, 'acquired', 'A'), ev(now - 20_000, 'lost', 'A')] },
    { key: 'busy', events: [ev(now - 9000, 'acquired', 'A'), ev(now - 8000, 'released', 'A'), ev(now - 7000, 'acquired', 'B', { waitMs: 900 })] },
  ], now);
  return { type: 'rows', version: ALL_LOCKS_PROTOCOL_VERSION, sentAt: now, windowMs: 3600_000, rows, logs: 3, cut: false };
}

describe('all-locks timeline (webview in headless Chromium)', function () {
  this.timeout(60_000);
  let browser: Browser;
  let server: http.Server;
  let origin: string;
  let context: BrowserContext;
  let pageErrors: string[];

  before(async () => {
    assert.ok(fs.existsSync(CHROMIUM), `Chromium not found at ${CHROMIUM} (apt-get install chromium)`);
    ({ server, origin } = await startServer(await webviewDir()));
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  });
  afterEach(async function () {
    await context?.close();
    if (this.currentTest?.state !== 'failed') assert.deepEqual(pageErrors, [], 'no uncaught error in the page');
  });

  async function open(): Promise<Page> {
    context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    pageErrors = [];
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    page.on('dialog', (d) => {
      pageErrors.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    await page.addInitScript(standIn(null));
    await page.goto(`${origin}/all-locks`);
    await page.waitForFunction(() => (window as unknown as { __posted: Array<{ type: string }> }).__posted.some((m) => m.type === 'ready'));
    return page;
  }
  const send = (p: Page, m: unknown): Promise<void> => p.evaluate((msg) => window.postMessage(msg, '*'), m as object);
  const posted = (p: Page): Promise<Recorded['posted']> => p.evaluate(() => (window as unknown as { __posted: Recorded['posted'] }).__posted);

  it('lists the locks worst first as text, keys escaped and never markup, and draws them', async () => {
    const p = await open();
    const m = rowsMessage(Date.now());
    await send(p, m);
    await p.waitForFunction(() => document.querySelector('#al-scroll')?.getAttribute('data-rows') === '3');
    const listed = await p.$$eval('#al-list .al-open', (bs) => bs.map((b) => b.textContent));
    assert.deepEqual(listed, m.rows.map(rowText));
    assert.match(listed[0] ?? '', /^job:<img src=x onerror=alert\(1\)>\\u\{202e\}: lost 1×/);
    assert.equal(await p.locator('#app img').count(), 0, 'the hostile key created no element');
    assert.deepEqual(await p.$$eval('#al-list .al-open', (bs) => bs.map((b) => b.childElementCount)), [0, 0, 0]);
    await p.waitForFunction(() => document.querySelector('#al-canvas')?.hasAttribute('data-render-ms'));
    // The canvas drew something in the plot area of the first row (a hold bar).
    const painted = await p.evaluate(() => {
      const c = document.querySelector('#al-canvas') as HTMLCanvasElement;
      const data = c.getContext('2d')!.getImageData(230 * devicePixelRatio, 22 * devicePixelRatio, c.width - 240 * devicePixelRatio, 22 * devicePixelRatio).data;
      let n = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i] > 0) n++;
      return n;
    });
    assert.ok(painted > 0, 'the first row has something drawn');
  });

  it('opens a lock by a click on its row, by the keyboard, and from the text list', async () => {
    const p = await open();
    const m = rowsMessage(Date.now());
    await send(p, m);
    await p.waitForFunction(() => document.querySelector('#al-scroll')?.getAttribute('data-rows') === '3');
    // Row 2 (index 1): below the 22 px axis, rows of 22 px.
    await p.locator('#al-canvas').click({ position: { x: 40, y: 22 + 22 + 11 } });
    await p.locator('#al-scroll').focus();
    await p.keyboard.press('ArrowDown');
    await p.keyboard.press('Enter');
    assert.match((await p.locator('#al-active').textContent()) ?? '', /^Row 3 of 3: calm: 1 hold, longest 10\.0 s$/);
    await p.locator('#al-list .al-open').first().click();
    const opens = (await posted(p)).filter((x) => x.type === 'open').map((x) => x.key);
    assert.deepEqual(opens, [m.rows[1].key, m.rows[2].key, m.rows[0].key]);
  });

  it('drops a malformed message and keeps what it shows', async () => {
    const p = await open();
    const m = rowsMessage(Date.now());
    await send(p, m);
    await p.waitForFunction(() => document.querySelector('#al-scroll')?.getAttribute('data-rows') === '3');
    await send(p, { ...m, rows: [{ key: 'x', holds: 'nope' }] });
    await send(p, { type: 'rows' });
    await p.evaluate(() => new Promise((r) => requestAnimationFrame(r)));
    assert.equal(await p.locator('#al-scroll').getAttribute('data-rows'), '3');
    assert.equal(await p.locator('#al-list .al-open').count(), 3);
  });

  it('scrolls and zooms through 1,000 locks with an hour of holds each, drawing only the rows on screen', async () => {
    const p = await open();
    // Built in the page: a 20 MB message through page.evaluate would measure the test's pipe, not the chart.
    await p.evaluate((version) => {
      const now = Date.now();
      const rows = [];
      for (let i = 0; i < 1000; i++) {
        const holds: number[] = [];
        const waits: number[] = [];
        const marks: number[] = [];
        // A hold of 2-6 s every 10 s over the hour, handed between four holders.
        for (let t = now - 3600_000 + (i % 10) * 1000; t < now; t += 10_000) {
          holds.push(t, Math.min(now - 1, t + 2000 + (i * 37 + t) % 4000), (t / 10_000) % 4, 1);
          if ((t / 10_000) % 7 === 0) waits.push(t - 300, t);
          if ((t / 10_000) % 97 === 0) marks.push(t, 0);
        }
        rows.push({ key: `orders:${String(i).padStart(4, '0')}`, holds, waits: waits.slice(-400), marks, lost: 0, split: false, contended: waits.length / 2, longestMs: 6000, holdCount: holds.length / 4 });
      }
      window.postMessage({ type: 'rows', version, sentAt: now, windowMs: 3600_000, rows, logs: 1000, cut: false }, '*');
    }, ALL_LOCKS_PROTOCOL_VERSION);
    await p.waitForFunction(() => document.querySelector('#al-scroll')?.getAttribute('data-rows') === '1000');
    assert.equal(await p.locator('#al-list .al-open').count(), 100, 'the text list is bounded');
    assert.match((await p.locator('#al-more').textContent()) ?? '', /^900 more/);
    // 300 frames: the scroller moves every frame, the zoom changes every 50.
    const figures = await p.evaluate(() => new Promise<{ frameMs: number[]; drawMs: number[]; scrolledTo: number }>((resolve) => {
      const scroller = document.querySelector('#al-scroll') as HTMLElement;
      const canvas = document.querySelector('#al-canvas') as HTMLCanvasElement;
      const zooms = Array.from(document.querySelectorAll('#al-zoom .zoom-step')) as HTMLElement[];
      const frameMs: number[] = [];
      const drawMs: number[] = [];
      let last = performance.now();
      let n = 0;
      const step = (): void => {
        const t = performance.now();
        if (n > 0) {
          frameMs.push(t - last);
          drawMs.push(parseFloat(canvas.getAttribute('data-render-ms') ?? 'NaN'));
        }
        last = t;
        if (n === 300) {
          resolve({ frameMs, drawMs, scrolledTo: scroller.scrollTop });
          return;
        }
        if (n % 50 === 49) zooms[(n / 50 | 0) % zooms.length].click();
        scroller.scrollTop += 70;
        n++;
        requestAnimationFrame(step);
      };
      requestAnimationFrame(step);
    }));
    assert.ok(figures.scrolledTo > 20_000, `scrolled far into the rows (${figures.scrolledTo} px)`);
    assert.ok(figures.drawMs.every((d) => Number.isFinite(d)), 'every frame drew');
    const out = process.env.ALL_LOCKS_BENCH_OUT;
    if (out) fs.writeFileSync(out, JSON.stringify(figures));
  });
});
