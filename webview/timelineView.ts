// The timeline section: the chart (timeline.ts draws it) rebuilt at most once per animation
// frame, held still under the pointer, its zoom (the last minute to the last day), the
// legend of token colours, and the holds as a table: what the chart shows, for a
// keyboard and a screen reader.
import { holderTokens } from '../src/shared/verdictSentence';
import { holdSpans, waitSpans, type HoldSpan } from '../src/shared/holdSpans';
import { clear, el, svg } from './dom';
import { panel } from './panelState';
import { TOKEN_COLOURS, ZOOMS, findingText, renderTimeline, spanText, waitText } from './timeline';

const chart = svg('svg', { id: 'timeline', class: 'timeline', role: 'img', tabindex: 0, 'aria-label': 'Timeline' });
const chartWrap = el('div', { class: 'chart-wrap' });
chartWrap.appendChild(chart);
const legend = el('ul', { id: 'legend', class: 'legend', 'aria-label': 'Token colours' });
export const timelineSection = el('section', { class: 'timeline-section', 'aria-labelledby': 'timeline-h' });

/** The zoom chosen; undefined fits the samples. */
let windowMs: number | undefined;
const zoomBar = el('div', { id: 'zoom', class: 'zoom', role: 'toolbar', 'aria-label': 'Timeline span' });
for (const z of ZOOMS) {
  const b = el('vscode-button', { class: 'zoom-step', secondary: true, 'data-ms': z.ms ?? 'fit', 'aria-pressed': z.ms === windowMs ? 'true' : 'false' }, z.label);
  b.addEventListener('click', () => {
    windowMs = z.ms;
    for (const other of Array.from(zoomBar.children)) other.setAttribute('aria-pressed', other === b ? 'true' : 'false');
    scheduleChart();
  });
  zoomBar.appendChild(b);
}

const HOLDS_LISTED = 50;
const holdsList = el('ol', { id: 'holds', class: 'holds-list', 'aria-label': 'Holds, newest first' });
const holdsNote = el('p', { class: 'note', id: 'holds-empty' }, 'No hold seen yet.');
const timelineHead = el('div', { class: 'section-head' });
timelineHead.append(el('h2', { id: 'timeline-h' }, 'Timeline'), zoomBar);
// What the waiters' lane and the audit's marks show, as text too (hidden while empty).
const waitsHead = el('h3', { id: 'waits-h', hidden: true }, 'Waits');
const waitsList = el('ol', { id: 'waits', class: 'holds-list', 'aria-labelledby': 'waits-h', hidden: true });
const findingsHead = el('h3', { id: 'findings-h', hidden: true }, 'Audit findings');
const findingsList = el('ol', { id: 'findings', class: 'holds-list findings-list', 'aria-labelledby': 'findings-h', hidden: true });
timelineSection.append(timelineHead, chartWrap, legend, el('h3', { id: 'holds-h' }, 'Holds'), holdsNote, holdsList, waitsHead, waitsList, findingsHead, findingsList);

let shownHolds = '';
/** The holds the chart's holders' lane draws (in local time), newest first, as text in the host's clock. */
function renderHolds(all: readonly HoldSpan[], now: number, offset: number): void {
  const spans = all.slice(-HOLDS_LISTED).reverse();
  const lines = spans.map((h) => `${new Date(h.from - offset).toLocaleTimeString()}  ${spanText(h, now)}`);
  const sig = lines.join('\n');
  if (sig === shownHolds) return;
  shownHolds = sig;
  clear(holdsList);
  for (const [i, line] of lines.entries()) holdsList.appendChild(el('li', { class: `hold-row tok-mark-${panel.ring.colourOf(spans[i].token)}` }, line));
  holdsNote.hidden = lines.length > 0;
}

const shownLists = new Map<Element, string>();
/** A text list beside the chart, newest first, rebuilt only when its lines changed. */
function renderLines(list: HTMLOListElement, head: HTMLElement, lines: readonly string[]): void {
  const sig = lines.join('\n');
  if (shownLists.get(list) === sig) return;
  shownLists.set(list, sig);
  clear(list);
  for (const line of lines) list.appendChild(el('li', {}, line));
  list.hidden = lines.length === 0;
  head.hidden = lines.length === 0;
}

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
export function scheduleChart(): void {
  if (chartQueued || chartHeld) return;
  chartQueued = true;
  requestAnimationFrame(() => {
    chartQueued = false;
    if (chartHeld) return;
    const now = Date.now();
    const width = chartWrap.clientWidth || 600;
    const { ring, history, offset } = panel;
    const localEvents = offset === 0 ? history : history.map((e) => ({ ...e, at: e.at + offset }));
    const spans = holdSpans(localEvents);
    const waits = waitSpans(localEvents);
    const findings = offset === 0 ? panel.findings : panel.findings.map((f) => ({ ...f, at: f.at + offset }));
    const ms = renderTimeline(chart, { ring, now, events: localEvents, spans, waits, findings, width, windowMs });
    renderHolds(spans, now, offset);
    const clock = (t: number): string => new Date(t - offset).toLocaleTimeString();
    renderLines(waitsList, waitsHead, waits.slice(-HOLDS_LISTED).reverse().map((w) => `${clock(w.from)}  ${waitText(w)}`));
    renderLines(findingsList, findingsHead, findings.slice(-HOLDS_LISTED).reverse().map((f) => `${clock(f.at)}  ${findingText(f)}`));
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
  const shown = panel.view?.entry ? holderTokens(panel.view.entry).map(([t]) => t) : [];
  const sig = shown.join('\u0000');
  if (sig === legendTokens) return;
  legendTokens = sig;
  clear(legend);
  for (const t of shown) {
    const li = el('li', { class: 'legend-item' });
    li.appendChild(el('span', { class: `swatch tok-bg-${panel.ring.colourOf(t) % TOKEN_COLOURS}`, 'aria-hidden': 'true' }));
    li.appendChild(el('code', { class: 'legend-token' }, t));
    legend.appendChild(li);
  }
}

/** The chart slides once a second, or sooner when data arrives or the width changed. */
export function chartDue(): boolean {
  const width = chartWrap.clientWidth || 600;
  return panel.ring.version !== chartVersion || Date.now() - chartAt >= 1000 || width !== chartWidth;
}
