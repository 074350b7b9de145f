// A standalone snapshot's walk over the internal keys of the whole node, one page of it
// in each SCAN page script call beside the pattern's page (src/core/read/readScripts.ts). Once
// the walk is complete, SCAN has listed every internal key present throughout it, so each
// lock's fence counter and waiter set are known without a lookup per key
// (docs/decisions.md "One call per SCAN page").
import { pageCounter } from './fenceRead';
import { factsOf, type NodeReads } from './nodeReads';
import { internalKey, parseInternalKey } from '../bookkeeping/internalKeys';
import { CALL_ITEMS } from './readScripts';

/**
 * SCAN COUNT of the walk: two pattern pages' worth, so it finishes half way through the
 * pattern's walk and later pages are classified as they arrive. Four kept a call with the
 * pattern's page near 10 ms on the node at 100k keys (docs/decisions.md).
 */
const WALK_COUNT = 2000;
/** Where internal keys are dense, a page's worth: its counters stay within a call's budget. */
const DENSE_COUNT = 1000;

export class InternalWalk {
  /** The cursor to send, null once the walk is complete (or not walked). */
  cursor: string | null = '0';
  complete = false;
  /** The SCAN COUNT of the next page. */
  count = WALK_COUNT;
  /** Keys the walk's pages asked for so far (the COUNTs sent): about the keys it has covered. */
  private walked = 0;
  /** Resource id (latin1) -> its counter; undefined: a counter the node would not read. */
  private readonly fences = new Map<string, number | null | undefined>();
  private readonly waiters = new Set<string>();
  /** Resources (latin1 ids) with an event log: our own core's locks, whatever their names. */
  readonly logged = new Set<string>();

  /** A walk with nothing to walk: every key's counter is none and it has no waiters. */
  static none(): InternalWalk {
    const w = new InternalWalk();
    w.cursor = null;
    w.complete = true;
    return w;
  }

  /** Takes one page of the walk: its next cursor (null: the call did not walk) and finds (see SCAN_PAGE). */
  add(next: string | null, internals: readonly unknown[]): void {
    for (let i = 0; i + 1 < internals.length; i += 2) {
      const name = (internals[i] as Buffer).toString('latin1');
      const parsed = parseInternalKey(name);
      // Only names internalKey() makes belong to a resource, byte for byte.
      if (!parsed || internalKey(parsed.kind, parsed.resource) !== name) continue;
      const value = internals[i + 1];
      if (parsed.kind === 'waiters') this.waiters.add(parsed.resource);
      else if (parsed.kind === 'events') this.logged.add(parsed.resource);
      else if (parsed.kind === 'fence') this.fences.set(parsed.resource, Buffer.isBuffer(value) ? pageCounter(value) : undefined);
    }
    this.walked += this.count;
    this.count = internals.length / 2 > CALL_ITEMS / 2 ? DENSE_COUNT : WALK_COUNT;
    if (next === null || next === '0') this.cursor = null;
    else this.cursor = next;
    if (next === '0') this.complete = true;
  }

  /**
   * Gives the walk up when it would not finish within `pagesLeft` more pages on a node of
   * `size` keys (a scan its key cap will cut): its pages would be spent for nothing, and
   * the keys are looked up by name instead.
   */
  pace(size: number, pagesLeft: number): void {
    if (this.cursor !== null && (size - this.walked) / this.count > pagesLeft) this.cursor = null;
  }

  /** Sets the facts of `id` (number `k` in `reads`) as the complete walk found it (a counter still to read apart stays undefined). */
  fill(id: string, reads: NodeReads, k: number): void {
    reads.setFactsAt(k, factsOf(this.fences.has(id) ? this.fences.get(id) : null, !this.waiters.has(id)));
  }
}
