// One read-only script per SCAN batch: TYPE, PTTL and a bounded value for every key,
// so a batch costs one round trip and the value reads never leave their bounds.
import type Redis from 'ioredis';
import type { Cluster } from 'ioredis';
import { MAX_TOKEN_BYTES, recognise, RawValue } from '../vocabulary/formats';
import { displayToken, displayTokenRange, showsAs } from '../vocabulary/tokens';
import { holderOf } from '../vocabulary/holderToken';
import type { Observation } from '../vocabulary/types';
import { callReadScript, readScript } from '../connection/lua';
import { clockNow } from '../connection/deadline';
import { interned } from './context';
import type { KeyTable } from './keyTable';
import { reach } from './nodeReads';
import { PackedReply } from './packedReply';
import { MAX_VALUE_BYTES, MAX_ITEMS, MAX_SHAPE_BYTES, CALL_ITEMS, CALL_BYTES, CALL_MICROS, INSPECT, INTERNAL_OF, SCAN_PAGE, SCAN_TTL_PAGE, PAGE_CHANGES, CHUNK_KEYS, CHAIN_MICROS } from './readLua';
export { MAX_VALUE_BYTES, MAX_ITEMS, MAX_SHAPE_BYTES, CALL_ITEMS, CALL_BYTES, FENCE_BYTES, UNDIGESTED } from './readLua';

const BOUNDS = [String(MAX_VALUE_BYTES), String(MAX_ITEMS), String(MAX_SHAPE_BYTES), String(CALL_ITEMS), String(CALL_BYTES)];

const SCRIPTS = {
  inspect: readScript(INSPECT),
  scanPage: readScript(SCAN_PAGE),
  internalOf: readScript(INTERNAL_OF),
  scanTtlPage: readScript(SCAN_TTL_PAGE),
  pageChanges: readScript(PAGE_CHANGES),
};

function decodeRaw(type: string, payload: unknown): RawValue {
  if (typeof payload === 'number') {
    if (payload === -2) return { type, unreadable: 'size-unknown' };
    return payload >= 0 ? { type, tooLarge: true, size: payload } : { type };
  }
  if (type === 'string') return { type, value: payload as Buffer };
  if (type === 'hash') {
    const flat = payload as Buffer[];
    const entries: Array<[Buffer, Buffer]> = [];
    for (let i = 0; i + 1 < flat.length; i += 2) entries.push([flat[i], flat[i + 1]]);
    return { type, entries };
  }
  if (type === 'zset') return { type, members: payload as Buffer[] };
  return { type: 'none' };
}

/** Frozen and shared: absent is the most common observation on a partial lock. */
export function absentOn(node: string): Observation {
  return Object.freeze({ node, state: 'absent', token: null, pttlMs: null, type: null, format: null, holdCount: null, reason: null, holder: null });
}

/**
 * Tokens already decoded in one read, by value: the copies of one lock on N nodes share
 * one string (a watch holds 100k keys x N nodes; context.ts says who keeps one). Lives as
 * long as the read's context.
 */
export type TokenTable = Map<string, string>;

/**
 * One key as READ_KEY gives it (type, pttl, payload) as an observation, its holder decoded
 * from its token; the plain-command reader (plainRead.ts) hands in the same triple.
 */
export function toObservation(node: string, type: string, pttl: number, payload: unknown, absent: Observation, tokens?: TokenTable, holders = true): Observation {
  if (type === 'none') return absent;
  // The common case, a string token, skips the intermediate objects (a snapshot reads
  // 100k+ of them); formats.recognise still decides everything else.
  if (type === 'string' && Buffer.isBuffer(payload) && payload.length > 0 && payload.length <= MAX_TOKEN_BYTES) {
    return stringCopy(node, pttl, interned(tokens, displayToken(payload)), holders);
  }
  const r = recognise(decodeRaw(type, payload));
  const present = r.state === 'present';
  const token = r.token === null ? null : interned(tokens, r.token);
  return {
    node,
    state: r.state,
    token,
    pttlMs: present ? (pttl < 0 ? -1 : pttl) : null,
    type,
    format: r.format,
    holdCount: r.holdCount,
    reason: r.reason,
    holder: present && holders ? holderOf(token, r.format) : null,
  };
}

