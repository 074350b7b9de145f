// The all-locks timeline, browser side: a row per lock over the last hour, worst first,
// drawn on a canvas (allLocksChart.ts) that scrolls through every row, with the zoom from
// five minutes to the hour, and the worst rows listed as buttons beside it: its text
// alternative, and what a keyboard or screen reader uses. It receives `rows` (validated
// with allLocksProtocol's guards) and posts `ready` and `open`. Keys go into the page as
// text or canvas text, never as markup (dom.ts).
import '@vscode-elements/elements/dist/vscode-button/index.js';
import './panel.css';
import './allLocks.css';
import { ALL_LOCKS_PROTOCOL_VERSION, isAllLocksHostMessage, type AllLocksWebviewMessage, type RowsMessage } from '../src/shared/allLocksProtocol';
import { rowText, type AllLocksRow } from '../src/shared/allLocksRows';
import { clear, el, setText } from './dom';
import { AXIS_H, ROW_H, drawChart, readColours, rowAt, type ChartColours } from './allLocksChart';

interface VsCodeApi {
  postMessage(message: AllLocksWebviewMessage): void;
}
declare function acquireVsCodeApi(): VsCodeApi;
const vscodeApi = acquireVsCodeApi();
const post = (m: AllLocksWebviewMessage): void => vscodeApi.postMessage(m);

/** Rows listed as text beside the chart: the worst ones; the chart scrolls through all. */
const LISTED = 100;
const ZOOMS: ReadonlyArray<{ label: string; ms: number }> = [
  { label: '5 min', ms: 5 * 60_000 },
  { label: '15 min', ms: 15 * 60_000 },
  { label: '1 h', ms: 3600_000 },
];

const state = {
  rows: [] as AllLocksRow[],
  /** Local clock minus the host's. */
  offset: 0,
  windowMs: 15 * 60_000,
  selected: -1,
  colours: null as ChartColours | null,
};

const summary = el('p', { id: 'al-summary', class: 'note', 'aria-live': 'polite' }, 'Reading the event logs…');
const zoomBar = el('div', { id: 'al-zoom', class: 'zoom', role: 'toolbar', 'aria-label': 'Timeline span' });
for (const z of ZOOMS) {
  const b = el('vscode-button', { class: 'zoom-step', secondary: true, 'data-ms': z.ms, 'aria-pressed': String(z.ms === state.windowMs) }, z.label);
  b.addEventListener('click', () => zoom(z.ms));
  zoomBar.appendChild(b);
}
const head = el('div', { class: 'section-head' });
head.append(el('h1', { id: 'al-title' }, 'All locks'), zoomBar);

const canvas = el('canvas', { id: 'al-canvas', class: 'al-canvas', 'aria-hidden': 'true' });
const spacer = el('div', { class: 'al-spacer' });
const scroller = el('div', {
  id: 'al-scroll', class: 'al-scroll', tabindex: 0, role: 'group',
  'aria-label': 'One row per lock over the last hour, worst first. Up and down move between rows, Enter opens its details, plus and minus zoom.',
});
scroller.append(canvas, spacer);
const active = el('p', { id: 'al-active', class: 'sr-only', 'aria-live': 'polite' });
const legend = el('p', { class: 'note al-legend' }, 'Bars: holds, in each holder\'s colour. Thin grey bars: waits, from the first refused attempt to the grant or give-up. Marks: a failed acquire (yellow), a lost lease or a split (red).');
const list = el('ol', { id: 'al-list', class: 'al-list', 'aria-label': 'Locks, worst first' });
const more = el('p', { id: 'al-more', class: 'note' });

const app = document.getElementById('app') ?? document.body.appendChild(el('main', { id: 'app' }));
clear(app);
app.removeAttribute('aria-busy');
app.append(head, summary, scroller, active, legend, el('h2', { id: 'al-list-h' }, 'Locks, worst first'), list, more);

const ctx = canvas.getContext('2d');

/** Sizes the canvas to the visible part of the scroller and draws the rows under it. */
function draw(): void {
  if (!ctx) return;
  // As tall as its rows, up to 60% of the page.
  const fit = `${Math.min(Math.max(160, Math.round(window.innerHeight * 0.6)), AXIS_H + Math.max(1, state.rows.length) * ROW_H + 2)}px`;
  if (scroller.style.height !== fit) scroller.style.height = fit;
  const width = scroller.clientWidth || 800;
  const height = scroller.clientHeight || 400;
  const ratio = window.devicePixelRatio || 1;
  if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
  }
  spacer.style.height = `${Math.max(0, AXIS_H + state.rows.length * ROW_H - height)}px`;
  state.colours ??= readColours(document.documentElement);
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  const ms = drawChart(ctx, {
    rows: state.rows, now: Date.now() - state.offset, windowMs: state.windowMs, scrollTop: scroller.scrollTop,
    width, height, selected: state.selected, colours: state.colours,
  });
  canvas.setAttribute('data-render-ms', ms.toFixed(2));
}

