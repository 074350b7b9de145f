// What a watch knows of each key, with the few sets a tick asks for kept beside it: the
// locks with waiters or a deadlock flag, the locks due for judging or for classifying
// again, and the locks whose fence was at risk. A tick used to find them by walking every
// known lock four times; at 10,000 locks those walks were a sixth of a tick's main-thread
// time, and they grow with the keyspace, not with what changed (docs/decisions.md, "What a
// tick walks").
// Kept in columns by a number per key, not a record per key: a record, its array of
// expiry instants, its boxed instants and the maps by id were about 300 bytes a lock
// beside its entry (docs/decisions.md, "What a watch keeps of each lock").
import { quorumTokenOf } from '../vocabulary/actions';
import type { LockEntry, SkippedKey } from '../vocabulary/types';
import type { WaiterProcesses } from './holdersRead';
import { KeyTable, type Numbered } from './keyTable';
import type { KeptState } from './observedHistory';
import { sameEntry, type Known } from './watchDiff';

/** `a` as a Float64Array of at least `n` places, new places `fill`. */
function grown(a: Float64Array<ArrayBuffer>, n: number, fill: number): Float64Array<ArrayBuffer> {
  if (a.length >= n) return a;
  const b = new Float64Array(Math.max(n, 2 * a.length, 256)).fill(fill);
  b.set(a);
  return b;
}

/**
 * Key numbers by the instant they fall due. A min-heap whose stale items (a number set
 * again, or deleted) are dropped when they reach the top; a number that fell due stays due
 * until it is set again or deleted, as a walk of every number would find it at every tick.
 */
export class DueQueue {
  /** Each number's instant; NaN where none. */
  private at = new Float64Array(0);
  private readonly overdue = new Set<number>();
  private times: number[] = [];
  private nums: number[] = [];
  private count = 0;

  /** `k` falls due once `at` <= now; never for Infinity (nor -Infinity: every tick is another set). */
  set(k: number, at: number): void {
    this.overdue.delete(k);
    if (!Number.isFinite(at)) {
      this.unset(k);
      return;
    }
    this.at = grown(this.at, k + 1, NaN);
    if (Number.isNaN(this.at[k])) this.count++;
    this.at[k] = at;
    this.push(at, k);
    // Every renewal pushes anew: the heap is rebuilt from what stands before its stale items outnumber it.
    if (this.times.length > 2 * this.count + 1024) this.rebuild();
  }

  delete(k: number): void {
    this.overdue.delete(k);
    this.unset(k);
  }

  /** The numbers whose instant is at or before `now` (`strictly`: before it). */
  due(now: number, strictly = false): ReadonlySet<number> {
    while (this.times.length > 0 && (strictly ? this.times[0] < now : this.times[0] <= now)) {
      const at = this.times[0];
      const k = this.pop();
      if (this.at[k] === at) this.overdue.add(k);
    }
    return this.overdue;
  }

  get size(): number {
    return this.count;
  }

  /** Moves each number `k` to `to[k]` (-1: gone), as KeyTable.compact renumbers. */
  renumber(to: Int32Array, size: number): void {
    const at = new Float64Array(Math.max(size, 256)).fill(NaN);
    this.count = 0;
    for (let k = 0; k < this.at.length && k < to.length; k++) {
      if (Number.isNaN(this.at[k]) || to[k] < 0) continue;
      at[to[k]] = this.at[k];
      this.count++;
    }
    const overdue = [...this.overdue];
    this.overdue.clear();
    for (const k of overdue) if (to[k] >= 0) this.overdue.add(to[k]);
    this.at = at;
    this.rebuild();
  }

  private unset(k: number): void {
    if (k < this.at.length && !Number.isNaN(this.at[k])) {
      this.at[k] = NaN;
      this.count--;
    }
  }

