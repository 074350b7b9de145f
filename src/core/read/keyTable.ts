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

/** FNV-1a over a latin1 id's code units, from `seed`: the same number for the id and its bytes. */
function hashOfId(id: string, seed: number): number {
  let h = seed;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h;
}

function hashOfBytes(buf: Buffer, start: number, end: number, seed: number): number {
  let h = seed;
  for (let i = start; i < end; i++) h = Math.imul(h ^ buf[i], 0x01000193);
  return h;
}

/**
 * Whether `id` is the latin1 form of the key whose bytes are buf[start, end) (a packed
 * reply's, packedReply.ts): comparing spares a string for a key already known (the watch's
 * moved chunks list mostly the keys they listed before).
 */
export function isIdOfRange(id: string, buf: Buffer, start: number, end: number): boolean {
  if (id.length !== end - start) return false;
  for (let i = start; i < end; i++) if (id.charCodeAt(i - start) !== buf[i]) return false;
  return true;
}

const ASCII = /^[\x00-\x7f]*$/;

/**
 * A key id (latin1: a character per byte) as a command argument: in plain ASCII the string
 * itself (its UTF-8 is its bytes, and no Buffer is made), any other as its bytes.
 */
export function sendableKey(id: string): string | Buffer {
  return ASCII.test(id) ? id : Buffer.from(id, 'latin1');
}

/**
 * Key ids (latin1 strings) by number, every id held once: each node's reads, the watch's
 * page listings and its own maps then share one string per key.
 * An open-addressing table of its own, not a Map: a key a node lists is looked up by its
 * bytes, so the copies of a key on the other nodes make no string of their own (a Map's
 * lookup of a string made per copy was a seventh of a 100k x 5 watch's first tick).
 */
export class KeyTable {
  private names: string[] = [];
  /** Each number's hash (hashOfId). */
  private hashes = new Int32Array(256);
  /** number + 1 by hash, linear probing; 0 is empty. At most half full. */
  private buckets = new Int32Array(512);
  /** A seed per table: key names are the user's data, and a fixed hash could be aimed at. */
  private readonly seed = (0x811c9dc5 ^ Math.floor(Math.random() * 0x7fffffff)) | 0;

  get size(): number {
    return this.names.length;
  }

  /** The number of `id`, added where it is new. */
  number(id: string): number {
    const h = hashOfId(id, this.seed);
    const i = this.bucketOf(id, h);
    const b = this.buckets[i];
    return b !== 0 ? b - 1 : this.add(id, h, i);
  }

  /** The number of the key whose bytes are `key`, added where it is new: no string unless it is. */
  numberOfBytes(key: Buffer): number {
    return this.numberOfRange(key, 0, key.length);
  }

  /** numberOfBytes for the key whose bytes are buf[start, end). */
  numberOfRange(buf: Buffer, start: number, end: number): number {
    const h = hashOfBytes(buf, start, end, this.seed);
    const mask = this.buckets.length - 1;
    let i = h & mask;
    for (let b = this.buckets[i]; b !== 0; b = this.buckets[(i = (i + 1) & mask)]) {
      if (this.hashes[b - 1] === h && isIdOfRange(this.names[b - 1], buf, start, end)) return b - 1;
    }
    return this.add(buf.toString('latin1', start, end), h, i);
  }

  /** The id of the key whose name is `key`'s bytes, as the table holds it (made only where it is new). */
  idOfBytes(key: Buffer): string {
    return this.names[this.numberOfBytes(key)];
  }

  /** The number of `id`, or undefined where no read holds it. */
  find(id: string): number | undefined {
    const b = this.buckets[this.bucketOf(id, hashOfId(id, this.seed))];
    return b === 0 ? undefined : b - 1;
  }

  /** The bucket holding `id` (hash `h`), or the empty one where it would go. */
  private bucketOf(id: string, h: number): number {
    const mask = this.buckets.length - 1;
    let i = h & mask;
    for (let b = this.buckets[i]; b !== 0; b = this.buckets[(i = (i + 1) & mask)]) {
      if (this.hashes[b - 1] === h && this.names[b - 1] === id) break;
    }
    return i;
  }

  nameOf(k: number): string {
    return this.names[k];
  }

  /** Every id numbered, by number. */
  ids(): readonly string[] {
    return this.names;
  }

  /** Numbers `id` (hash `h`), placed at the empty bucket `i` unless the table grows. */
  private add(id: string, h: number, i: number): number {
    const k = this.names.length;
    this.names.push(id);
    if (k >= this.hashes.length) {
      const hashes = new Int32Array(this.hashes.length * 2);
      hashes.set(this.hashes);
      this.hashes = hashes;
    }
    this.hashes[k] = h;
    if ((k + 1) * 2 > this.buckets.length) this.rehash(this.buckets.length * 2);
    else this.buckets[i] = k + 1;
    return k;
  }

  /** Places every number in a table of `size` buckets. */
  private rehash(size: number): void {
    const buckets = new Int32Array(size);
    const mask = size - 1;
    for (let k = 0; k < this.names.length; k++) {
      let i = this.hashes[k] & mask;
      while (buckets[i] !== 0) i = (i + 1) & mask;
      buckets[i] = k + 1;
    }
    this.buckets = buckets;
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
    const hashes = new Int32Array(Math.max(256, this.hashes.length));
    for (let k = 0; k < held.length; k++) {
      if (held[k] === 0) continue;
      renumbered[k] = names.length;
      hashes[names.length] = this.hashes[k];
      names.push(this.names[k]);
    }
    for (const r of reads) r.renumber(renumbered, names.length);
    this.names = names;
    this.hashes = hashes;
    let size = 512;
    while (size < names.length * 2) size *= 2;
    this.rehash(size);
  }
}
