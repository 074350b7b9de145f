// A read script's reply packed by the server into one MessagePack string (Lua's cmsgpack),
// read here in place: a SCAN page of 1,000 keys is one reply buffer instead of 3,000,
// and a key or token is taken as a range of it (no Buffer per element; a 100k x 5 watch's
// first tick made a million of them, 100 MB of its garbage, see docs/decisions.md
// "Pages packed by the server"). Only what cmsgpack writes is read: nil, booleans,
// integers, floats, strings (str or bin) and arrays; a map is no reply of ours.

/** Thrown on bytes that are not a reply of ours: a truncated or foreign reply. */
export class PackedReplyError extends Error {}

export class PackedReply {
  private pos = 0;
  /** The last string's range, set by str(). */
  start = 0;
  end = 0;

  constructor(readonly buf: Buffer) {}

  /** Passes over the next `n` bytes and says where they start: the one bounds check. */
  private take(n: number): number {
    const at = this.pos;
    if (at + n > this.buf.length) throw new PackedReplyError('packed reply ends early');
    this.pos = at + n;
    return at;
  }

  private byte(): number {
    return this.buf[this.take(1)];
  }

  /** `n` bytes on from here, as an unsigned big-endian number (n <= 8: exact below 2^53). */
  private uint(n: number): number {
    const at = this.take(n);
    let v = 0;
    for (let i = at; i < at + n; i++) v = v * 256 + this.buf[i];
    return v;
  }

  /** A signed big-endian integer: the high word signed, the low word not (exact below 2^53). */
  private int(n: 1 | 2 | 4 | 8): number {
    const at = this.take(n);
    if (n < 8) return this.buf.readIntBE(at, n);
    return this.buf.readInt32BE(at) * 2 ** 32 + this.buf.readUInt32BE(at + 4);
  }

  /** The length of a string whose header byte is `b`, or -1 when `b` heads no string. */
  private strLength(b: number): number {
    if (b >= 0xa0 && b <= 0xbf) return b & 0x1f;
    switch (b) {
      case 0xd9: case 0xc4: return this.uint(1);
      case 0xda: case 0xc5: return this.uint(2);
      case 0xdb: case 0xc6: return this.uint(4);
      default: return -1;
    }
  }

  /** The length of an array whose header byte is `b`, or -1 when `b` heads no array. */
  private arrayLength(b: number): number {
    if (b >= 0x90 && b <= 0x9f) return b & 0x0f;
    if (b === 0xdc) return this.uint(2);
    if (b === 0xdd) return this.uint(4);
    return -1;
  }

  /** Reads an array's header: its length. */
  array(): number {
    const n = this.arrayLength(this.byte());
    if (n < 0) throw new PackedReplyError('packed reply: an array was expected');
    return n;
  }

  /** Whether the next value is a string (str or bin); does not read it. */
  isStr(): boolean {
    const b = this.buf[this.pos];
    return (b >= 0xa0 && b <= 0xbf) || b === 0xd9 || b === 0xda || b === 0xdb || b === 0xc4 || b === 0xc5 || b === 0xc6;
  }

  /** Reads a string: its bytes are buf[start, end). */
  str(): void {
    const n = this.strLength(this.byte());
    if (n < 0) throw new PackedReplyError('packed reply: a string was expected');
    this.start = this.take(n);
    this.end = this.start + n;
  }

  /** Reads a number (an integer or a float). */
  number(): number {
    const v = this.value();
    if (typeof v !== 'number') throw new PackedReplyError('packed reply: a number was expected');
    return v;
  }

  /**
   * Reads the next value as the RESP reader gives it with buffers on: a string as a Buffer
   * (a view of the reply), an integer or float as a number, an array as an array, nil as null.
   */
  value(): unknown {
    return this.read(true);
  }

  /** Reads `n` values as value() gives them. */
  values(n: number): unknown[] {
    const a: unknown[] = new Array(n);
    for (let i = 0; i < n; i++) a[i] = this.read(true);
    return a;
  }

  /** Passes over `n` values without making them (no view of a string, no array). */
  skip(n: number): void {
    for (let i = 0; i < n; i++) this.read(false);
  }

  /** The next value; a string or an array only passed over unless `keep`. */
  private read(keep: boolean): unknown {
    const b = this.byte();
    if (b <= 0x7f) return b;
    if (b >= 0xe0) return b - 0x100;
    const len = this.strLength(b);
    if (len >= 0) {
      const at = this.take(len);
      return keep ? this.buf.subarray(at, at + len) : undefined;
    }
    const n = this.arrayLength(b);
    if (n >= 0) {
      if (keep) return this.values(n);
      this.skip(n);
      return undefined;
    }
    switch (b) {
      case 0xc0: return null;
      case 0xc2: return false;
      case 0xc3: return true;
      case 0xcc: return this.uint(1);
      case 0xcd: return this.uint(2);
      case 0xce: return this.uint(4);
      case 0xcf: return this.uint(8);
      case 0xd0: return this.int(1);
      case 0xd1: return this.int(2);
      case 0xd2: return this.int(4);
      case 0xd3: return this.int(8);
      case 0xca: return this.float(4);
      case 0xcb: return this.float(8);
      default: throw new PackedReplyError(`packed reply: unexpected byte 0x${b.toString(16)}`);
    }
  }

  private float(n: 4 | 8): number {
    const at = this.take(n);
    return n === 4 ? this.buf.readFloatBE(at) : this.buf.readDoubleBE(at);
  }
}
