// The keys a read holds, each numbered once; each node's reads keep their part in arrays by
// that number (nodeReads.ts). A lock's copies on N nodes are then found with one lookup by
// name instead of N, and a node's key costs a word per array instead of a hash-table entry
// (a 100k x 5 watch held five maps of 100k entries: 18 MB of tables, and their growth was a
// tenth of the first tick's garbage). See docs/architecture.md, "The read state".

/** A node's reads by key number (nodeReads.ts), renumbered when the table is compacted. */
export interface Numbered {
  /** Sets `held[k]` for every key number this node holds. */
  markHeld(held: Uint8Array): void;
  /** Moves each key to its new number `to[k]`, `size` numbers in all. */
  renumber(to: Int32Array, size: number): void;
}

/**
 * Key ids (latin1 strings) by number, every id held once: each node's reads, the watch's
 * page listings and its own maps then share one string per key.
 */
export class KeyTable {
  private byName = new Map<string, number>();
  private names: string[] = [];

  get size(): number {
    return this.names.length;
  }

  /** The number of `id`, added where it is new. */
  number(id: string): number {
    let k = this.byName.get(id);
    if (k === undefined) {
      k = this.names.length;
      this.byName.set(id, k);
      this.names.push(id);
    }
    return k;
  }

  /** The number of `id`, or undefined where no read holds it. */
  find(id: string): number | undefined {
    return this.byName.get(id);
  }

  /** `id` as the table holds it, added where it is new: equal strings kept once. */
  id(id: string): string {
    return this.names[this.number(id)];
  }

  nameOf(k: number): string {
    return this.names[k];
  }

  /** Every id numbered, by number. */
  ids(): readonly string[] {
    return this.names;
  }

  /**
   * Drops the ids none of `reads` holds and numbers the rest anew, renumbering `reads`,
   * which must be every node's reads still in use: a walk over every key of each, paid once per
   * as many new keys (watch.ts).
   */
  compact(reads: readonly Numbered[]): void {
    const held = new Uint8Array(this.names.length);
    for (const r of reads) r.markHeld(held);
    const renumbered = new Int32Array(this.names.length).fill(-1);
    const names: string[] = [];
    const byName = new Map<string, number>();
    for (let k = 0; k < held.length; k++) {
      if (held[k] === 0) continue;
      renumbered[k] = names.length;
      byName.set(this.names[k], names.length);
      names.push(this.names[k]);
    }
    for (const r of reads) r.renumber(renumbered, names.length);
    this.names = names;
    this.byName = byName;
  }
}
