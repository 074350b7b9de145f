// When many callers write to one node in the same tick, the single-key grants, fence
// increments and compare-and-deletes of all but the first few leave as one script call, in
// the order they were made: a node runs one script far more cheaply than one command or
// script per caller, and the client builds, writes and parses one command instead of many
// (docs/decisions.md, "One call per tick for many callers' grants and releases").
import type Redis from 'ioredis';
import { Cluster } from 'ioredis';
import { knownCapabilities } from '../connection/capabilities';
import { lockRounds } from '../connection/nodes';
import { callScript } from '../connection/lua';
import { releaseKeysOn, WRITE_EACH_SCRIPT } from './writeScripts';

/** Writes per call at most, and keys: a call stays far under a node's 10 ms. */
export const MAX_BATCH_WRITES = 256;
export const MAX_BATCH_KEYS = 1024;

interface Pending {
  /** 'g': SET NX PX of one key (arg: the PX); 'i': INCR of one key; 'r': compare-and-delete (arg: how many keys). */
  op: 'g' | 'i' | 'r';
  keys: ReadonlyArray<string | Buffer>;
  arg: string;
  token: string | Buffer;
  /** With what the write's own command would answer: 'OK' or null for a grant, a number else. */
  resolve: (reply: unknown) => void;
  reject: (e: unknown) => void;
}

interface Batch {
  /** The socket corked when the batch opened: uncorked once its call is written. */
  stream: NonNullable<Redis['stream']>;
  writes: Pending[];
  keys: number;
  /** Callers with writes in it: a fenced grant is one caller's two writes. */
  callers: number;
}

const open = new WeakMap<object, Batch>();
/** Batches held now, on any connection: while none is, a write need not look for one. */
let openBatches = 0;

/**
 * Callers per tick on a connection whose writes go out at once before the next ones are
 * held. Under contention a tick holds one or two callers on a connection (a release and
 * the call it wakes): held, they merge nothing and pay for the holding (16 callers on one
 * resource lost 5-8%, fenced 8-12%); many callers in a tick (64 workers: dozens) lose
 * little by the first two.
 */
export const AT_ONCE_PER_TICK = 2;
/** Callers whose writes went out at once, per connection, in this tick. */
const atOnce = new Map<object, number>();
let clearing = false;
const clearTick = (): void => {
  atOnce.clear();
  clearing = false;
};

/**
 * The batch a caller's write of `keys` keys joins on `client`, or undefined where it goes
 * out at once: the first AT_ONCE_PER_TICK callers of a tick on a connection, a lone caller
 * (no other lock round undecided), a Cluster (it routes per key), a connection not ready,
 * and a server that runs no scripts. A batch already open is always joined: a write sent
 * at once would overtake the writes held in it.
 */
function batchOn(client: Redis | Cluster, keys: number): Batch | undefined {
  // Cheapest first: this runs for every grant and release, batched or not.
  let batch = openBatches > 0 ? open.get(client) : undefined;
  if (batch && (batch.writes.length >= MAX_BATCH_WRITES || batch.keys + keys > MAX_BATCH_KEYS)) {
    flushWrites(client);
    batch = undefined;
  }
  if (batch) return batch;
  if (lockRounds.undecided === 0 || client instanceof Cluster) return undefined;
  const sent = atOnce.get(client) ?? 0;
  if (sent < AT_ONCE_PER_TICK) {
    atOnce.set(client, sent + 1);
    if (!clearing) {
      clearing = true;
      process.nextTick(clearTick);
    }
    return undefined;
  }
  if (client.status !== 'ready' || !client.stream || knownCapabilities(client)?.capabilities.scripts === false) return undefined;
  const stream = client.stream;
  // Corked until the batch is written: the tick's other writes to this node leave in
  // the same socket write (streams count corks, so this nests with RedisNode.cork()).
  stream.cork();
  batch = { stream, writes: [], keys: 0, callers: 0 };
  open.set(client, batch);
  openBatches++;
  process.nextTick(flushWrites, client);
  return batch;
}

function join<T>(batch: Batch, op: Pending['op'], keys: ReadonlyArray<string | Buffer>, arg: string, token: string | Buffer, sameCaller = false): Promise<T> {
  batch.keys += keys.length;
  if (!sameCaller) batch.callers++;
  return new Promise<T>((resolve, reject) => batch.writes.push({ op, keys, arg, token, resolve: resolve as (reply: unknown) => void, reject }));
}

