// What a watch knows of each key, with the few sets a tick asks for kept beside it: the
// locks with waiters or a deadlock flag, the locks due for judging or for classifying
// again, and the locks whose fence was at risk. A tick used to find them by walking every
// known lock four times; at 10,000 locks those walks were a sixth of a tick's main-thread
// time, and they grow with the keyspace, not with what changed (docs/decisions.md, "What a
// tick walks").
import type { LockEntry } from '../vocabulary/types';
import type { Known } from './watchDiff';

/**
 * Ids by the instant they fall due. A min-heap whose stale items (an id set again, or
 * deleted) are dropped when they reach the top; an id that fell due stays due until it is
 * set again or deleted, as a walk of every id would find it at every tick.
 */
export class DueQueue {
  private readonly at = new Map<string, number>();
  private readonly overdue = new Set<string>();
  private times: number[] = [];
  private ids: string[] = [];

  /** `id` falls due once `at` <= now; never for Infinity (nor -Infinity: every tick is another set). */
  set(id: string, at: number): void {
    this.overdue.delete(id);
    if (!Number.isFinite(at)) {
      this.at.delete(id);
      return;
    }
    this.at.set(id, at);
    this.push(at, id);
    // Every renewal pushes anew: the heap is rebuilt from what stands before its stale items outnumber it.
    if (this.times.length > 2 * this.at.size + 1024) this.rebuild();
  }

  delete(id: string): void {
    this.at.delete(id);
    this.overdue.delete(id);
  }

  /** The ids whose instant is at or before `now` (`strictly`: before it). */
  due(now: number, strictly = false): ReadonlySet<string> {
    while (this.times.length > 0 && (strictly ? this.times[0] < now : this.times[0] <= now)) {
      const at = this.times[0];
      const id = this.pop();
      if (this.at.get(id) === at) this.overdue.add(id);
    }
    return this.overdue;
  }

  get size(): number {
    return this.at.size;
  }

  private rebuild(): void {
    this.times = [];
    this.ids = [];
    this.at.forEach((at, id) => {
      if (!this.overdue.has(id)) this.push(at, id);
    });
  }

  private push(at: number, id: string): void {
    const times = this.times;
    const ids = this.ids;
    let i = times.length;
    times.push(at);
    ids.push(id);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (times[p] <= at) break;
      times[i] = times[p];
      ids[i] = ids[p];
      i = p;
    }
    times[i] = at;
    ids[i] = id;
  }

  private pop(): string {
    const times = this.times;
    const ids = this.ids;
    const top = ids[0];
    const lastAt = times.pop()!;
    const lastId = ids.pop()!;
    const n = times.length;
    if (n === 0) return top;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && times[c + 1] < times[c]) c++;
      if (times[c] >= lastAt) break;
      times[i] = times[c];
      ids[i] = ids[c];
      i = c;
    }
    times[i] = lastAt;
    ids[i] = lastId;
    return top;
  }
}

/** Has waiters, or a deadlock flag to clear: the locks a tick's cycle search looks at. */
export const inPlay = (e: LockEntry): boolean => (e.waiters?.length ?? 0) > 0 || e.flags.includes('deadlock');

/**
 * The watch's known keys by id. Entries are read through `get` and changed only through
 * this class, so the sets beside them stay true.
 */
export class KnownLocks {
  private readonly byId = new Map<string, Known>();
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

  get size(): number {
    return this.byId.size;
  }

  get(id: string): Readonly<Known> | undefined {
    return this.byId.get(id);
  }

  forEach(f: (k: Readonly<Known>, id: string) => void): void {
    this.byId.forEach(f);
  }

  keys(): IterableIterator<string> {
    return this.byId.keys();
  }

  set(id: string, k: Known): void {
    this.byId.set(id, k);
    this.recheck.set(id, k.recheckAt);
    this.index(id, k);
  }

  delete(id: string): void {
    if (!this.byId.delete(id)) return;
    this.playing.delete(id);
    this.risky.delete(id);
    this.judgedAlways.delete(id);
    this.judgedAt.delete(id);
    this.recheck.delete(id);
  }

  /** A later stage learnt more of a known lock: its entry (and, judged anew, when to judge it next). */
  update(id: string, change: Pick<Known, 'entry'> & Partial<Pick<Known, 'judgeAt' | 'waiterProcesses'>>): void {
    const k = this.byId.get(id);
    if (k === undefined) return;
    k.entry = change.entry;
    if ('judgeAt' in change) k.judgeAt = change.judgeAt;
    if ('waiterProcesses' in change) k.waiterProcesses = change.waiterProcesses;
    this.index(id, k);
  }

  /** Locks with waiters or a deadlock flag. */
  inPlay(): ReadonlySet<string> {
    return this.playing;
  }

  /** Locks whose liveness verdict may have moved by `now` without a read: judge them again. */
  dueForJudging(now: number, each: (id: string) => void): void {
    this.judgedAlways.forEach(each);
    // A verdict stands while now <= judgeAt.
    this.judgedAt.due(now, true).forEach(each);
  }

  /** Keys to classify again: their `expiring` flag may have flipped by `now`, or their fence looked at risk. */
  dueForRecheck(now: number, each: (id: string) => void): void {
    this.recheck.due(now).forEach(each);
    this.risky.forEach(each);
  }

  private index(id: string, k: Known): void {
    const lock = k.kind === 'lock' && k.entry !== undefined;
    toggle(this.playing, id, lock && inPlay(k.entry!));
    toggle(this.risky, id, lock && k.entry!.fenceRisk === true);
    const judgeAt = lock ? (k.judgeAt ?? -Infinity) : Infinity;
    toggle(this.judgedAlways, id, judgeAt === -Infinity);
    this.judgedAt.set(id, judgeAt);
  }
}

function toggle(set: Set<string>, id: string, on: boolean): void {
  if (on) set.add(id);
  else set.delete(id);
}
