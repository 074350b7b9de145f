// The COUNT of a node's page calls (SCAN_PAGE, readScripts.ts). A call that runs out of
// its time on the node before the page's last key (a node busy with other work, or
// waiting for a core) hands the rest back, and they are sent again by name: that costs
// both sides more than a smaller page. So a page call's size follows what the node's
// calls manage (docs/decisions.md "Pages packed by the server").
import type { RedisNode } from '../connection/nodes';

/** The largest page asked for, and the smallest a busy node's calls shrink to. */
export const SCAN_COUNT = 1000;
const MIN_SCAN_COUNT = 64;

/**
 * Sizes one node's page calls from what the last ones read. A cut page (fewer read than
 * listed) sets the next to nine tenths of what the call managed. A page read whole grows
 * the next by a quarter while well under the node's ceiling, else by a twentieth: grown
 * by a quarter up to it, every other page ran over and a ninth of a 1M-key discover was
 * sent again by name.
 */
export class PageSizer {
  count = SCAN_COUNT;
  /**
   * About what a call manages, scaled to the page's COUNT; Infinity before the first cut.
   * A cut far below it lowers it by a fifth only: one call the node was descheduled in
   * (64 keys read) would otherwise hold the pages small for dozens of calls.
   */
  private ceiling = Infinity;

  /** The next page's COUNT, after a page of `listed` keys of which the call read `read`. */
  next(listed: number, read: number): number {
    if (read < listed) {
      const managed = (this.count * read) / listed;
      this.ceiling = this.ceiling === Infinity ? managed : Math.max(managed, 0.8 * this.ceiling);
      this.count = Math.max(MIN_SCAN_COUNT, Math.floor(0.9 * managed));
    } else {
      // A whole page above the ceiling: the node is faster than at the cut.
      if (this.count > this.ceiling) this.ceiling = this.count;
      const grown = Math.ceil(this.count * 1.25);
      this.count = Math.min(SCAN_COUNT, grown <= 0.9 * this.ceiling ? grown : Math.ceil(this.count * 1.05));
    }
    return this.count;
  }
}

/**
 * Each node's sizer, kept across its walks: a discovery's chunks, a watch's full reads and
 * the next snapshot start at the size the last walk settled on, not at SCAN_COUNT (a
 * chunk that started there on a slower node handed back 900 of its first 1,000 keys).
 */
const sizers = new WeakMap<RedisNode, PageSizer>();

export function pageSizerOf(node: RedisNode): PageSizer {
  let s = sizers.get(node);
  if (!s) sizers.set(node, (s = new PageSizer()));
  return s;
}