/** A string token's copy, built in one place so every such copy has one shape. */
function stringCopy(node: string, pttl: number, token: string, holders: boolean): Observation {
  return { node, state: 'present', token, pttlMs: pttl < 0 ? -1 : pttl, type: 'string', format: 'string', holdCount: null, reason: null, holder: holders ? holderOf(token, 'string') : null };
}

export interface ReadBatch {
  /**
   * The node's clock after the batch's last PTTL (epoch ms): a batch its budget split over
   * several calls takes its last call's stamp, so no key's PTTL was served after it.
   */
  nodeTimeMs: number;
  observations: Observation[];
}

/** The scripts send the common type, string, as the integer 1: no reply buffer per key. */
function typeName(t: unknown): string {
  return t === 1 ? 'string' : String(t);
}

/**
 * The node's clock as a script read it; a server that refuses TIME (renamed away, or not
 * granted to the role) sends 0, 0 and the client's clock stands in (the node's clock
 * offset is then unknown, see inspect.ts).
 */
export function timeOf(sec: unknown, usec: unknown): number {
  const t = Number(sec) * 1000 + Number(usec) / 1000;
  return t > 0 ? t : clockNow();
}

/**
 * Reads a batch of keys on one client; observations in key order. Each script call reads
 * what its budget allows (items, bytes, `callMicros` on the node) and the next call
 * continues with the keys left.
 */
export async function readObservations(client: Redis | Cluster, keys: ReadonlyArray<Buffer | string>, node: string, absent: Observation, tokens?: TokenTable, callMicros = CALL_MICROS, packed = true): Promise<ReadBatch> {
  const observations: Observation[] = new Array(keys.length);
  let nodeTimeMs = 0;
  for (let from = 0; from < keys.length;) {
    const rest = from === 0 ? keys : keys.slice(from);
    const reply = await callReadScript<unknown[] | Buffer>(client, SCRIPTS.inspect, rest.length, [...rest, ...BOUNDS, String(callMicros), packed ? '1' : '0'], true);
    const r = Buffer.isBuffer(reply) ? new PackedReply(reply) : undefined;
    if (r) r.array();
    const head = r ? r.values(3) : (reply as unknown[]);
    // The last call's stamp: with the first, a key read by a later call had its PTTL served
    // after the stamp, and its expiry came out early by the time between the calls, which
    // no read error covers (a busy client made a 100k x 5 watch name locks changed).
    nodeTimeMs = timeOf(head[0], head[1]);
    const n = Math.max(1, Number(head[2]));
    for (let i = 0, j = 3; i < n && from + i < keys.length; i++, j += 3) {
      observations[from + i] = r ? packedCopy(r, node, absent, tokens, true, true) : toObservation(node, typeName(head[j]), Number(head[j + 1]), head[j + 2], absent, tokens);
    }
    from += n;
  }
  return { nodeTimeMs, observations };
}

/**
 * What a page call says before its keys are decoded: enough to send the next call, so the
 * node works on it while this page's keys are taken in (inspect.ts scanNode).
 */
export interface ScanPageHead {
  nodeTimeMs: number;
  cursor: string;
  /** Keys the page listed, read or not. */
  keyCount: number;
  /** Of those, the keys the call read before its budget ran out. */
  readCount: number;
  /** The walk of the internal keys: its next cursor ('0': complete), null when the call did not walk it. */
  internalCursor: string | null;
  /** That walk's finds: name, then a counter's first bytes, 1 (a waiter set) or 0 (a counter not read). */
  internals: unknown[];
}

export interface ScannedPage {
  /**
   * Key i's name is the bytes of `src[i]` (of `src` itself, a packed reply) from
   * `starts[i]` to `ends[i]`: a packed page's keys are ranges of its reply (packedReply.ts).
   */
  src: Buffer | Buffer[];
  starts: number[];
  ends: number[];
  observations: Observation[];
  /** Keys of the page the call's budget left unread: read them with readObservations. */
  unread: Buffer[];
  /** Each key's number in the shared table, where the page was decoded with one (SharedTokens). */
  ks?: number[];
}

/**
 * The first token decoded for each key (`byKey`, InspectContext.tokensByKey), by its number
 * in `table`, the one the read's nodes share: the key's other copies take that string.
 */
export interface SharedTokens {
  table: KeyTable;
  byKey: Array<string | undefined>;
}