let queued = false;
function schedule(): void {
  if (queued) return;
  queued = true;
  requestAnimationFrame(() => {
    queued = false;
    draw();
  });
}

function zoom(ms: number): void {
  state.windowMs = ms;
  for (const b of Array.from(zoomBar.children)) b.setAttribute('aria-pressed', String(b.getAttribute('data-ms') === String(ms)));
  schedule();
}

function select(i: number): void {
  if (state.rows.length === 0) return;
  state.selected = Math.max(0, Math.min(state.rows.length - 1, i));
  const top = state.selected * ROW_H;
  const visible = scroller.clientHeight - AXIS_H;
  if (top < scroller.scrollTop) scroller.scrollTop = top;
  else if (top + ROW_H > scroller.scrollTop + visible) scroller.scrollTop = top + ROW_H - visible;
  setText(active, `Row ${state.selected + 1} of ${state.rows.length}: ${rowText(state.rows[state.selected])}`);
  schedule();
}

const open = (i: number): void => {
  const r = state.rows[i];
  if (r) post({ type: 'open', key: r.key });
};

// A scroll event comes once per frame: draw at once, in that frame.
scroller.addEventListener('scroll', draw, { passive: true });
canvas.addEventListener('click', (e) => {
  const i = rowAt(e.offsetY, scroller.scrollTop, state.rows.length);
  if (i < 0) return;
  select(i);
  open(i);
});
scroller.addEventListener('keydown', (e) => {
  const page = Math.max(1, Math.floor((scroller.clientHeight - AXIS_H) / ROW_H) - 1);
  const keys: Record<string, () => void> = {
    ArrowDown: () => select(state.selected + 1),
    ArrowUp: () => select(state.selected - 1),
    PageDown: () => select(state.selected + page),
    PageUp: () => select(state.selected - page),
    Home: () => select(0),
    End: () => select(state.rows.length - 1),
    Enter: () => open(state.selected),
    '+': () => zoom(ZOOMS[Math.max(0, ZOOMS.findIndex((z) => z.ms === state.windowMs) - 1)].ms),
    '-': () => zoom(ZOOMS[Math.min(ZOOMS.length - 1, ZOOMS.findIndex((z) => z.ms === state.windowMs) + 1)].ms),
  };
  const run = keys[e.key];
  if (!run) return;
  e.preventDefault();
  run();
});

let listed = '';
function renderList(): void {
  const shown = state.rows.slice(0, LISTED);
  const lines = shown.map(rowText);
  const sig = lines.join('\n');
  if (sig !== listed) {
    listed = sig;
    clear(list);
    for (const [i, line] of lines.entries()) {
      const b = el('button', { class: 'al-open', type: 'button', 'data-row': i }, line);
      b.addEventListener('click', () => open(i));
      const li = el('li', { class: 'al-row' });
      li.appendChild(b);
      list.appendChild(li);
    }
  }
  setText(more, state.rows.length > LISTED ? `${state.rows.length - LISTED} more in the chart above.` : '');
}

function onRows(m: RowsMessage): void {
  if (m.version !== ALL_LOCKS_PROTOCOL_VERSION) return;
  const selectedKey = state.rows[state.selected]?.key;
  state.rows = m.rows;
  state.offset = Date.now() - m.sentAt;
  state.selected = selectedKey === undefined ? -1 : m.rows.findIndex((r) => r.key === selectedKey);
  state.colours = readColours(document.documentElement);
  const missing = m.cut ? ' Some logs could not be read: a node did not answer or the walk hit its budget.' : '';
  setText(summary, m.rows.length === 0
    ? `No lock recorded or was seen doing anything in the last hour (${m.logs} event logs under the patterns).${missing}`
    : `${m.rows.length} locks active in the last hour, worst first (lost, split, contended, then held longest).${missing}`);
  scroller.setAttribute('data-rows', String(m.rows.length));
  renderList();
  schedule();
}

window.addEventListener('message', (ev: MessageEvent) => {
  if (isAllLocksHostMessage(ev.data)) onRows(ev.data);
});
window.addEventListener('resize', schedule);
// The right edge is "now": the rows slide once a second.
setInterval(schedule, 1000);
post({ type: 'ready', version: ALL_LOCKS_PROTOCOL_VERSION });