  private rebuild(): void {
    this.times = [];
    this.nums = [];
    for (let k = 0; k < this.at.length; k++) {
      if (!Number.isNaN(this.at[k]) && !this.overdue.has(k)) this.push(this.at[k], k);
    }
  }

  private push(at: number, k: number): void {
    const times = this.times;
    const nums = this.nums;
    let i = times.length;
    times.push(at);
    nums.push(k);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (times[p] <= at) break;
      times[i] = times[p];
      nums[i] = nums[p];
      i = p;
    }
    times[i] = at;
    nums[i] = k;
  }

  private pop(): number {
    const times = this.times;
    const nums = this.nums;
    const top = nums[0];
    const lastAt = times.pop()!;
    const lastK = nums.pop()!;
    const n = times.length;
    if (n === 0) return top;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && times[c + 1] < times[c]) c++;
      if (times[c] >= lastAt) break;
      times[i] = times[c];
      nums[i] = nums[c];
      i = c;
    }
    times[i] = lastAt;
    nums[i] = lastK;
    return top;
  }
}

/** Has waiters, or a deadlock flag to clear: the locks a tick's cycle search looks at. */
export const inPlay = (e: LockEntry): boolean => (e.waiters?.length ?? 0) > 0 || e.flags.includes('deadlock');

const NONE = 0;
const LOCK = 1;
const SKIPPED = 2;

/**
 * The watch's known keys by id. Entries are read through this class and changed only
 * through it, so the sets beside them stay true. Each id has a number in a table of the
 * class's own (a cluster's masters number their keys apart, so the watch has no numbering
 * of every key), compacted by prune() once it is twice the keys known.
 */
export class KnownLocks implements Numbered {
  private readonly table = new KeyTable();
  private kinds = new Uint8Array(256);
  /** The entry of a lock, the skipped key of any other. */
  private values: Array<LockEntry | SkippedKey | undefined> = [];
  /** How late the reads behind each lock's expiries may have been (Known.readErrMs). */
  private errs = new Float64Array(256);
  /** Expiry instants, `stride` places a key (the most copies a lock has had). */
  private expiries = new Float64Array(0);
  private stride = 0;
  /** The waiter processes of the few locks with waiters. */
  private processes = new Map<number, WaiterProcesses>();
  private count = 0;
  /** Locks with waiters or a deadlock flag (inPlay). */
  private readonly playing = new Set<string>();
  /** Locks whose fence read looked at risk: classified again at every tick. */
  private readonly risky = new Set<string>();
  /** Locks judged at every tick (judgeAt -Infinity). */
  private readonly judgedAlways = new Set<string>();
  /** Locks judged once a finite judgeAt passes. */
  private readonly judgedAt = new DueQueue();
  /** Keys classified again once their recheckAt comes (the `expiring` flag may flip). */
  private readonly recheck = new DueQueue();

  /** `slack`: numbers of keys no longer known that prune() lets stand beyond twice the keys known. */
  constructor(private readonly slack = 256) {}

  get size(): number {
    return this.count;
  }

  /** The number of a known id, else -1. */
  private numberOf(id: string): number {
    const k = this.table.find(id);
    return k === undefined || this.kinds[k] === NONE ? -1 : k;
  }

  has(id: string): boolean {
    return this.numberOf(id) >= 0;
  }

  kindOf(id: string): Known['kind'] | undefined {
    const k = this.numberOf(id);
    return k < 0 ? undefined : this.kinds[k] === LOCK ? 'lock' : 'skipped';
  }

  /** The entry of a known lock. */
  entryOf(id: string): LockEntry | undefined {
    const k = this.numberOf(id);
    return k >= 0 && this.kinds[k] === LOCK ? (this.values[k] as LockEntry) : undefined;
  }

  /** A known key that is no lock, as skipped. */
  skippedOf(id: string): SkippedKey | undefined {
    const k = this.numberOf(id);
    return k >= 0 && this.kinds[k] === SKIPPED ? (this.values[k] as SkippedKey) : undefined;
  }