/** The string buf[start, end) shows as: key `k`'s first token where the bytes show as it, else a new one (then key k's). */
function sharedToken(shared: SharedTokens, k: number, buf: Buffer, start: number, end: number, tokens: TokenTable | undefined): string {
  const byKey = shared.byKey;
  const seen = byKey[k];
  if (seen !== undefined && showsAs(seen, buf, start, end)) return seen;
  const token = interned(tokens, displayTokenRange(buf, start, end));
  reach(byKey, k);
  byKey[k] = token;
  return token;
}

/** A page call's reply: the array SCAN_PAGE builds, or that array packed by the server (packedReply.ts). */
export type PageReply = unknown[] | Buffer;

/**
 * Sends one server-side SCAN page; keys are read in the same script call, within its
 * budget of items, bytes and `callMicros` on the node. With `internalCursor`, the call also
 * walks one page of internal keys (COUNT `internalCount`).
 */
export function requestScanPage(client: Redis, cursor: string, pattern: string, count: number, internalCursor: string | null, internalCount: number, callMicros = CALL_MICROS, packed = true): Promise<PageReply> {
  return callReadScript<PageReply>(client, SCRIPTS.scanPage, 0, [cursor, pattern, String(count), ...BOUNDS, internalCursor ?? '', String(internalCount), String(callMicros), packed ? '1' : '0'], true);
}

/** Where the page's per-key reads start (see SCAN_PAGE). */
const PAGE_HEAD = 6;

export function scanPageHead(reply: PageReply): ScanPageHead {
  let head: unknown[];
  let length: number;
  if (Buffer.isBuffer(reply)) {
    const r = new PackedReply(reply);
    length = r.array();
    head = r.values(Math.min(PAGE_HEAD, length));
  } else {
    head = reply;
    length = reply.length;
  }
  const n = Number(head[3]);
  const walked = String(head[4]);
  return {
    nodeTimeMs: timeOf(head[0], head[1]),
    cursor: String(head[2]),
    keyCount: n + (length - PAGE_HEAD - 3 * n),
    readCount: n,
    internalCursor: walked === '' ? null : walked,
    internals: Array.isArray(head[5]) ? head[5] : [],
  };
}

/**
 * `holders`: decode each copy's holder (a discovery, which lists names and values only, does
 * not). With `shared`, a packed page's keys are numbered as they are decoded (`ks`), and
 * their string tokens shared with their copies on the other nodes.
 */
export function decodeScanPage(reply: PageReply, node: string, absent: Observation, tokens?: TokenTable, holders = true, shared?: SharedTokens): ScannedPage {
  if (Buffer.isBuffer(reply)) return decodePackedPage(reply, node, absent, tokens, holders, shared);
  const n = Number(reply[3]);
  const src: Buffer[] = new Array(n);
  const starts: number[] = new Array(n);
  const ends: number[] = new Array(n);
  const observations: Observation[] = new Array(n);
  let j = PAGE_HEAD;
  for (let i = 0; i < n; i++, j += 3) {
    const key = reply[j] as Buffer;
    src[i] = key;
    starts[i] = 0;
    ends[i] = key.length;
    const payload = reply[j + 2];
    if (Buffer.isBuffer(payload)) observations[i] = toObservation(node, 'string', Number(reply[j + 1]), payload, absent, tokens, holders);
    else {
      const [type, value] = payload as [Buffer, unknown];
      observations[i] = toObservation(node, String(type), Number(reply[j + 1]), value, absent, tokens, holders);
    }
  }
  return { src, starts, ends, observations, unread: reply.slice(j) as Buffer[] };
}

/**
 * One key's copy from a packed reply, at its PTTL: a printable token is taken from its
 * range. `typed`: INSPECT's layout (type, pttl, payload; the type 1 for a string), else
 * SCAN_PAGE's (pttl, then a string or { type, payload }).
 */
function packedCopy(r: PackedReply, node: string, absent: Observation, tokens: TokenTable | undefined, holders: boolean, typed: boolean, shared?: SharedTokens, k = -1): Observation {
  const type = typed ? typeName(r.value()) : 'string';
  const pttl = r.number();
  if (type === 'string' && r.isStr()) {
    r.str();
    const size = r.end - r.start;
    return size > 0 && size <= MAX_TOKEN_BYTES
      ? stringCopy(node, pttl, shared === undefined ? interned(tokens, displayTokenRange(r.buf, r.start, r.end)) : sharedToken(shared, k, r.buf, r.start, r.end, tokens), holders)
      : toObservation(node, 'string', pttl, r.buf.subarray(r.start, r.end), absent, tokens, holders);
  }
  if (typed) return toObservation(node, type, pttl, r.value(), absent, tokens, holders);
  const [t, value] = r.value() as [Buffer, unknown];
  return toObservation(node, String(t), pttl, value, absent, tokens, holders);
}

