// Every Redlock implementation under test behind one tiny interface, each with its own
// ioredis clients on the same nodes and the same TTL and retry policy. The retry policy
// is the one all of them can express: a fixed delay, no jitter (redlock-universal and
// redis-semaphore have none), retries until the lock is won.
import Redis, { RedisOptions } from 'ioredis';
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

/**
 * A peer on its own ioredis clients. Auto-pipelining speeds up many concurrent callers
 * and slows down a lone one, so each peer may run once with each setting and so count
 * at its best: its name ends in `+ap` when it is on.
 */
export type PeerFactory = (s: LibSettings, pipelining: boolean) => Promise<LockLib>;

const peerName = (name: string, pipelining: boolean): string => (pipelining ? `${name}+ap` : name);

/** Unlimited where the library allows it; redlock-universal wants an integer. */
const MANY = 1_000_000;

/** redlock@4 ships no types: the part of its API the bench uses. */
interface RedlockV4 {
  lock(resource: string, ttl: number): Promise<unknown>;
  unlock(lock: unknown): Promise<void>;
}
type RedlockV4Ctor = new (clients: Redis[], options: Record<string, number>) => RedlockV4;

async function connect(s: LibSettings, pipelining: boolean): Promise<Redis[]> {
  const options: RedisOptions = { enableAutoPipelining: pipelining, maxRetriesPerRequest: 0 };
  const clients = s.nodes.map((n) => new Redis({ ...options, host: n.host, port: n.port }));
  await Promise.all(clients.map((c) => (c.status === 'ready' ? undefined : new Promise((r) => c.once('ready', r)))));
  return clients;
}

async function quitAll(clients: Redis[]): Promise<void> {
  await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
}

/** Our core, built from URLs like the CLI and extension do (its own client options). */
export async function ours(s: LibSettings, name = 'ours', coreModule: typeof core = core): Promise<LockLib> {
  const rl = new coreModule.Redlock(s.nodes.map((n) => `redis://${n.host}:${n.port}`), {
    retryCount: MANY,
    retryDelayMs: s.retryDelayMs,
    retryJitterMs: 0,
  });
  await rl.acquire(`bench:${name}:connect`, 1000).then((l) => rl.release(l));
  return {
    name,
    acquire: (resource) => rl.acquire(resource, s.ttlMs),
    release: async (lock) => void (await rl.release(lock as core.Lock)),
    close: () => rl.quit(),
  };
}

export const redlock4: PeerFactory = async (s, pipelining) => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Ctor = require('redlock') as RedlockV4Ctor;
  const clients = await connect(s, pipelining);
  // retryCount -1 is "forever"; 0 would silently mean the default 10 (`||` in its source).
  const rl = new Ctor(clients, { retryCount: -1, retryDelay: s.retryDelayMs, retryJitter: 0 });
  return {
    name: peerName('redlock@4', pipelining),
    acquire: (resource) => rl.lock(resource, s.ttlMs),
    release: (lock) => rl.unlock(lock),
    close: () => quitAll(clients),
  };
};

/** redlock 5.0.0-beta.2 and its maintained fork share one API: the part the bench uses. */
interface Redlock5Like {
  acquire(resources: string[], duration: number): Promise<unknown>;
  release(lock: never): Promise<unknown>;
}
type Redlock5Ctor = new (clients: Redis[], settings: { retryCount: number; retryDelay: number; retryJitter: number }) => Redlock5Like;

async function redlock5Like(name: string, Ctor: Redlock5Ctor, s: LibSettings, pipelining: boolean): Promise<LockLib> {
  const clients = await connect(s, pipelining);
  const rl = new Ctor(clients, { retryCount: -1, retryDelay: s.retryDelayMs, retryJitter: 0 });
  return {
    name: peerName(name, pipelining),
    acquire: (resource) => rl.acquire([resource], s.ttlMs),
    release: async (lock) => void (await rl.release(lock as never)),
    close: () => quitAll(clients),
  };
}

export const redlock5: PeerFactory = (s, p) => redlock5Like('redlock@5-beta', RedlockV5, s, p);
export const sesame: PeerFactory = (s, p) => redlock5Like('@sesamecare-oss/redlock', SesameRedlock, s, p);

export const universal: PeerFactory = async (s, pipelining) => {
  const clients = await connect(s, pipelining);
  const adapters = clients.map((c) => new IoredisAdapter(c));
  // One lock object per key is this library's model: built on first use (in the warm-up).
  const locks = new Map<string, UniversalLock>();
  const lockFor = (key: string): UniversalLock => {
    let l = locks.get(key);
    if (!l) {
      l = createRedlock({ adapters, key, ttl: s.ttlMs, retryAttempts: MANY, retryDelay: s.retryDelayMs });
      locks.set(key, l);
    }
    return l;
  };
  return {
    name: peerName('redlock-universal', pipelining),
    acquire: async (resource) => {
      const lock = lockFor(resource);
      return { lock, handle: await lock.acquire() };
    },
    release: async (h) => {
      const { lock, handle } = h as { lock: UniversalLock; handle: LockHandle };
      await lock.release(handle);
    },
    close: () => quitAll(clients),
  };
};

export const semaphore: PeerFactory = async (s, pipelining) => {
  const clients = await connect(s, pipelining);
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
    name: peerName('redis-semaphore', pipelining),
    acquire: async (resource) => {
      const m = new RedlockMutex(clients, resource, options);
      await m.acquire();
      return m;
    },
    release: (m) => (m as RedlockMutex).release(),
    close: () => quitAll(clients),
  };
};

export const PEERS: readonly PeerFactory[] = [redlock4, redlock5, sesame, universal, semaphore];
