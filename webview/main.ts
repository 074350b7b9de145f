// The lock detail panel, browser side. It receives `init` / `snapshot` /
// `events` messages (validated with the shared protocol's guards), shows the verdict in
// words, a per-node table with live TTL countdowns, a per-node SVG timeline and the event
// history, and posts `ready`, `action`, `copyToken` and `exportHistory` back.
// Every key, token, node id and reason goes into the page as text, never as markup.
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-table/index.js';
import '@vscode-elements/elements/dist/vscode-table-body/index.js';
import '@vscode-elements/elements/dist/vscode-table-cell/index.js';
import '@vscode-elements/elements/dist/vscode-table-header/index.js';
import '@vscode-elements/elements/dist/vscode-table-header-cell/index.js';
import '@vscode-elements/elements/dist/vscode-table-row/index.js';
import './panel.css';
import { extendable, releasable } from '../src/core/vocabulary/actions';
import { formatDuration } from '../src/core/vocabulary/describe';
import { livenessText } from '../src/core/vocabulary/liveness';
import { failedCopyText } from '../src/shared/failedCopyText';
import type { LockEntry, Observation } from '../src/core/vocabulary/types';
import {
  PROTOCOL_VERSION, isHistoryEvent, isHostMessage,
  type ActionKind, type HistoryEvent, type HostMessage, type LockView, type PanelState, type WebviewMessage,
} from '../src/shared/protocol';
import { agedEntryWithCopies, describeEvent, describeFormat, holderTokens, verdictBadge, verdictSentence } from '../src/shared/verdictSentence';
import { clear, el, setAttr, setText, svg } from './dom';
import { lockSeverity } from '../src/shared/severity';
import { cycleText, holderText } from '../src/shared/holderText';
import { SampleRing, TOKEN_COLOURS, renderTimeline, type SavedSamples } from './timeline';