  waiterProcessesOf(id: string): WaiterProcesses | undefined {
    const k = this.numberOf(id);
    return k < 0 ? undefined : this.processes.get(k);
  }

  /** Whether `e`, read with these expiries, is the known lock `id` but for its countdown (sameEntry). */
  sameAs(id: string, e: LockEntry, expiries: readonly number[], readErrMs: number): boolean {
    const k = this.numberOf(id);
    if (k < 0 || this.kinds[k] !== LOCK) return false;
    const was = this.values[k] as LockEntry;
    return sameEntry({ entry: was, expiries: this.expiries.subarray(k * this.stride, k * this.stride + was.nodes.length), readErrMs: this.errs[k] }, e, expiries, readErrMs);
  }

  /** A known lock as the watch last classified it, for its observed history. */
  keptState(id: string): KeptState | undefined {
    const k = this.numberOf(id);
    if (k < 0 || this.kinds[k] !== LOCK) return undefined;
    const entry = this.values[k] as LockEntry;
    const token = quorumTokenOf(entry);
    const i = entry.nodes.findIndex((o) => o.state === 'present' && o.token === token);
    const at = i < 0 ? -1 : this.expiries[k * this.stride + i];
    return { entry, expiresAt: at < 0 ? Infinity : at };
  }

  /** The latest expiry instant of any known lock's copy (-Infinity without one). */
  latestExpiry(): number {
    let latest = -Infinity;
    for (let k = 0; k < this.table.size; k++) {
      if (this.kinds[k] !== LOCK) continue;
      const n = (this.values[k] as LockEntry).nodes.length;
      for (let i = k * this.stride; i < k * this.stride + n; i++) if (this.expiries[i] >= 0 && this.expiries[i] > latest) latest = this.expiries[i];
    }
    return latest;
  }

  /** Each known id; deleting the current one meanwhile is allowed. */
  forEachId(f: (id: string) => void): void {
    for (let k = 0; k < this.table.size; k++) if (this.kinds[k] !== NONE) f(this.table.nameOf(k));
  }

  set(id: string, known: Known): void {
    const k = this.table.number(id);
    if (k >= this.kinds.length) {
      const kinds = new Uint8Array(Math.max(k + 1, 2 * this.kinds.length));
      kinds.set(this.kinds);
      this.kinds = kinds;
    }
    while (this.values.length <= k) this.values.push(undefined);
    this.errs = grown(this.errs, k + 1, 0);
    if (known.expiries.length > this.stride) this.widen(known.expiries.length);
    this.expiries = grown(this.expiries, (k + 1) * this.stride, 0);
    if (this.kinds[k] === NONE) this.count++;
    this.kinds[k] = known.kind === 'lock' ? LOCK : SKIPPED;
    this.values[k] = known.kind === 'lock' ? known.entry : known.skipped;
    this.errs[k] = known.readErrMs;
    this.expiries.set(known.expiries, k * this.stride);
    if (known.waiterProcesses === undefined) this.processes.delete(k);
    else this.processes.set(k, known.waiterProcesses);
    this.recheck.set(k, known.recheckAt);
    this.index(id, k, known.judgeAt);
  }

  delete(id: string): void {
    const k = this.numberOf(id);
    if (k < 0) return;
    this.kinds[k] = NONE;
    this.values[k] = undefined;
    this.processes.delete(k);
    this.count--;
    this.playing.delete(id);
    this.risky.delete(id);
    this.judgedAlways.delete(id);
    this.judgedAt.delete(k);
    this.recheck.delete(k);
  }

  /** A later stage learnt more of a known lock: its entry (and, judged anew, when to judge it next). */
  update(id: string, change: Pick<Known, 'entry'> & Partial<Pick<Known, 'judgeAt' | 'waiterProcesses'>>): void {
    const k = this.numberOf(id);
    if (k < 0) return;
    this.values[k] = change.entry;
    if ('waiterProcesses' in change) {
      if (change.waiterProcesses === undefined) this.processes.delete(k);
      else this.processes.set(k, change.waiterProcesses);
    }
    this.index(id, k, 'judgeAt' in change ? change.judgeAt : undefined, !('judgeAt' in change));
  }

