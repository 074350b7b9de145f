// The keys a read holds, each numbered once, and each node's slots in an array by that
// number. A lock's copies on N nodes are then found with one lookup by name instead of N,
// and a node's slots cost a word each instead of a hash-table entry (a 100k x 5 watch held
// five maps of 100k entries: 18 MB of tables, and their growth was a tenth of the first
// tick's garbage). See docs/architecture.md, "The read state".
/**
 * Key ids (latin1 strings) by number, every id held once: each node's slots, the watch's
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
   * which must be every node's reads still in use: a walk over every slot, paid once per
   * as many new keys (watch.ts).
   */
  compact(reads: ReadonlyArray<NodeReads<unknown>>): void {
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

/**
 * One node's slots by key (context.ts Slot), with the part of Map's interface the read
 * stages use. Iteration
 * runs in the table's order (first seen by any node), not this node's insertion order:
 * every reader sorts or looks up by key.
 */
export class NodeReads<Slot> {
  private slots: Array<Slot | undefined> = [];
  private count = 0;

  constructor(readonly table: KeyTable) {}

  get size(): number {
    return this.count;
  }

  get(id: string): Slot | undefined {
    const k = this.table.find(id);
    return k === undefined ? undefined : this.slots[k];
  }

  /** The slot of key number `k` (KeyTable.find): a lock's copies on every node by one lookup. */
  at(k: number): Slot | undefined {
    return this.slots[k];
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  set(id: string, slot: Slot): this {
    const k = this.table.number(id);
    // Grown one element at a time: an index past the end would make the array sparse (a dictionary).
    while (this.slots.length <= k) this.slots.push(undefined);
    if (this.slots[k] === undefined) this.count++;
    this.slots[k] = slot;
    return this;
  }

  delete(id: string): boolean {
    const k = this.table.find(id);
    if (k === undefined || this.slots[k] === undefined) return false;
    this.slots[k] = undefined;
    this.count--;
    return true;
  }

  clear(): void {
    this.slots = [];
    this.count = 0;
  }

  /** Each slot with its key id; deleting the current one meanwhile is allowed, as in a Map. */
  forEach(f: (slot: Slot, id: string) => void): void {
    const slots = this.slots;
    for (let k = 0; k < slots.length; k++) {
      const slot = slots[k];
      if (slot !== undefined) f(slot, this.table.nameOf(k));
    }
  }

  /** Sets `held[k]` for every key this node holds (KeyTable.compact). */
  markHeld(held: Uint8Array): void {
    for (let k = 0; k < this.slots.length; k++) if (this.slots[k] !== undefined) held[k] = 1;
  }

  /** Moves each slot to its key's new number (KeyTable.compact). */
  renumber(to: Int32Array, size: number): void {
    const slots: Array<Slot | undefined> = [];
    for (let k = 0; k < size; k++) slots.push(undefined);
    for (let k = 0; k < this.slots.length; k++) if (this.slots[k] !== undefined) slots[to[k]] = this.slots[k];
    this.slots = slots;
  }
}