interface VsCodeApi {
  postMessage(message: WebviewMessage): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

interface SavedState extends PanelState {
  history: HistoryEvent[];
  samples: SavedSamples;
}

const MAX_HISTORY = 1000;
const HISTORY_SHOWN = 500;

const vscode = acquireVsCodeApi();
const post = (m: WebviewMessage): void => vscode.postMessage(m);

// ---------------------------------------------------------------------------- state
let key: string | null = null;
let view: LockView | null = null;
/** Local clock minus the host's (host times + offset = local times). */
let offset = 0;
let history: HistoryEvent[] = [];
const ring = new SampleRing();
/** Per node: the token its TTL bar scales to, and the longest TTL seen for it. */
const ttlScale = new Map<string, { token: string; max: number }>();
let lastVerdict: string | null | undefined;

// ---------------------------------------------------------------------------- skeleton
const app = document.getElementById('app') ?? document.body.appendChild(el('main', { id: 'app' }));
clear(app);
app.removeAttribute('aria-busy');

const keyEl = el('h1', { id: 'key', class: 'key' });
const badge = el('vscode-badge', { id: 'badge', class: 'verdict-badge' });
const flagsEl = el('span', { id: 'flags', class: 'flags' });
const fenceEl = el('span', { id: 'fence', class: 'fence', hidden: true });
const verdictEl = el('p', { id: 'verdict', class: 'verdict' }, 'Waiting for the extension…');
const announce = el('div', { id: 'announce', class: 'sr-only', 'aria-live': 'polite', role: 'status' });
// Who holds it and who waits: names come from other processes, always set as text.
const holderEl = el('p', { id: 'holder', class: 'holder', hidden: true });
const waitersEl = el('ul', { id: 'waiters', class: 'waiters', 'aria-label': 'Waiting clients', hidden: true });
const cycleEl = el('p', { id: 'cycle', class: 'cycle', role: 'alert', hidden: true });
const livenessEl = el('p', { id: 'liveness', class: 'liveness', hidden: true });

function actionButton(id: string, label: string, icon: string, kind: ActionKind, secondary: boolean): HTMLElement {
  const b = el('vscode-button', { id, icon, secondary, 'data-action': kind, title: label }, label);
  b.addEventListener('click', () => {
    if (key !== null && view && !view.readOnly) post({ type: 'action', kind, key });
  });
  return b;
}
const extendBtn = actionButton('extend', 'Extend', 'history', 'extend', false);
const releaseBtn = actionButton('release', 'Release', 'unlock', 'release', false);
const forceBtn = actionButton('force-release', 'Force Release…', 'trash', 'forceRelease', true);
const actions = el('div', { id: 'actions', class: 'actions', role: 'toolbar', 'aria-label': 'Lock actions', hidden: true });
actions.append(extendBtn, releaseBtn, forceBtn);
const readOnlyNote = el('p', { id: 'read-only-note', class: 'note', hidden: true }, 'Read-only mode: write commands are hidden.');

const titleRow = el('div', { class: 'title-row' });
titleRow.append(keyEl, badge, flagsEl, fenceEl);
const header = el('header', { class: 'head' });
header.append(titleRow, verdictEl, holderEl, livenessEl, waitersEl, cycleEl, announce, actions, readOnlyNote);

// Nodes table.
const COLUMNS = ['Node', 'Token', 'TTL', 'Format', 'Last change'];
const table = el('vscode-table', { id: 'nodes', 'zebra': true, 'bordered-rows': true, 'aria-labelledby': 'nodes-h' });
// The Node column is wide enough for host:port; what does not fit is clipped from the
// start (panel.css), so the distinguishing port stays visible.
const COLUMN_WIDTHS = ['22%', '30%', '18%', '12%', '18%'];
/** vscode-table sizes the header and the first body row when columns are set: again after rows change. */
const sizeColumns = (): void => {
  (table as unknown as { columns: string[] }).columns = COLUMN_WIDTHS;
};
sizeColumns();
const thead = el('vscode-table-header', { slot: 'header' });
for (const c of COLUMNS) thead.appendChild(el('vscode-table-header-cell', {}, c));
const tbody = el('vscode-table-body', { slot: 'body', id: 'rows' });
table.append(thead, tbody);
const nodesSection = el('section', { class: 'nodes', 'aria-labelledby': 'nodes-h' });
nodesSection.append(el('h2', { id: 'nodes-h' }, 'Nodes'), table);

// Timeline.
const chart = svg('svg', { id: 'timeline', class: 'timeline', role: 'img', tabindex: 0, 'aria-label': 'Timeline' });
const chartWrap = el('div', { class: 'chart-wrap' });
chartWrap.appendChild(chart);
const legend = el('ul', { id: 'legend', class: 'legend', 'aria-label': 'Token colours' });
const timelineSection = el('section', { class: 'timeline-section', 'aria-labelledby': 'timeline-h' });
timelineSection.append(el('h2', { id: 'timeline-h' }, 'Timeline'), chartWrap, legend);

// History.
const exportBtn = el('vscode-button', { id: 'export-history', icon: 'save', secondary: true, title: 'Export the history as JSON' }, 'Export JSON');
exportBtn.addEventListener('click', () => {
  if (key !== null) post({ type: 'exportHistory', key });
});
const historyList = el('ol', { id: 'history', class: 'history', tabindex: 0, 'aria-label': 'Event history, newest first' });
const historyEmpty = el('p', { id: 'history-empty', class: 'note' }, 'No events yet: changes seen while this panel is open appear here, and events the locking clients recorded (new Redlock(nodes, { events: true })).');
const historyHead = el('div', { class: 'section-head' });
historyHead.append(el('h2', { id: 'history-h' }, 'History'), exportBtn);
const historySection = el('section', { class: 'history-section', 'aria-labelledby': 'history-h' });
historySection.append(historyHead, historyEmpty, historyList);

app.append(header, nodesSection, timelineSection, historySection);

// ---------------------------------------------------------------------------- nodes table
interface RowRefs {
  row: HTMLElement;
  token: HTMLElement;
  copy: HTMLElement;
  ttlFill: HTMLElement;
  ttlText: HTMLElement;
  meter: HTMLElement;
  format: HTMLElement;
  change: HTMLElement;
}
const rows = new Map<string, RowRefs>();

function buildRows(nodes: string[]): void {
  clear(tbody);
  rows.clear();
  for (const node of nodes) {
    const row = el('vscode-table-row', { class: 'node-row', 'data-node': node });
    const nodeCell = el('vscode-table-cell', { class: 'node', title: node });
    nodeCell.appendChild(el('span', { class: 'node-id' }, node));
    const tokenCell = el('vscode-table-cell', { class: 'token-cell' });
    const tokenWrap = el('div', { class: 'token-wrap' });
    const token = el('code', { class: 'token' });
    const copy = el('vscode-button', { class: 'copy', icon: 'copy', 'icon-only': true, secondary: true, title: `Copy the token held on ${node}`, 'aria-label': `Copy the token held on ${node}` });
    copy.addEventListener('click', () => {
      if (key !== null) post({ type: 'copyToken', key, node });
    });
    tokenWrap.append(token, copy);
    tokenCell.appendChild(tokenWrap);
    const ttlCell = el('vscode-table-cell', { class: 'ttl-cell' });
    const ttlWrap = el('div', { class: 'ttl-wrap' });
    const meter = el('div', { class: 'ttl-bar', role: 'meter', 'aria-valuemin': 0, 'aria-valuemax': 1, 'aria-valuenow': 0, 'aria-label': `TTL on ${node}` });
    const ttlFill = el('div', { class: 'ttl-fill' });
    meter.appendChild(ttlFill);
    const ttlText = el('span', { class: 'ttl-text' });
    ttlWrap.append(meter, ttlText);
    ttlCell.appendChild(ttlWrap);
    const format = el('vscode-table-cell', { class: 'format' });
    const change = el('vscode-table-cell', { class: 'last-change' });
    row.append(nodeCell, tokenCell, ttlCell, format, change);
    tbody.appendChild(row);
    rows.set(node, { row, token, copy, ttlFill, ttlText, meter, format, change });
  }
  requestAnimationFrame(sizeColumns);
}

function observationText(o: Observation | undefined): string {
  if (!o) return '—';
  switch (o.state) {
    case 'present':
      return o.token ?? '';
    case 'absent':
      return '— (absent)';
    default:
      return failedCopyText(o);
  }
}

function updateRows(entry: LockEntry | null, nodes: string[]): void {
  const byNode = new Map((entry?.nodes ?? []).map((o) => [o.node, o]));
  for (const node of nodes) {
    const r = rows.get(node);
    if (!r) continue;
    const o = byNode.get(node);
    const present = o?.state === 'present';
    const shown = observationText(o);
    setText(r.token, shown);
    // One line with an ellipsis (panel.css); the whole text on hover, and the copy button.
    setAttr(r.token, 'title', shown);
    const cls = `token state-${o?.state ?? 'absent'}`;
    if (r.token.className !== cls) r.token.className = cls;
    setAttr(r.token, 'data-colour', present ? String(ring.colourOf(o.token ?? '')) : null);
    const copyable = present || o?.state === 'unreachable' || o?.state === 'unreadable';
    // Hidden but keeping its room: a row without a copy button is as high as one with it.
    setAttr(r.copy, 'data-off', copyable ? null : '');
    const copyLabel = present ? `Copy the token held on ${node}` : `Copy the error of ${node}`;
    setAttr(r.copy, 'title', copyLabel);
    setAttr(r.copy, 'aria-label', copyLabel);
    setText(r.format, o && present ? describeFormat(o) : '');
    setAttr(r.row, 'data-state', o?.state ?? 'absent');
    // The bar's full width: the longest TTL seen for this node's current token.
    if (present && o.pttlMs !== null && o.pttlMs >= 0) {
      const s = ttlScale.get(node);
      if (!s || s.token !== o.token) ttlScale.set(node, { token: o.token ?? '', max: Math.max(1, o.pttlMs) });
      else s.max = Math.max(s.max, o.pttlMs);
    } else ttlScale.delete(node);
  }
}

function tickRows(aged: LockEntry | null, nodes: string[], now: number): void {
  const byNode = new Map((aged?.nodes ?? []).map((o) => [o.node, o]));
  for (const node of nodes) {
    const r = rows.get(node);
    if (!r) continue;
    const o = byNode.get(node);
    let fraction = 0;
    let text = '';
    if (o?.state === 'present') {
      if (o.pttlMs === null) text = 'TTL ?';
      else if (o.pttlMs < 0) {
        fraction = 1;
        text = 'no TTL';
      } else {
        const max = ttlScale.get(node)?.max ?? Math.max(1, o.pttlMs);
        fraction = Math.min(1, o.pttlMs / max);
        text = o.pttlMs === 0 ? 'expired' : formatDuration(o.pttlMs);
      }
    }
    r.ttlFill.style.transform = `scaleX(${fraction.toFixed(4)})`;
    r.ttlFill.classList.toggle('no-ttl', o?.state === 'present' && o.pttlMs !== null && o.pttlMs < 0);
    r.ttlFill.classList.toggle('low', fraction > 0 && fraction < 0.2);
    setText(r.ttlText, text);
    setAttr(r.meter, 'aria-valuenow', fraction.toFixed(2));
    setAttr(r.meter, 'aria-valuetext', text || 'no copy');
    // Last change: the newest history event on this node.
    let last: HistoryEvent | undefined;
    for (let i = history.length - 1; i >= 0; i--) if (history[i].nodes.includes(node)) { last = history[i]; break; }
    if (last) {
      setText(r.change, `${ago(now - (last.at + offset))} · ${last.kind.replace('-', ' ')}`);
      setAttr(r.change, 'title', `${new Date(last.at).toISOString()}: ${describeEvent(last)}`);
    } else {
      setText(r.change, '—');
      setAttr(r.change, 'title', null);
    }
  }
}

function ago(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  return `${Math.floor(s / 3600)} h ago`;
}

// ---------------------------------------------------------------------------- header
let shownFlags = '';
function tickHeader(aged: LockEntry | null): void {
  setText(verdictEl, verdictSentence(aged));
  setText(badge, aged ? verdictBadge(aged) : 'no copy');
  setAttr(badge, 'data-verdict', aged ? aged.verdict : 'none');
  setAttr(badge, 'data-severity', aged ? lockSeverity(aged) : 'none');
  setAttr(verdictEl, 'data-verdict', aged ? aged.verdict : 'none');
  const flags = aged ? aged.flags.join(' ') : '';
  if (flags !== shownFlags) {
    shownFlags = flags;
    clear(flagsEl);
    for (const f of aged?.flags ?? []) flagsEl.appendChild(el('vscode-badge', { class: 'flag', 'data-flag': f }, f));
  }
  tickFence(aged);
}

/** The highest fence counter of the resource, and the risk of a repeated fence. */
function tickFence(aged: LockEntry | null): void {
  const fence = aged?.fence ?? null;
  fenceEl.hidden = fence === null;
  if (fence === null) return;
  const risk = aged?.fenceRisk === true;
  setText(fenceEl, risk ? `fence ${fence} · fencing risk` : `fence ${fence}`);
  fenceEl.setAttribute('data-risk', String(risk));
  fenceEl.setAttribute('title', risk
    ? `Fewer than ${aged!.quorum} reachable nodes hold fence ${fence}: the next fenced acquisition may get a fence that was already handed out.`
    : `The highest fencing token handed out for this resource; the next fenced acquisition gets a higher one.`);
}

let shownWaiters = '';
function tickPeople(entry: LockEntry | null, now: number): void {
  const who = entry ? holderText(entry.holder, now - offset) : null;
  holderEl.hidden = who === null;
  setText(holderEl, who === null ? '' : `Held by ${who}`);
  const alive = livenessText(entry?.liveness);
  livenessEl.hidden = alive === null;
  setText(livenessEl, alive ?? '');
  livenessEl.setAttribute('data-verdict', entry?.liveness?.verdict ?? '');
  const waiters = entry?.waiters ?? [];
  const text = waiters.map((w) => (w.reason ? 'unreadable waiter entry' : `${holderText({ ...w }, now - offset)?.replace(/ for /, ', waiting for ') ?? 'unnamed'}`));
  const joined = text.join('\n');
  if (joined !== shownWaiters) {
    shownWaiters = joined;
    clear(waitersEl);
    for (const t of text.slice(0, 50)) waitersEl.appendChild(el('li', {}, t));
    if (text.length > 50) waitersEl.appendChild(el('li', {}, `and ${text.length - 50} more`));
  }
  waitersEl.hidden = text.length === 0;
  const cycle = entry ? cycleText(entry) : null;
  cycleEl.hidden = cycle === null;
  setText(cycleEl, cycle ?? '');
}

function tick(): void {
  if (!view) return;
  const now = Date.now();
  const aged = view.entry ? agedEntryWithCopies(view.entry, now - (view.readAt + offset), view.expiringThresholdMs) : null;
  tickHeader(aged);
  tickPeople(view.entry, now);
  tickRows(aged, view.nodes, now);
}

// ---------------------------------------------------------------------------- history
function historyItem(e: HistoryEvent): HTMLElement {
  const li = el('li', { class: `event k-${e.kind}`, 'data-kind': e.kind });
  const at = new Date(e.at);
  li.appendChild(el('time', { datetime: at.toISOString() }, at.toLocaleTimeString()));
  li.appendChild(el('span', { class: 'kind' }, e.kind.replace('-', ' ')));
  li.appendChild(el('span', { class: 'desc' }, describeEvent(e)));
  const full = [e.previousToken !== null ? `previous token: ${e.previousToken}` : '', e.token !== null ? `token: ${e.token}` : ''].filter(Boolean).join('\n');
  if (full) li.setAttribute('title', full);
  return li;
}

function renderHistory(): void {
  clear(historyList);
  const frag = document.createDocumentFragment();
  for (let i = history.length - 1; i >= Math.max(0, history.length - HISTORY_SHOWN); i--) frag.appendChild(historyItem(history[i]));
  historyList.appendChild(frag);
  historyEmpty.hidden = history.length > 0;
}

function appendEvents(events: HistoryEvent[]): void {
  history.push(...events);
  if (history.length > MAX_HISTORY) history.splice(0, history.length - MAX_HISTORY);
  // Newest first: each new event goes on top.
  for (const e of events) historyList.insertBefore(historyItem(e), historyList.firstChild);
  while (historyList.childElementCount > HISTORY_SHOWN) historyList.lastElementChild?.remove();
  historyEmpty.hidden = history.length > 0;
}

// ---------------------------------------------------------------------------- timeline
let chartQueued = false;
let chartVersion = -1;
let chartAt = 0;
let chartWidth = 0;
/**
 * The chart is rebuilt as it slides; a rebuild under the pointer would replace the element
 * whose tooltip is showing. While the pointer is on the chart it holds still, and catches up
 * when the pointer leaves (docs/decisions.md).
 */
let chartHeld = false;
chartWrap.addEventListener('pointerenter', () => { chartHeld = true; });
chartWrap.addEventListener('pointerleave', () => {
  chartHeld = false;
  scheduleChart();
});
function scheduleChart(): void {
  if (chartQueued || chartHeld) return;
  chartQueued = true;
  requestAnimationFrame(() => {
    chartQueued = false;
    if (chartHeld) return;
    const now = Date.now();
    const width = chartWrap.clientWidth || 600;
    const localEvents = offset === 0 ? history : history.map((e) => ({ ...e, at: e.at + offset }));
    const ms = renderTimeline(chart, { ring, now, events: localEvents, width });
    chart.setAttribute('data-render-ms', ms.toFixed(1));
    chart.setAttribute('data-samples', String(ring.size));
    chartVersion = ring.version;
    chartAt = now;
    chartWidth = width;
    renderLegend();
  });
}

let legendTokens = '';
function renderLegend(): void {
  const shown = view?.entry ? holderTokens(view.entry).map(([t]) => t) : [];
  const sig = shown.join('\u0000');
  if (sig === legendTokens) return;
  legendTokens = sig;
  clear(legend);
  for (const t of shown) {
    const li = el('li', { class: 'legend-item' });
    li.appendChild(el('span', { class: `swatch tok-bg-${ring.colourOf(t) % TOKEN_COLOURS}`, 'aria-hidden': 'true' }));
    li.appendChild(el('code', { class: 'legend-token' }, t));
    legend.appendChild(li);
  }
}

// ---------------------------------------------------------------------------- state
let saveTimer: ReturnType<typeof setTimeout> | undefined;
function saveState(): void {
  if (saveTimer !== undefined || key === null) return;
  saveTimer = setTimeout(() => {
    saveTimer = undefined;
    if (key === null) return;
    const state: SavedState = { key, history: history.slice(-MAX_HISTORY), samples: ring.save() };
    vscode.setState(state);
  }, 1000);
}

function restoreState(): void {
  const s = vscode.getState() as Partial<SavedState> | undefined;
  if (!s || typeof s.key !== 'string') return;
  key = s.key;
  setText(keyEl, key);
  document.title = key;
  history = Array.isArray(s.history) ? s.history.filter(isHistoryEvent).slice(-MAX_HISTORY) : [];
  ring.restore(s.samples);
  renderHistory();
  scheduleChart();
  // Keep the key in the new state right away: a reload before the next save still restores.
  vscode.setState({ key, history, samples: ring.save() } satisfies SavedState);
}

// ---------------------------------------------------------------------------- messages
function applyView(v: LockView): void {
  const now = Date.now();
  offset = now - v.sentAt;
  view = v;
  key = v.key;
  setText(keyEl, v.key);
  document.title = v.key;
  if (v.nodes.length !== rows.size || v.nodes.some((n) => !rows.has(n))) buildRows(v.nodes);
  ring.push(v.readAt + offset, v.nodes, v.entry ? v.entry.nodes : null);
  updateRows(v.entry, v.nodes);
  actions.hidden = v.readOnly;
  readOnlyNote.hidden = !v.readOnly;
  // The same rule as the tree's menus (src/core/actions.ts).
  extendBtn.hidden = v.entry === null || !extendable(v.entry, v.mine);
  releaseBtn.hidden = !releasable(v.mine) || v.entry === null;
  forceBtn.hidden = v.entry === null;
  const verdict = v.entry ? v.entry.verdict : null;
  if (lastVerdict !== undefined && verdict !== lastVerdict) setText(announce, verdictSentence(v.entry));
  lastVerdict = verdict;
  tick();
  scheduleChart();
  saveState();
}

function onMessage(m: HostMessage): void {
  switch (m.type) {
    case 'init':
      if (m.version !== PROTOCOL_VERSION) {
        setText(verdictEl, `This panel does not understand protocol version ${m.version}; reload the window.`);
        return;
      }
      history = m.history.slice(-MAX_HISTORY);
      renderHistory();
      applyView(m);
      return;
    case 'snapshot':
      if (key !== null && m.key !== key && view !== null) return;
      applyView(m);
      return;
    case 'events':
      if (m.key !== key) return;
      appendEvents(m.events);
      tick();
      scheduleChart();
      saveState();
      return;
  }
}

window.addEventListener('message', (ev: MessageEvent) => {
  // Validated on receipt: anything else (another frame, a malformed message) is dropped.
  if (isHostMessage(ev.data)) onMessage(ev.data);
});

// Countdown: text and bars ten times a second; the chart slides once a second (or
// sooner when data arrives), rebuilt in an animation frame.
setInterval(tick, 100);
setInterval(() => {
  const width = chartWrap.clientWidth || 600;
  if (ring.version !== chartVersion || Date.now() - chartAt >= 1000 || width !== chartWidth) scheduleChart();
}, 250);
window.addEventListener('resize', scheduleChart);

restoreState();
post({ type: 'ready', version: PROTOCOL_VERSION });
