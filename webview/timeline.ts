// The timeline: one SVG lane per node over the last minutes. Samples (one per snapshot,
// at its read time) live in a bounded ring buffer of typed arrays; between two samples a
// copy's TTL counts down linearly, so the chart needs no resampling and stays exact.
// Rendering rebuilds one small SVG per animation frame at most (and once a second for
// the sliding time axis): 7 nodes x 10 minutes of 1 s samples is about 4,200 points.
import type { Observation } from '../src/core/vocabulary/types';
import type { HistoryEvent, PanelFinding } from '../src/shared/protocol';
import { describeEvent } from '../src/shared/verdictSentence';
import { formatDuration } from '../src/core/vocabulary/describe';
import type { HoldSpan, WaitSpan } from '../src/shared/holdSpans';
import { clear, svg } from './dom';

export const NONE = 0;
export const ABSENT = 1;
export const PRESENT = 2;
export const UNREACHABLE = 3;
export const UNREADABLE = 4;

const STATE_CODE: Record<Observation['state'], number> = { absent: ABSENT, present: PRESENT, unreachable: UNREACHABLE, unreadable: UNREADABLE };

/** Longest window the chart shows, and how many samples it keeps. */
export const WINDOW_MS = 10 * 60_000;
export const MIN_WINDOW_MS = 60_000;
export const CAPACITY = 1200;
export const TOKEN_COLOURS = 8;

export interface SavedSamples {
  nodes: string[];
  tokens: string[];
  /** [t, state0, token0, pttl0, state1, ...] per sample, oldest first. */
  samples: number[][];
}

export class SampleRing {
  private t: Float64Array;
  private state: Uint8Array;
  private token: Int32Array;
  private pttl: Float64Array;
  private head = 0;
  private count = 0;
  nodes: string[] = [];
  /** Token -> colour slot, in order of first appearance. */
  private readonly tokenIds = new Map<string, number>();
  readonly tokens: string[] = [];
  /** Bumped on every change: the renderer skips work when nothing moved. */
  version = 0;

  constructor(readonly capacity = CAPACITY) {
    this.t = new Float64Array(capacity);
    this.state = new Uint8Array(0);
    this.token = new Int32Array(0);
    this.pttl = new Float64Array(0);
  }

  get size(): number {
    return this.count;
  }

  tokenId(token: string): number {
    let id = this.tokenIds.get(token);
    if (id === undefined) {
      id = this.tokens.length;
      this.tokens.push(token);
      this.tokenIds.set(token, id);
    }
    return id;
  }

  colourOf(token: string): number {
    return this.tokenId(token) % TOKEN_COLOURS;
  }

  private resetFor(nodes: string[]): void {
    this.nodes = nodes.slice();
    const n = Math.max(1, nodes.length);
    this.state = new Uint8Array(this.capacity * n);
    this.token = new Int32Array(this.capacity * n).fill(-1);
    this.pttl = new Float64Array(this.capacity * n).fill(-1);
    this.head = 0;
    this.count = 0;
  }

  /** Adds a sample taken at local time `t`; an older one than the newest is dropped. */
  push(t: number, nodes: string[], observations: Array<Pick<Observation, 'node' | 'state' | 'token' | 'pttlMs'>> | null): void {
    if (nodes.length !== this.nodes.length || nodes.some((id, i) => id !== this.nodes[i])) this.resetFor(nodes);
    let slot: number;
    if (this.count > 0) {
      const last = this.timeAt(this.count - 1);
      if (t < last) return;
      if (t === last) slot = (this.head - 1 + this.capacity) % this.capacity;
      else slot = this.advance();
    } else slot = this.advance();
    this.t[slot] = t;
    const n = this.nodes.length;
    const byNode = new Map((observations ?? []).map((o) => [o.node, o]));
    for (let i = 0; i < n; i++) {
      const o = byNode.get(this.nodes[i]);
      const k = slot * n + i;
      this.state[k] = o ? STATE_CODE[o.state] : ABSENT;
      this.token[k] = o && o.state === 'present' ? this.tokenId(o.token ?? '') : -1;
      this.pttl[k] = o && o.state === 'present' && o.pttlMs !== null && o.pttlMs >= 0 ? o.pttlMs : -1;
    }
    this.version++;
  }

