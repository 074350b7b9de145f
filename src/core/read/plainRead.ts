// Reads without scripts (DESIGN "Reading without scripts"): where EVAL and EVAL_RO are
// refused, the bounded read of readLua.ts READ_KEY is sent as pipelined plain commands and
// handed to the same decoding (readScripts.ts toObservation), so both paths give the same
// observations. Only reads go out: SCAN, TYPE, PTTL, STRLEN, HLEN, ZCARD, MEMORY USAGE,
// OBJECT ENCODING, GETRANGE, HGETALL, ZRANGE, TIME.
import type Redis from 'ioredis';
import { clockNow } from '../connection/deadline';
import { knownCapabilities } from '../connection/capabilities';
import type { Observation } from '../vocabulary/types';
import { CALL_BYTES, CALL_ITEMS, MAX_ITEMS, MAX_SHAPE_BYTES, MAX_VALUE_BYTES } from './readLua';
import { timeOf, toObservation, type ReadBatch, type TokenTable, type TtlPage } from './readScripts';

type Reply = [Error | null, unknown];

/**
 * A key whose copy changed between two of its commands (its type, or a new expiry) is read
 * again; past this many tries the last read stands, as a script's would have at that instant.
 */
const TRIES = 4;

async function run(client: Redis, build: (p: ReturnType<Redis['pipeline']>) => void): Promise<Reply[]> {
  const p = client.pipeline();
  build(p);
  return ((await p.exec()) ?? []) as Reply[];
}

const str = (r: Reply): string => (r[0] ? '' : Buffer.isBuffer(r[1]) ? r[1].toString('latin1') : String(r[1]));
const num = (r: Reply): number | null => (r[0] || r[1] === null || r[1] === undefined ? null : Number(r[1]));

/** What READ_KEY decides from a key's size alone: a number payload (not read), or undefined (read it). */
interface Sized {
  type: string;
  /** The payload when the key is not to be read: its size over a bound, -1 a type not read, -2 size unknown. */
  skip?: number;
  /** HLEN/ZCARD: a member over MAX_VALUE_BYTES makes the payload this count, as the script does. */
  items: number;
  /** What reading it copies, at most (bytes): keeps a call within CALL_BYTES, as a script call is. */
  bytes: number;
}

/**
 * TYPE, then the size of each key as the script checks it (STRLEN, HLEN, ZCARD), then the
 * bytes of a hash or zset small enough to read: MEMORY USAGE walks every member, so it is
 * asked only within MAX_ITEMS, as READ_KEY does.
 */
async function sizesOf(client: Redis, keys: Buffer[]): Promise<Sized[]> {
  const types = (await run(client, (p) => { for (const k of keys) p.type(k); })).map(str);
  const counts = (await run(client, (p) => {
    for (let i = 0; i < keys.length; i++) {
      const t = types[i];
      if (t === 'string') p.strlen(keys[i]);
      else if (t === 'hash') p.hlen(keys[i]);
      else if (t === 'zset') p.zcard(keys[i]);
      else p.ping();
    }
  })).map((r) => num(r) ?? 0);
  const small = (i: number): boolean => (types[i] === 'hash' || types[i] === 'zset') && counts[i] <= MAX_ITEMS;
  const shapes = await run(client, (p) => {
    for (let i = 0; i < keys.length; i++) {
      if (!small(i)) continue;
      p.call('MEMORY', 'USAGE', keys[i], 'SAMPLES', '0');
      p.call('OBJECT', 'ENCODING', keys[i]);
    }
  });
  let j = 0;
  return types.map((type, i): Sized => {
    const n = counts[i];
    if (type === 'string') return n > MAX_VALUE_BYTES ? { type, skip: n, items: 0, bytes: 0 } : { type, items: 0, bytes: n };
    if (type !== 'hash' && type !== 'zset') return { type, skip: -1, items: 0, bytes: 0 };
    if (!small(i)) return { type, skip: n, items: n, bytes: 0 };
    const mem = num(shapes[j]);
    const enc = str(shapes[j + 1]);
    j += 2;
    // As READ_KEY: without MEMORY, only a compact encoding bounds its members.
    const bytes = mem !== null ? mem : enc !== '' && enc !== 'listpack' && enc !== 'ziplist' ? -2 : 0;
    if (bytes === -2) return { type, skip: -2, items: n, bytes: 0 };
    if (bytes > MAX_SHAPE_BYTES) return { type, skip: bytes, items: n, bytes: 0 };
    return { type, items: n, bytes: bytes || n * 2 * MAX_VALUE_BYTES };
  });
}