/** The plain grant of one key: 'OK' granted, null refused. */
const setNx = (client: Redis | Cluster, key: string | Buffer, token: string | Buffer, px: string): Promise<unknown> => client.set(key, token, 'PX', px, 'NX');

/** Compare-and-delete of `keys` on one node: the number deleted (see releaseKeysOn). */
export function releaseOn(client: Redis | Cluster, keys: ReadonlyArray<string | Buffer>, token: string | Buffer): Promise<number> {
  const batch = batchOn(client, keys.length);
  return batch ? join<number>(batch, 'r', keys, String(keys.length), token) : releaseKeysOn(client, keys, token);
}

/** SET `key` `token` PX `px` NX on one node: 'OK' granted, null refused, as the command answers. */
export function grantOn(client: Redis | Cluster, key: string | Buffer, token: string, px: string): Promise<unknown> {
  const batch = batchOn(client, 1);
  return batch ? join(batch, 'g', [key], px, token) : setNx(client, key, token, px);
}

/**
 * A write of a batch of one caller as its own command: a script call costs the node
 * several times a SET, and under contention a lone caller in a tick is the common case
 * (16 callers on one resource ran 10% slower with each sent as a script; fenced, a
 * released lock's next grant, its INCR and SET, came 5 times per acquisition).
 */
function sendAlone(client: Redis | Cluster, w: Pending): void {
  const sent = w.op === 'g' ? setNx(client, w.keys[0], w.token, w.arg) : w.op === 'i' ? client.incr(w.keys[0]) : releaseKeysOn(client, w.keys, w.token);
  sent.then(w.resolve, w.reject);
}

/**
 * A fenced grant of one key on one node: INCR of its counter (the new value, or a rejection
 * with the node's error for it), then SET NX PX ('OK' or null). The two are one caller's
 * write: both go out at once, or both join the tick's batch.
 */
export function fencedGrantOn(client: Redis | Cluster, counter: string | Buffer, key: string | Buffer, token: string, px: string): [Promise<number>, Promise<unknown>] {
  const batch = batchOn(client, 2);
  if (!batch) return [client.incr(counter), setNx(client, key, token, px)];
  return [join<number>(batch, 'i', [counter], '', ''), join(batch, 'g', [key], px, token, true)];
}

/**
 * Writes `client`'s held grants and releases now, in one call. Every other lock write calls
 * this first (round.ts), so the held ones land before any later extend or waiter write on
 * that node, as they would have unbatched.
 */
export function flushWrites(client: Redis | Cluster): void {
  // Every lock round asks on each of its nodes: while no batch is held, nothing to look up.
  if (openBatches === 0) return;
  const batch = open.get(client);
  if (!batch) return;
  open.delete(client);
  openBatches--;
  const { writes } = batch;
  try {
    // One caller's writes merge nothing: sent as they would have been without a batch.
    if (batch.callers === 1) return void writes.forEach((w) => sendAlone(client, w));
    const args: Array<string | Buffer> = [];
    for (const w of writes) for (const k of w.keys) args.push(k);
    for (const w of writes) args.push(w.op, w.arg, w.token);
    callScript<Array<number | Error>>(client, WRITE_EACH_SCRIPT, batch.keys, args, false).then(
      // Each write answers as its own command would; one the node refused alone (an INCR of
      // a counter of another type) answers its error.
      (replies) =>
        writes.forEach((w, j) => {
          const r = replies[j];
          if (r instanceof Error) w.reject(r);
          else w.resolve(w.op === 'g' ? (r === 1 ? 'OK' : null) : Number(r ?? 0));
        }),
      (e: unknown) => {
        const noScript = e instanceof Error && e.message.startsWith('NOSCRIPT');
        for (const w of writes) {
          // A flushed script cache under a live connection: the releases are sent again on
          // their own (deleting our own token is right whenever it lands); a grant is not,
          // as a lone script grant is not: resent, it could land behind its own undo
          // (docs/decisions.md, "Scripts in order").
          if (noScript && w.op === 'r') releaseKeysOn(client, w.keys, w.token).then(w.resolve, w.reject);
          else w.reject(e);
        }
      },
    );
  } finally {
    batch.stream.uncork();
  }
}
