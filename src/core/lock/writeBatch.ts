// The single-key grants, fence increments and compare-and-deletes that many callers send
// to one node in the same tick leave as one script call, in the order they were made: a node runs one
// script far more cheaply than one command or script per caller, and the client builds,
// writes and parses one command instead of many (docs/decisions.md, "One call per tick").
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
  resolve: (reply: number) => void;
  reject: (e: unknown) => void;
}

interface Batch {
  /** The socket corked when the batch opened: uncorked once its call is written. */
  stream: NonNullable<Redis['stream']>;
  writes: Pending[];
  keys: number;
}

const open = new WeakMap<object, Batch>();

/**
 * The batch `keys` may join on `client`, or undefined where the write goes out at once: a
 * lone caller (no other lock round undecided: nothing would join it, and holding it costs
 * a sequential caller), a Cluster (it routes per key), a connection not ready, and a
 * server that runs no scripts.
 */
function batchOn(client: Redis | Cluster, keys: number): Batch | undefined {
  if (lockRounds.undecided === 0 || client instanceof Cluster || client.status !== 'ready' || !client.stream) return undefined;
  if (knownCapabilities(client)?.capabilities.scripts === false) return undefined;
  let batch = open.get(client);
  if (batch && (batch.writes.length >= MAX_BATCH_WRITES || batch.keys + keys > MAX_BATCH_KEYS)) {
    flushWrites(client);
    batch = undefined;
  }
  if (!batch) {
    const stream = client.stream;
    // Corked until the batch is written: the tick's other writes to this node leave in
    // the same socket write (streams count corks, so this nests with RedisNode.cork()).
    stream.cork();
    batch = { stream, writes: [], keys: 0 };
    open.set(client, batch);
    process.nextTick(flushWrites, client);
  }
  return batch;
}

function join(batch: Batch, op: Pending['op'], keys: ReadonlyArray<string | Buffer>, arg: string, token: string | Buffer): Promise<number> {
  batch.keys += keys.length;
  return new Promise((resolve, reject) => batch.writes.push({ op, keys, arg, token, resolve, reject }));
}

/** Compare-and-delete of `keys` on one node: the number deleted (see releaseKeysOn). */
export function releaseOn(client: Redis | Cluster, keys: ReadonlyArray<string | Buffer>, token: string | Buffer): Promise<number> {
  const batch = batchOn(client, keys.length);
  return batch ? join(batch, 'r', keys, String(keys.length), token) : releaseKeysOn(client, keys, token);
}

/** SET `key` `token` PX `px` NX on one node: 'OK' granted, null refused, as the command answers. */
export function grantOn(client: Redis | Cluster, key: string | Buffer, token: string, px: string): Promise<unknown> {
  const batch = batchOn(client, 1);
  if (!batch) return client.set(key, token, 'PX', px, 'NX') as Promise<unknown>;
  return join(batch, 'g', [key], px, token).then((granted) => (granted === 1 ? 'OK' : null));
}

/** INCR `key` on one node (a fence counter): the new value; rejects with the node's error for it. */
export function incrOn(client: Redis | Cluster, key: string | Buffer): Promise<number> {
  const batch = batchOn(client, 1);
  return batch ? join(batch, 'i', [key], '', '') : client.incr(key);
}

/**
 * Writes `client`'s held grants and releases now, in one call. Every other lock write calls
 * this first (round.ts), so the held ones land before any later extend or waiter write on
 * that node, as they would have unbatched.
 */
export function flushWrites(client: Redis | Cluster): void {
  const batch = open.get(client);
  if (!batch) return;
  open.delete(client);
  const { writes } = batch;
  try {
    const args: Array<string | Buffer> = [];
    for (const w of writes) for (const k of w.keys) args.push(k);
    for (const w of writes) args.push(w.op, w.arg, w.token);
    callScript<Array<number | Error>>(client, WRITE_EACH_SCRIPT, batch.keys, args, false).then(
      // A write the node refused alone (an INCR of a counter of another type) answers its error.
      (replies) => writes.forEach((w, j) => (replies[j] instanceof Error ? w.reject(replies[j]) : w.resolve(Number(replies[j] ?? 0)))),
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