/**
 * decodeScanPage of a packed reply: keys and string tokens are read as ranges of it, the
 * rare other payload (a hash, a zset, a value not read) as the array reply would give it.
 */
function decodePackedPage(buf: Buffer, node: string, absent: Observation, tokens: TokenTable | undefined, holders: boolean, shared: SharedTokens | undefined): ScannedPage {
  const r = new PackedReply(buf);
  const length = r.array();
  // The head was taken by scanPageHead: only the count of keys read is needed here.
  r.skip(3);
  const n = r.number();
  r.skip(PAGE_HEAD - 4);
  const starts: number[] = new Array(n);
  const ends: number[] = new Array(n);
  const observations: Observation[] = new Array(n);
  const ks: number[] | undefined = shared === undefined ? undefined : new Array(n);
  for (let i = 0; i < n; i++) {
    r.str();
    starts[i] = r.start;
    ends[i] = r.end;
    const k = shared === undefined ? -1 : shared.table.numberOfRange(buf, r.start, r.end);
    if (ks !== undefined) ks[i] = k;
    observations[i] = packedCopy(r, node, absent, tokens, holders, false, shared, k);
  }
  // The keys left unread are sent back to the node by name: copies, so they pin no reply.
  const unread = (r.values(length - PAGE_HEAD - 3 * n) as Buffer[]).map((k) => Buffer.from(k));
  return { src: buf, starts, ends, observations, unread, ks };
}

export interface InternalOf {
  /** Per key: its fence counter's raw first bytes (null: none); null when none has one, undefined when the node would not say. */
  fences: Array<Buffer | null> | null | undefined;
  /** True when no key has a waiter set (else the waiters are read apart). */
  noWaiters: boolean;
}

/** The internal keys beside `keys`, looked up by name (see INTERNAL_OF). */
export async function readInternalOf(client: Redis, keys: Buffer[]): Promise<InternalOf> {
  const [fences, waiters] = await callReadScript<unknown[]>(client, SCRIPTS.internalOf, 0, keys, true);
  return { fences: Array.isArray(fences) ? (fences as Array<Buffer | null>) : fences === -1 ? undefined : null, noWaiters: Number(waiters) === 1 };
}

export interface TtlPage {
  nodeTimeMs: number;
  cursor: string;
  keys: Buffer[];
  pttls: number[];
}

/** One listed page: [sec, usec, cursor, then key, PTTL per key]. */
function decodeListPage(flat: unknown[]): TtlPage {
  const n = (flat.length - 3) / 2;
  const keys: Buffer[] = new Array(n);
  const pttls: number[] = new Array(n);
  for (let i = 0, j = 3; i < n; i++, j += 2) {
    keys[i] = flat[j] as Buffer;
    pttls[i] = Number(flat[j + 1]);
  }
  return { nodeTimeMs: timeOf(flat[0], flat[1]), cursor: String(flat[2]), keys, pttls };
}

/** One SCAN page with PTTLs only: what a watch tick compares against what it knows. */
export async function scanTtlPage(client: Redis, cursor: string, pattern: string, count: number): Promise<TtlPage> {
  return decodeListPage(await callReadScript<unknown[]>(client, SCRIPTS.scanTtlPage, 0, [cursor, pattern, String(count)], true));
}

/** A chunk of a page whose checksum moved (see PAGE_CHANGES). */
export interface MovedChunk {
  /** Its position in the page: keys index * CHUNK_KEYS on. */
  index: number;
  /** Its keys are the call's listed keys `first` to `first + count - 1` (listedKey). */
  first: number;
  count: number;
}

