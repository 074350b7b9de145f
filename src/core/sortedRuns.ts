// Byte order built while a one-node snapshot scans: each SCAN page is sorted as it arrives
// and merged with the runs before it like a binary counter (two runs of one size become
// one of twice the size), so the work happens while the node reads the next page and the
// snapshot's end merges a handful of runs instead of sorting every key
// (docs/decisions.md "Sorted while scanning").

/** Ids (latin1 key names: their order is the bytes' order) with one value each. */
interface Run<T> {
  ids: string[];
  values: T[];
}

function merge<T>(a: Run<T>, b: Run<T>): Run<T> {
  const n = a.ids.length + b.ids.length;
  const ids: string[] = new Array(n);
  const values: T[] = new Array(n);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.ids.length && j < b.ids.length) {
    // Equal ids (SCAN may return a key twice): the older run's first, so the later read ends up last.
    if (b.ids[j] < a.ids[i]) {
      ids[k] = b.ids[j];
      values[k++] = b.values[j++];
    } else {
      ids[k] = a.ids[i];
      values[k++] = a.values[i++];
    }
  }
  for (; i < a.ids.length; i++, k++) {
    ids[k] = a.ids[i];
    values[k] = a.values[i];
  }
  for (; j < b.ids.length; j++, k++) {
    ids[k] = b.ids[j];
    values[k] = b.values[j];
  }
  return { ids, values };
}

export class SortedRuns<T> {
  /** Runs from oldest (largest) to newest; sizes strictly shrink after each add. */
  private runs: Array<Run<T>> = [];
  /** Ids added, duplicates included. */
  added = 0;

  /** Adds one page: `ids[i]` with `values[i]`, in any order. */
  add(ids: readonly string[], values: readonly T[]): void {
    // The built-in string sort, then each value found by its id: about three times
    // cheaper than sorting indexes with a comparator. A page listing a key twice keeps
    // the later value for both.
    const at = new Map<string, number>();
    for (let i = 0; i < ids.length; i++) at.set(ids[i], i);
    const sorted = ids.slice().sort();
    let run: Run<T> = { ids: sorted, values: sorted.map((id) => values[at.get(id)!]) };
    this.added += run.ids.length;
    while (this.runs.length > 0 && this.runs[this.runs.length - 1].ids.length <= run.ids.length) {
      run = merge(this.runs.pop()!, run);
    }
    this.runs.push(run);
  }

  /**
   * Every id once, in order, with the value added last for it (a later read of a key
   * replaces an earlier one).
   */
  take(): Run<T> {
    let all: Run<T> = { ids: [], values: [] };
    while (this.runs.length > 0) all = merge(this.runs.pop()!, all);
    this.added = 0;
    const { ids, values } = all;
    let w = 0;
    for (let r = 0; r < ids.length; r++) {
      if (w > 0 && ids[w - 1] === ids[r]) {
        values[w - 1] = values[r];
        continue;
      }
      ids[w] = ids[r];
      values[w++] = values[r];
    }
    ids.length = w;
    values.length = w;
    return all;
  }
}