  private advance(): number {
    const slot = this.head;
    this.head = (this.head + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
    return slot;
  }

  private slotOf(i: number): number {
    return (this.head - this.count + i + this.capacity) % this.capacity;
  }

  timeAt(i: number): number {
    return this.t[this.slotOf(i)];
  }

  stateAt(i: number, node: number): number {
    return this.state[this.slotOf(i) * this.nodes.length + node];
  }

  tokenAt(i: number, node: number): number {
    return this.token[this.slotOf(i) * this.nodes.length + node];
  }

  /** -1: no expiry (or not present). */
  pttlAt(i: number, node: number): number {
    return this.pttl[this.slotOf(i) * this.nodes.length + node];
  }

  save(maxSamples = 600): SavedSamples {
    const samples: number[][] = [];
    const n = this.nodes.length;
    for (let i = Math.max(0, this.count - maxSamples); i < this.count; i++) {
      const row = [this.timeAt(i)];
      for (let j = 0; j < n; j++) row.push(this.stateAt(i, j), this.tokenAt(i, j), this.pttlAt(i, j));
      samples.push(row);
    }
    return { nodes: this.nodes.slice(), tokens: this.tokens.slice(), samples };
  }

  restore(saved: unknown): void {
    if (!saved || typeof saved !== 'object') return;
    const s = saved as Partial<SavedSamples>;
    if (!Array.isArray(s.nodes) || !s.nodes.every((x) => typeof x === 'string') || !Array.isArray(s.tokens) || !s.tokens.every((x) => typeof x === 'string') || !Array.isArray(s.samples)) return;
    const states = ['absent', 'absent', 'present', 'unreachable', 'unreadable'] as const;
    for (const row of s.samples) {
      if (!Array.isArray(row) || row.length !== 1 + 3 * s.nodes.length || !row.every((v) => typeof v === 'number' && Number.isFinite(v))) return;
      const obs = s.nodes.map((node, j) => {
        const st = states[row[1 + 3 * j]] ?? 'absent';
        const tok = row[2 + 3 * j];
        return { node, state: st, token: st === 'present' ? (s.tokens![tok] ?? '') : null, pttlMs: st === 'present' ? row[3 + 3 * j] : null };
      });
      this.push(row[0], s.nodes, obs);
    }
  }
}

export interface TimelineInput {
  ring: SampleRing;
  /** Local epoch ms for the right edge. */
  now: number;
  /** History with `at` already in local time. */
  events: readonly HistoryEvent[];
  /** The holds of `events` (holdSpans), for the holders' lane: the caller lists them too. */
  spans: readonly HoldSpan[];
  /** The waits of `events` (waitSpans), for the waiters' lane. */
  waits: readonly WaitSpan[];
  /** Audit findings, `at` in local time: marked across the lanes where they happened. */
  findings: readonly PanelFinding[];
  width: number;
  /** The span shown (zoomed); undefined: fit the samples, 1 to 10 min. */
  windowMs?: number;
}

/** The zoom steps the panel offers, from the last minute to the last day. */
export const ZOOMS: ReadonlyArray<{ label: string; ms: number | undefined }> = [
  { label: 'Fit', ms: undefined },
  { label: '1 min', ms: 60_000 },
  { label: '10 min', ms: 10 * 60_000 },
  { label: '1 h', ms: 3600_000 },
  { label: '1 day', ms: 24 * 3600_000 },
];

const END_WORDS: Record<NonNullable<HoldSpan['end']>, string> = { released: 'released', expired: 'expired', lost: 'lost', 'taken-over': 'taken over by the next holder' };

/** One hold in words: the bar's tooltip and the table's row. */
export function spanText(s: HoldSpan, now: number): string {
  const held = formatDuration((s.to ?? now) - s.from);
  const by = s.by ? ` by ${s.by}` : '';
  const fence = s.fence === null ? '' : `, fence ${s.fence}`;
  return s.to === null ? `${s.token}: held for ${held} so far${by}${fence}` : `${s.token}: held ${held}${by}${fence}, then ${END_WORDS[s.end!]}`;
}

/** One wait in words: the bar's tooltip and the table's row. */
export function waitText(w: WaitSpan): string {
  const by = w.by ? `${w.by} ` : '';
  return `${by}waited ${formatDuration(w.to - w.from)} from its first refused attempt, then ${w.end === 'granted' ? `got the lock (${w.token ?? ''})` : 'gave up'}`;
}

/** One audit finding in words (docs/audit.md). */
export function findingText(f: PanelFinding): string {
  return `audit: ${f.kind}: ${f.detail}`;
}

const LABEL_W = 112;
const AXIS_H = 20;
const LANE_H = 26;
const LANE_GAP = 4;
const RIGHT_PAD = 8;

function round(x: number): number {
  return Math.round(x * 10) / 10;
}

/** Builds the chart into `root` (an <svg>). Returns the time it took, in ms. */
export function renderTimeline(root: SVGSVGElement, input: TimelineInput): number {
  const started = performance.now();
  const { ring, now, events } = input;
  const n = ring.nodes.length;
  const width = Math.max(320, Math.floor(input.width));
  const plotW = width - LABEL_W - RIGHT_PAD;
  const { spans, waits, findings } = input;
  // The holders' lane over the node lanes: who held the lock, from the history; under it
  // the waiters' lane, when a recorded grant or give-up said how long its caller waited.
  const holdersLane = spans.length > 0 || findings.length > 0;
  const waitersY = AXIS_H + (holdersLane ? LANE_H + LANE_GAP : 0);
  const top = waitersY + (waits.length > 0 ? LANE_H + LANE_GAP : 0);
  const height = top + n * (LANE_H + LANE_GAP) + 4;
  const first = ring.size > 0 ? ring.timeAt(0) : now;
  const span = input.windowMs ?? Math.min(WINDOW_MS, Math.max(MIN_WINDOW_MS, now - first + 5_000));
  const start = now - span;
  const x = (t: number): number => round(LABEL_W + ((Math.max(start, Math.min(now, t)) - start) / span) * plotW);

  const frag = document.createDocumentFragment();

  // Time axis: a tick per minute (per 15 s for short windows), "now" at the right edge.
  const axis = svg('g', { class: 'axis', 'aria-hidden': 'true' });
  const step = span > 6 * 3600_000 ? 3 * 3600_000 : span > 30 * 60_000 ? 10 * 60_000 : span > 3 * 60_000 ? 60_000 : 15_000;
  for (let back = 0; back <= span; back += step) {
    const tx = x(now - back);
    axis.appendChild(svg('line', { class: 'tick', x1: tx, x2: tx, y1: AXIS_H - 4, y2: height }));
    const label = back === 0 ? 'now' : back % 3600_000 === 0 ? `−${back / 3600_000} h` : back % 60_000 === 0 ? `−${back / 60_000} min` : `−${back / 1000} s`;
    axis.appendChild(svg('text', { class: 'tick-label', x: tx, y: AXIS_H - 7, 'text-anchor': back === 0 ? 'end' : 'middle' }, label));
  }
  frag.appendChild(axis);

  if (holdersLane) {
    const lane = svg('g', { class: 'holds', 'data-lane': 'holders' });
    lane.appendChild(svg('title', {}, 'Holders: who held the lock, from the recorded and observed history'));
    lane.appendChild(svg('rect', { class: 'lane-bg', x: LABEL_W, y: AXIS_H, width: plotW, height: LANE_H }));
    lane.appendChild(svg('text', { class: 'lane-label', x: LABEL_W - 6, y: AXIS_H + LANE_H / 2 + 4, 'text-anchor': 'end' }, 'holders'));
    for (const h of spans) {
      const to = h.to ?? now;
      if (to < start) continue;
      const hx = x(h.from);
      const rect = svg('rect', { class: `hold tok-${ring.colourOf(h.token)}`, 'data-end': h.end ?? 'held', x: hx, y: AXIS_H + 3, width: Math.max(1, round(x(to) - hx)), height: LANE_H - 6 });
      rect.appendChild(svg('title', {}, spanText(h, now)));
      lane.appendChild(rect);
      if (h.fence !== null && h.from >= start) {
        // The fence the grant handed out, at the grant.
        const f = svg('g', { class: 'fence', 'data-fence': h.fence });
        f.appendChild(svg('title', {}, `fence ${h.fence}, handed out with this grant`));
        f.appendChild(svg('line', { x1: hx, x2: hx, y1: AXIS_H, y2: AXIS_H + LANE_H }));
        f.appendChild(svg('text', { x: hx + 2, y: AXIS_H + 10 }, String(h.fence)));
        lane.appendChild(f);
      }
    }
    frag.appendChild(lane);
  }
  if (waits.length > 0) {
    const lane = svg('g', { class: 'waits', 'data-lane': 'waiters' });
    lane.appendChild(svg('title', {}, 'Waiters: from a first refused attempt to the grant or give-up, as the locking clients recorded'));
    lane.appendChild(svg('rect', { class: 'lane-bg', x: LABEL_W, y: waitersY, width: plotW, height: LANE_H }));
    lane.appendChild(svg('text', { class: 'lane-label', x: LABEL_W - 6, y: waitersY + LANE_H / 2 + 4, 'text-anchor': 'end' }, 'waiters'));
    for (const w of waits) {
      if (w.to < start) continue;
      const wx = x(w.from);
      const rect = svg('rect', { class: 'wait', 'data-end': w.end, x: wx, y: waitersY + 8, width: Math.max(1, round(x(w.to) - wx)), height: LANE_H - 16 });
      rect.appendChild(svg('title', {}, waitText(w)));
      lane.appendChild(rect);
    }
    frag.appendChild(lane);
  }

  // Lanes.
  const visible: number[] = [];
  for (let i = 0; i < ring.size; i++) {
    const tNext = i + 1 < ring.size ? ring.timeAt(i + 1) : now;
    if (tNext >= start) visible.push(i);
  }
  for (let j = 0; j < n; j++) {
    const y0 = top + j * (LANE_H + LANE_GAP);
    const lane = svg('g', { class: 'lane', 'data-node': ring.nodes[j] });
    lane.appendChild(svg('title', {}, `Node ${ring.nodes[j]}`));
    lane.appendChild(svg('rect', { class: 'lane-bg', x: LABEL_W, y: y0, width: plotW, height: LANE_H }));
    const name = ring.nodes[j];
    lane.appendChild(svg('text', { class: 'lane-label', x: LABEL_W - 6, y: y0 + LANE_H / 2 + 4, 'text-anchor': 'end' }, name.length > 16 ? `${name.slice(0, 15)}…` : name));

    // TTL scale: the longest finite TTL in view (at least 1 s).
    let scale = 1000;
    for (const i of visible) if (ring.stateAt(i, j) === PRESENT) scale = Math.max(scale, ring.pttlAt(i, j));
    const yOf = (pttl: number): number => round(y0 + LANE_H - 2 - (pttl < 0 ? 1 : Math.min(1, pttl / scale)) * (LANE_H - 4));

    let path = '';
    let runStart = -1;
    let runEnd = -1;
    let runClass = '';
    let runTitle = '';
    let lastEnd = NaN;
    let lastY = NaN;
    const flush = (): void => {
      if (runStart < 0 || runEnd <= runStart) return;
      const rx = x(runStart);
      const rect = svg('rect', { class: runClass, x: rx, y: y0 + 1, width: Math.max(0.5, round(x(runEnd) - rx)), height: LANE_H - 2 });
      rect.appendChild(svg('title', {}, runTitle));
      lane.appendChild(rect);
      runStart = -1;
    };
    for (const i of visible) {
      const t0 = ring.timeAt(i);
      const t1 = i + 1 < ring.size ? ring.timeAt(i + 1) : now;
      const st = ring.stateAt(i, j);
      let cls = '';
      let title = '';
      let end = t1;
      if (st === PRESENT) {
        const tok = ring.tokenAt(i, j);
        const pttl = ring.pttlAt(i, j);
        if (pttl >= 0) end = Math.min(t1, t0 + pttl);
        cls = `copy tok-${tok % TOKEN_COLOURS}`;
        title = `${name}: ${ring.tokens[tok] ?? ''}`;
        // TTL line: counts down from the sample's PTTL until the next sample (or expiry).
        const a = Math.max(t0, start);
        const yA = yOf(pttl < 0 ? -1 : pttl - (a - t0));
        const yB = yOf(pttl < 0 ? -1 : Math.max(0, pttl - (end - t0)));
        const xa = x(a);
        path += a === lastEnd && !Number.isNaN(lastY) ? `L${xa} ${yA}` : `M${xa} ${yA}`;
        path += `L${x(end)} ${yB}`;
        lastEnd = end;
        lastY = yB;
      } else {
        lastEnd = NaN;
        if (st === UNREACHABLE) {
          cls = 'outage';
          title = `${name}: unreachable`;
        } else if (st === UNREADABLE) {
          cls = 'unreadable';
          title = `${name}: unreadable`;
        }
      }
      if (cls !== '' && cls === runClass && runStart >= 0 && Math.abs(runEnd - t0) < 1) {
        runEnd = end;
      } else {
        flush();
        if (cls !== '') {
          runStart = Math.max(t0, start);
          runEnd = end;
          runClass = cls;
          runTitle = title;
        } else runClass = '';
      }
      if (end < t1) {
        // Expired before the next sample: the run ends here.
        flush();
        runClass = '';
      }
    }
    flush();
    if (path) lane.appendChild(svg('path', { class: 'ttl', d: path }));

    // Node events on this lane.
    for (const e of events) {
      if (e.at < start || e.nodes.length === 0 || !e.nodes.includes(name)) continue;
      const ex = x(e.at);
      const m = svg('line', { class: `marker m-${e.kind}`, x1: ex, x2: ex, y1: y0, y2: y0 + LANE_H });
      m.appendChild(svg('title', {}, describeEvent(e)));
      lane.appendChild(m);
    }
    frag.appendChild(lane);
  }

  // Verdict changes: across every lane, flagged in the axis row.
  for (const e of events) {
    if (e.at < start || e.nodes.length > 0) continue;
    const ex = x(e.at);
    const g = svg('g', { class: `marker verdict m-${e.kind}` });
    g.appendChild(svg('title', {}, describeEvent(e)));
    g.appendChild(svg('line', { x1: ex, x2: ex, y1: AXIS_H - 4, y2: height - 4 }));
    g.appendChild(svg('path', { d: `M${ex - 4} ${AXIS_H - 10}L${ex + 4} ${AXIS_H - 10}L${ex} ${AXIS_H - 4}Z` }));
    frag.appendChild(g);
  }

  // Audit findings: across every lane, a flag on the holders' lane, where they happened.
  for (const f of findings) {
    if (f.at < start) continue;
    const fx = x(f.at);
    const g = svg('g', { class: 'finding', 'data-kind': f.kind });
    g.appendChild(svg('title', {}, findingText(f)));
    g.appendChild(svg('line', { x1: fx, x2: fx, y1: AXIS_H, y2: height - 4 }));
    g.appendChild(svg('path', { d: `M${fx} ${AXIS_H}L${fx + 7} ${AXIS_H + 4}L${fx} ${AXIS_H + 8}Z` }));
    frag.appendChild(g);
  }

  clear(root);
  root.setAttribute('viewBox', `0 0 ${width} ${height}`);
  root.setAttribute('width', String(width));
  root.setAttribute('height', String(height));
  root.setAttribute('aria-label', `Timeline of the last ${formatDuration(span)}${holdersLane ? ', the holders\' lane (listed in the table below)' : ''}${waits.length ? ', the waiters\' lane' : ''}${findings.length ? `, ${findings.length} audit finding${findings.length === 1 ? '' : 's'}` : ''}, one lane per node: token presence, TTL, outages and events`);
  root.appendChild(frag);
  return performance.now() - started;
}