export interface PageChanges {
  nodeTimeMs: number;
  cursor: string;
  /** Keys on the page; chunk i holds keys i * CHUNK_KEYS on. */
  size: number;
  /**
   * Every chunk's checksum, 16 bytes each, where a chunk moved or the page's size did: the
   * Buffer sent, patched in place where the page's size stands, else a new one.
   */
  digests?: Buffer;
  /** The page's checksum, where it differs from the one sent. */
  whole?: string;
  moved: MovedChunk[];
  /**
   * The keys the moved chunks list, in order: key i's name is the bytes of `src[i]` (of
   * `src` itself, a packed reply) from `starts[i]` to `ends[i]`, as a ScannedPage's.
   */
  src: Buffer | Buffer[];
  starts: number[];
  ends: number[];
  /** Each listed key's PEXPIRETIME (node clock; -1 no expiry, -2 gone). */
  expiresAt: number[];
  /** Pages of `ahead` read after it and found quiet, and the cursor to go on from. */
  quiet: number;
  next: string;
}

/** The bytes of a listed key's name (a view of the reply: no copy). */
export function listedKey(c: Pick<PageChanges, 'src' | 'starts' | 'ends'>, i: number): Buffer {
  const src = Array.isArray(c.src) ? c.src[i] : c.src;
  return c.starts[i] === 0 && c.ends[i] === src.length ? src : src.subarray(c.starts[i], c.ends[i]);
}

export { CHUNK_KEYS, CHAIN_PAGES } from './readLua';

/**
 * One SCAN page's chunks whose checksum differs from `digests` (the last tick's, 16
 * bytes per chunk), none while the page's checksum is `whole`; '' for both on a first
 * listing, so every chunk comes back. Then the pages `ahead` (each where the last tick
 * found it, with its checksum then), as long as they are quiet and time is left. Rejects
 * on Redis < 7.0 (no PEXPIRETIME). `packed` asks for the reply packed (packedReply.ts),
 * which a server without cmsgpack ignores.
 */
export async function pageChanges(client: Redis, cursor: string, pattern: string, count: number, digests: Buffer | '', whole: string, ahead: ReadonlyArray<{ cursor: string; whole: string }> = [], chainMicros = CHAIN_MICROS, packed = true): Promise<PageChanges> {
  const args = [cursor, pattern, String(count), ...BOUNDS, String(CHUNK_KEYS), digests, whole, String(chainMicros), packed ? '1' : '0'];
  for (const a of ahead) args.push(a.cursor, a.whole);
  const reply = await callReadScript<unknown[] | Buffer>(client, SCRIPTS.pageChanges, 0, args, true);
  const r = Buffer.isBuffer(reply) ? new PackedReply(reply) : undefined;
  const length = r ? r.array() : (reply as unknown[]).length;
  const head = r ? r.values(8) : (reply as unknown[]);
  const flat = reply as unknown[];
  const size = Number(head[3]);
  const chunks = Math.ceil(size / CHUNK_KEYS);
  let patched: Buffer | undefined;
  if (length > 8 || digests.length !== 16 * chunks) {
    if (digests !== '' && digests.length === 16 * chunks) patched = digests;
    else {
      patched = Buffer.alloc(16 * chunks);
      if (digests !== '') digests.copy(patched, 0, 0, Math.min(digests.length, patched.length));
    }
  }
  const moved: MovedChunk[] = [];
  const keys: Buffer[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  const expiresAt: number[] = [];
  // Per moved chunk: its index, its key count, its checksum, then key and expiry per key.
  for (let j = 8; j < length;) {
    const index = Number(r ? r.number() : flat[j]) - 1;
    const n = Number(r ? r.number() : flat[j + 1]);
    moved.push({ index, first: expiresAt.length, count: n });
    if (r) {
      r.str();
      (reply as Buffer).copy(patched!, 16 * index, r.start, r.end);
    } else (flat[j + 2] as Buffer).copy(patched!, 16 * index);
    j += 3;
    for (let k = 0; k < n; k++, j += 2) {
      if (r) {
        r.str();
        starts.push(r.start);
        ends.push(r.end);
        expiresAt.push(r.number());
      } else {
        const key = flat[j] as Buffer;
        keys.push(key);
        starts.push(0);
        ends.push(key.length);
        expiresAt.push(Number(flat[j + 1]));
      }
    }
  }
  const page = (head[5] as Buffer).toString('latin1');
  return {
    nodeTimeMs: timeOf(head[0], head[1]),
    cursor: String(head[2]),
    size,
    digests: patched,
    whole: page === '' ? undefined : page,
    moved,
    src: r ? (reply as Buffer) : keys,
    starts,
    ends,
    expiresAt,
    quiet: Number(head[6]),
    next: String(head[7]),
  };
}