/** A read value as READ_KEY's payload, or undefined when it no longer fits what its size said (read again). */
function payloadOf(s: Sized, value: Reply): unknown {
  if (s.skip !== undefined) return s.skip;
  if (value[0] || value[1] === null) return undefined;
  if (s.type === 'string') {
    const v = value[1] as Buffer;
    return v.length > MAX_VALUE_BYTES ? undefined : v;
  }
  const flat = value[1] as Buffer[];
  if ((s.type === 'hash' ? flat.length / 2 : flat.length) > MAX_ITEMS) return undefined;
  return flat.some((m) => m.length > MAX_VALUE_BYTES) ? s.items : flat;
}

/**
 * Reads a batch of keys with plain commands; observations in key order, like
 * readScripts.ts readObservations. Each key's value is read between two PTTLs and
 * followed by its TYPE: a key re-set or retyped meanwhile is read again.
 */
export async function readObservationsPlain(client: Redis, keys: Buffer[], node: string, absent: Observation, tokens?: TokenTable): Promise<ReadBatch> {
  const observations: Observation[] = new Array(keys.length);
  const withTime = knownCapabilities(client)?.capabilities.time !== false;
  let nodeTimeMs = 0;
  let todo = keys.map((_, i) => i);
  for (let attempt = 1; todo.length > 0; attempt++) {
    const sizedAll = await sizesOf(client, todo.map((i) => keys[i]));
    const again: number[] = [];
    for (let from = 0; from < todo.length;) {
      // What one call may copy, as a script call's budget: the rest in the next call.
      let items = 0;
      let bytes = 0;
      let to = from;
      while (to < todo.length && (to === from || (items < CALL_ITEMS && bytes < CALL_BYTES))) {
        items += 1 + 2 * sizedAll[to].items;
        bytes += sizedAll[to].bytes;
        to++;
      }
      const ids = todo.slice(from, to);
      const sized = sizedAll.slice(from, to);
      from = to;
      // The node's clock after the last PTTL, as the read scripts take it (readLua.ts):
      // a stamp taken first would be earlier than PTTLs the node served after a pause.
      const replies = await run(client, (p) => {
        for (let i = 0; i < ids.length; i++) {
          const k = keys[ids[i]];
          const s = sized[i];
          p.pttl(k);
          if (s.skip !== undefined) p.ping();
          else if (s.type === 'string') p.getrangeBuffer(k, 0, MAX_VALUE_BYTES);
          else if (s.type === 'hash') p.callBuffer('HGETALL', k);
          else p.callBuffer('ZRANGE', k, '0', String(MAX_ITEMS));
          p.type(k);
          p.pttl(k);
        }
        if (withTime) p.time();
      });
      // The latest call's stamp: every PTTL of the batch was served before it.
      const t = withTime ? (replies[replies.length - 1][1] as [string, string] | null) : null;
      nodeTimeMs = t ? timeOf(t[0], t[1]) : clockNow();
      let j = 0;
      for (let i = 0; i < ids.length; i++, j += 4) {
        const s = sized[i];
        const before = num(replies[j]) ?? -2;
        const after = num(replies[j + 3]) ?? -2;
        const typeNow = str(replies[j + 2]);
        if (before === -2 && after === -2 && s.type === 'none') {
          observations[ids[i]] = absent;
          continue;
        }
        const payload = s.type === 'none' ? undefined : payloadOf(s, replies[j + 1]);
        // A later PTTL above the earlier one, or a key gaining or losing its expiry: re-set in between.
        const changed = typeNow !== s.type || payload === undefined || (before < 0) !== (after < 0) || after > before;
        if (changed && attempt < TRIES) again.push(ids[i]);
        else observations[ids[i]] = typeNow === 'none' || payload === undefined ? absent : toObservation(node, s.type, after, payload, absent, tokens);
      }
    }
    todo = again;
  }
  return { nodeTimeMs, observations };
}

/** One SCAN page with PTTLs only (readScripts.ts scanTtlPage), as plain commands. */
export async function scanTtlPagePlain(client: Redis, cursor: string, pattern: string, count: number): Promise<TtlPage> {
  const [next, keys] = await client.scanBuffer(cursor, 'MATCH', pattern, 'COUNT', count);
  const withTime = knownCapabilities(client)?.capabilities.time !== false;
  // Stamped after the last PTTL (see readObservationsPlain).
  const replies = await run(client, (p) => {
    for (const k of keys) p.pttl(k);
    if (withTime) p.time();
  });
  const t = withTime ? (replies[replies.length - 1][1] as [string, string] | null) : null;
  const pttls = (withTime ? replies.slice(0, -1) : replies).map((r) => num(r) ?? -2);
  return { nodeTimeMs: t ? timeOf(t[0], t[1]) : clockNow(), cursor: String(next), keys, pttls };
}
