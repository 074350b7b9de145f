// The all-locks chart: a canvas the height of the visible rows only, drawn again on a
// scroll, a zoom or a slide of the clock. A thousand rows of an hour of holds each would be
// hundreds of thousands of SVG nodes; on a canvas a frame costs the rows on screen, not
// the rows there are (docs/extension.md, "All-locks timeline"). The key names are drawn as
// canvas text (never markup) and listed as text beside the chart for a screen reader.
import { MARK_FAILED, MARK_LOST, TOKEN_COLOURS, type AllLocksRow } from '../src/shared/allLocksRows';
import { escapeText } from '../src/core/vocabulary/escapeText';

export const AXIS_H = 22;
export const ROW_H = 22;
export const LABEL_W = 220;
const RIGHT_PAD = 8;

export interface ChartColours {
  tokens: string[];
  text: string;
  dim: string;
  grid: string;
  wait: string;
  warn: string;
  error: string;
  selected: string;
}

/** The theme's colours, read from the CSS variables once per message (a canvas takes no CSS). */
export function readColours(root: Element): ChartColours {
  const css = getComputedStyle(root);
  const v = (name: string, fallback: string): string => css.getPropertyValue(name).trim() || fallback;
  return {
    tokens: Array.from({ length: TOKEN_COLOURS }, (_, i) => v(`--tok-${i}`, '#3794ff')),
    text: v('--vscode-foreground', '#cccccc'),
    dim: v('--vscode-descriptionForeground', '#9d9d9d'),
    grid: v('--vscode-panel-border', '#2b2b2b'),
    wait: v('--vscode-descriptionForeground', '#9d9d9d'),
    warn: v('--vscode-editorWarning-foreground', '#cca700'),
    error: v('--vscode-errorForeground', '#f85149'),
    selected: v('--vscode-list-inactiveSelectionBackground', '#37373d'),
  };
}

export interface ChartInput {
  rows: readonly AllLocksRow[];
  /** Host-clock instant at the right edge. */
  now: number;
  windowMs: number;
  scrollTop: number;
  width: number;
  height: number;
  selected: number;
  colours: ChartColours;
}

/** Row index under a point of the canvas (css px), or -1. */
export function rowAt(y: number, scrollTop: number, rows: number): number {
  if (y < AXIS_H) return -1;
  const i = Math.floor((y - AXIS_H + scrollTop) / ROW_H);
  return i >= 0 && i < rows ? i : -1;
}

const labels = new Map<string, string>();
/**
 * The key as one escaped line, clipped from the start to fit the label column: keys share
 * their prefixes, their ends tell them apart. Cached: measuring text is the slow part.
 */
function label(ctx: CanvasRenderingContext2D, key: string): string {
  let s = labels.get(key);
  if (s === undefined) {
    s = escapeText(key);
    if (ctx.measureText(s).width > LABEL_W - 12) {
      let lo = 0;
      let hi = s.length;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (ctx.measureText(`…${s.slice(s.length - mid)}`).width <= LABEL_W - 12) lo = mid;
        else hi = mid - 1;
      }
      s = `…${s.slice(s.length - lo)}`;
    }
    if (labels.size > 5000) labels.clear();
    labels.set(key, s);
  }
  return s;
}

/** Draws the visible rows. Returns the time it took, in ms. */
export function drawChart(ctx: CanvasRenderingContext2D, input: ChartInput): number {
  const started = performance.now();
  const { rows, now, windowMs, scrollTop, width, height, colours } = input;
  const plotW = Math.max(40, width - LABEL_W - RIGHT_PAD);
  const start = now - windowMs;
  const scale = plotW / windowMs;
  const x = (t: number): number => LABEL_W + (Math.max(start, Math.min(now, t)) - start) * scale;
  ctx.clearRect(0, 0, width, height);
  ctx.font = '12px monospace';
  ctx.textBaseline = 'middle';

  const first = Math.max(0, Math.floor(scrollTop / ROW_H));
  const last = Math.min(rows.length, Math.ceil((scrollTop + height - AXIS_H) / ROW_H) + 1);
  for (let i = first; i < last; i++) {
    const r = rows[i];
    const y = AXIS_H + i * ROW_H - scrollTop;
    if (i === input.selected) {
      ctx.fillStyle = colours.selected;
      ctx.fillRect(0, y, width, ROW_H);
    }
    ctx.fillStyle = r.lost > 0 || r.split ? colours.error : r.contended > 0 ? colours.warn : colours.text;
    ctx.fillText(label(ctx, r.key), 6, y + ROW_H / 2);
    // Holds: one bar per hold in its token's colour; a run of holds narrower than a pixel
    // merges into one bar, so an hour of short holds zoomed out costs a bar per pixel.
    const h = r.holds;
    let runX = -1;
    let runEnd = -1;
    let runColour = -1;
    const flush = (): void => {
      if (runX < 0) return;
      ctx.fillStyle = colours.tokens[runColour];
      ctx.fillRect(runX, y + 3, Math.max(1, runEnd - runX), ROW_H - 9);
      runX = -1;
    };
    for (let k = 0; k < h.length; k += 4) {
      const to = h[k + 1] < 0 ? now : h[k + 1];
      if (to < start) continue;
      const x0 = x(h[k]);
      const x1 = x(to);
      if (runX >= 0 && h[k + 2] === runColour && x0 - runEnd < 1) runEnd = Math.max(runEnd, x1);
      else {
        flush();
        runX = x0;
        runEnd = x1;
        runColour = h[k + 2];
      }
    }
    flush();
    // Waits: a thin bar under the holds, from the first refused attempt to the grant or give-up.
    ctx.fillStyle = colours.wait;
    for (let k = 0; k < r.waits.length; k += 2) {
      if (r.waits[k + 1] < start) continue;
      const x0 = x(r.waits[k]);
      ctx.fillRect(x0, y + ROW_H - 5, Math.max(1, x(r.waits[k + 1]) - x0), 2);
    }
    for (let k = 0; k < r.marks.length; k += 2) {
      if (r.marks[k] < start) continue;
      const kind = r.marks[k + 1];
      ctx.fillStyle = kind === MARK_FAILED ? colours.warn : colours.error;
      ctx.fillRect(x(r.marks[k]) - (kind === MARK_LOST ? 1 : 0.5), y + 1, kind === MARK_FAILED ? 1 : 2, ROW_H - 2);
    }
    ctx.fillStyle = colours.grid;
    ctx.fillRect(LABEL_W, y + ROW_H - 1, plotW, 1);
  }

  // The time axis over the rows (drawn last: rows scroll under it).
  ctx.fillStyle = getBackground(ctx);
  ctx.fillRect(0, 0, width, AXIS_H);
  ctx.fillStyle = colours.dim;
  const step = windowMs > 30 * 60_000 ? 10 * 60_000 : windowMs > 6 * 60_000 ? 2 * 60_000 : 60_000;
  ctx.textAlign = 'center';
  for (let back = 0; back <= windowMs; back += step) {
    const tx = x(now - back);
    ctx.fillRect(tx, AXIS_H - 4, 1, 4);
    ctx.textAlign = back === 0 ? 'right' : 'center';
    ctx.fillText(back === 0 ? 'now' : `−${back / 60_000} min`, tx, AXIS_H / 2);
  }
  ctx.textAlign = 'left';
  return performance.now() - started;
}

let background = '';
function getBackground(ctx: CanvasRenderingContext2D): string {
  if (!background) background = getComputedStyle(ctx.canvas).getPropertyValue('--vscode-editor-background').trim() || '#1f1f1f';
  return background;
}
