// Every Redlock implementation under test behind one tiny interface, each with its own
// ioredis clients on the same nodes and the same TTL and retry policy. The retry policy
// is the one all of them can express: a fixed delay, no jitter (redlock-universal and
// redis-semaphore have none), retries until the lock is won.
import Redis from 'ioredis';
import RedlockV5 from 'redlock5';
import { Redlock as SesameRedlock } from '@sesamecare-oss/redlock';
import { createRedlock, IoredisAdapter, Lock as UniversalLock, LockHandle } from 'redlock-universal';
import { RedlockMutex } from 'redis-semaphore';
import * as core from '../src/core';

export interface LockLib {
  readonly name: string;
  /** Acquires `resource` (retrying per the shared policy); the handle is for release. */
  acquire(resource: string): Promise<unknown>;
  release(handle: unknown): Promise<void>;
  close(): Promise<void>;
}

export interface LibSettings {
  nodes: Array<{ host: string; port: number }>;
  ttlMs: number;
  retryDelayMs: number;
}

type LockOps = Pick<LockLib, 'acquire' | 'release'>;

/** A peer library: `open` wires it to ioredis clients the bench made for it. */
export interface Peer {
  readonly name: string;
  open(clients: Redis[], s: LibSettings): LockOps;
}

/** Unlimited where the library allows it; redlock-universal wants an integer. */
const MANY = 1_000_000;

/** Our core, built from URLs as the CLI and the extension build it (its own client options). */
export async function openOurs(s: LibSettings, name = 'ours', coreModule: typeof core = core, options: core.AcquireOptions = {}, extra: core.RedlockOptions = {}): Promise<LockLib> {
  const rl = new coreModule.Redlock(s.nodes.map((n) => `redis://${n.host}:${n.port}`), {
    retryCount: MANY,
    retryDelayMs: s.retryDelayMs,
    retryJitterMs: 0,
    ...extra,
  });
  await rl.release(await rl.acquire(`bench:${name}:connect`, 1000));
  return {
    name,
    acquire: (resource) => rl.acquire(resource, s.ttlMs, options),
    release: async (lock) => void (await rl.release(lock as core.Lock)),
    close: () => rl.quit(),
  };
}

/**
 * Auto-pipelining speeds up many concurrent callers and slows down a lone one, so each
 * peer may run once with each setting and so count at its best: `+ap` when it is on.
 */
export async function openPeer(peer: Peer, s: LibSettings, pipelining: boolean): Promise<LockLib> {
  const clients = s.nodes.map((n) => new Redis({ host: n.host, port: n.port, enableAutoPipelining: pipelining, maxRetriesPerRequest: 0 }));
  try {
    await Promise.all(clients.map((c) => (c.status === 'ready' ? undefined : new Promise((r) => c.once('ready', r)))));
    return {
      name: peerName(peer, pipelining),
      ...peer.open(clients, s),
      close: async () => void (await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())))),
    };
  } catch (e) {
    for (const c of clients) c.disconnect();
    throw e;
  }
}

export const peerName = (peer: Peer, pipelining: boolean): string => (pipelining ? `${peer.name}+ap` : peer.name);

/** redlock@4 ships no types: the part of its API the bench uses. */
interface RedlockV4 {
  lock(resource: string, ttl: number): Promise<unknown>;
  unlock(lock: unknown): Promise<void>;
}
type RedlockV4Ctor = new (clients: Redis[], options: Record<string, number>) => RedlockV4;

const redlock4: Peer = {
  name: 'redlock@4',
  open(clients, s) {
    const Ctor = require('redlock') as RedlockV4Ctor; // untyped: see RedlockV4
    // retryCount -1 is "forever"; 0 would silently mean the default 10 (`||` in its source).
    const rl = new Ctor(clients, { retryCount: -1, retryDelay: s.retryDelayMs, retryJitter: 0 });
    return { acquire: (resource) => rl.lock(resource, s.ttlMs), release: (lock) => rl.unlock(lock) };
  },
};

/** redlock 5.0.0-beta.2 and its maintained fork share one API: the part the bench uses. */
interface Redlock5Like {
  acquire(resources: string[], duration: number): Promise<unknown>;
  release(lock: never): Promise<unknown>;
}
type Redlock5Ctor = new (clients: Redis[], settings: { retryCount: number; retryDelay: number; retryJitter: number }) => Redlock5Like;

const redlock5Like = (name: string, Ctor: Redlock5Ctor): Peer => ({
  name,
  open(clients, s) {
    const rl = new Ctor(clients, { retryCount: -1, retryDelay: s.retryDelayMs, retryJitter: 0 });
    return {
      acquire: (resource) => rl.acquire([resource], s.ttlMs),
      release: async (lock) => void (await rl.release(lock as never)),
    };
  },
});

const universal: Peer = {
  name: 'redlock-universal',
  open(clients, s) {
    const adapters = clients.map((c) => new IoredisAdapter(c));
    // One lock object per key is this library's model: made on first use (in the warm-up).
    const locks = new Map<string, UniversalLock>();
    const lockFor = (key: string): UniversalLock => {
      let l = locks.get(key);
      if (!l) locks.set(key, (l = createRedlock({ adapters, key, ttl: s.ttlMs, retryAttempts: MANY, retryDelay: s.retryDelayMs })));
      return l;
    };
    return {
      acquire: async (resource) => {
        const lock = lockFor(resource);
        return { lock, handle: await lock.acquire() };
      },
      release: async (h) => {
        const { lock, handle } = h as { lock: UniversalLock; handle: LockHandle };
        await lock.release(handle);
      },
    };
  },
};

const semaphore: Peer = {
  name: 'redis-semaphore',
  open(clients, s) {
    // A mutex object carries its token, so one per acquisition (as in its README). No
    // auto-refresh: none of the others extends in the background either.
    const options = {
      lockTimeout: s.ttlMs,
      acquireTimeout: 3_600_000,
      acquireAttemptsLimit: Number.POSITIVE_INFINITY,
      retryInterval: s.retryDelayMs,
      refreshInterval: 0,
    };
    return {
      acquire: async (resource) => {
        const m = new RedlockMutex(clients, resource, options);
        await m.acquire();
        return m;
      },
      release: (m) => (m as RedlockMutex).release(),
    };
  },
};

export const PEERS: readonly Peer[] = [
  redlock4,
  redlock5Like('redlock@5-beta', RedlockV5),
  redlock5Like('@sesamecare-oss/redlock', SesameRedlock),
  universal,
  semaphore,
];