  /** Locks with waiters or a deadlock flag. */
  inPlay(): ReadonlySet<string> {
    return this.playing;
  }

  /** Locks whose liveness verdict may have moved by `now` without a read: judge them again. */
  dueForJudging(now: number, each: (id: string) => void): void {
    this.judgedAlways.forEach(each);
    // A verdict stands while now <= judgeAt.
    this.judgedAt.due(now, true).forEach((k) => each(this.table.nameOf(k)));
  }

  /** Keys to classify again: their `expiring` flag may have flipped by `now`, or their fence looked at risk. */
  dueForRecheck(now: number, each: (id: string) => void): void {
    this.recheck.due(now).forEach((k) => each(this.table.nameOf(k)));
    this.risky.forEach(each);
  }

  /** Numbers only the keys still known, once the table is twice as many: a walk over every number. */
  prune(): void {
    if (this.table.size > 2 * this.count + this.slack) this.table.compact([this]);
  }

  markHeld(held: Uint8Array): void {
    const n = Math.min(held.length, this.kinds.length);
    for (let k = 0; k < n; k++) if (this.kinds[k] !== NONE) held[k] = 1;
  }

  renumber(to: Int32Array, size: number): void {
    const kinds = new Uint8Array(Math.max(size, 256));
    const values: Array<LockEntry | SkippedKey | undefined> = new Array<undefined>(size).fill(undefined);
    const errs = new Float64Array(Math.max(size, 256));
    const expiries = new Float64Array(Math.max(size, 256) * this.stride);
    const processes = new Map<number, WaiterProcesses>();
    for (let k = 0; k < to.length; k++) {
      const n = to[k];
      if (n < 0 || this.kinds[k] === NONE) continue;
      kinds[n] = this.kinds[k];
      values[n] = this.values[k];
      errs[n] = this.errs[k];
      expiries.set(this.expiries.subarray(k * this.stride, (k + 1) * this.stride), n * this.stride);
      const p = this.processes.get(k);
      if (p !== undefined) processes.set(n, p);
    }
    this.kinds = kinds;
    this.values = values;
    this.errs = errs;
    this.expiries = expiries;
    this.processes = processes;
    this.judgedAt.renumber(to, size);
    this.recheck.renumber(to, size);
  }

  /** Room for `stride` expiries a key: every key's moved to its new place. */
  private widen(stride: number): void {
    const expiries = new Float64Array(this.kinds.length * stride);
    for (let k = 0; k < this.kinds.length && this.stride > 0; k++) expiries.set(this.expiries.subarray(k * this.stride, (k + 1) * this.stride), k * stride);
    this.expiries = expiries;
    this.stride = stride;
  }

  /**
   * The sets beside `id`'s value, and when to judge it next: `judgeAt` as given (undefined:
   * at every tick), or, with `keepJudgeAt`, as it was unless the lock's state rules it.
   */
  private index(id: string, k: number, judgeAt: number | undefined, keepJudgeAt = false): void {
    const e = this.values[k] as LockEntry | undefined;
    const lock = this.kinds[k] === LOCK && e !== undefined;
    toggle(this.playing, id, lock && inPlay(e));
    toggle(this.risky, id, lock && e.fenceRisk === true);
    if (keepJudgeAt && lock) return;
    const at = lock ? (judgeAt ?? -Infinity) : Infinity;
    toggle(this.judgedAlways, id, at === -Infinity);
    this.judgedAt.set(k, at);
  }
}

function toggle(set: Set<string>, id: string, on: boolean): void {
  if (on) set.add(id);
  else set.delete(id);
}
