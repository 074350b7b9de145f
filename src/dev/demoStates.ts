// Realistic lock states on 5 nodes, for `npm run demo:nodes`, tests and the extension demo.
// Each key tells its story in its name and matches the default pattern `*lock*`. The
// background workers keep the living states alive; stop() ends them (never the servers).
// Only a type is imported from redisServer: requiring this file must not install the
// harness's signal handlers in a process that merely seeds someone else's nodes.
import { randomBytes, randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { Redlock } from '../core';
import type { RedisServer } from './redisServer';

/** A harness server, a URL, or a client the caller owns (never closed here). */
export type DemoNode = RedisServer | string | Redis;

export interface DemoOptions {
  /** Put before every key, e.g. 'tenant-a:' to seed twice on the same nodes. */
  prefix?: string;
  /** Worker errors (a node went away, ...); silent by default. */
  log?: (message: string) => void;
}

export interface DemoStates {
  /** Stops every worker and closes every connection opened here; idempotent. */
  stop(): Promise<void>;
  /** State name -> key name (see DEMO_STORIES). */
  keys: Record<DemoState, string>;
}

export type DemoState =
  | 'healthy' | 'split' | 'partial' | 'noTtl' | 'ttlSkew' | 'reentrant' | 'readWrite'
  | 'semaphore' | 'expiring' | 'list' | 'settings' | 'blob';

/** What the inspector should show for each state on 5 nodes (printed by the demo). */
export const DEMO_STORIES: Record<DemoState, { key: string; expect: string }> = {
  healthy: { key: 'lock:healthy:invoices', expect: 'held 5/5, kept alive by a worker in redlock.using()' },
  split: { key: 'lock:split:payments', expect: 'split 2+2/5: two holders after a partition' },
  partial: { key: 'lock:partial:report-export', expect: 'partial 2/5: leftover of a failed acquisition' },
  noTtl: { key: 'lock:no-ttl:nightly-cleanup', expect: 'held 3/5 · no TTL: crash between SETNX and EXPIRE' },
  ttlSkew: { key: 'lock:ttl-skew:cache-rebuild', expect: 'held 5/5, ttl-skew: expiries 5 s apart per node' },
  reentrant: { key: 'lock:redisson:inventory', expect: 'held 3/5, reentrant: Redisson RLock, hold count 2, watchdog' },
  readWrite: { key: 'lock:redisson-rw:catalog', expect: 'held 3/5: Redisson read lock, mode=read, two readers' },
  semaphore: { key: 'semaphore:reports-lock', expect: 'held 5/5: redis-semaphore, 2 holders of 3 permits' },
  expiring: { key: 'lock:expiring:email-digest', expect: 'held 5/5, expiring: extended at the last moment' },
  list: { key: 'lock:stats', expect: 'skipped (wrong-type): a list, not a lock' },
  settings: { key: 'lockout:config', expect: 'skipped (unrecognised-hash): login-lockout settings' },
  blob: { key: 'lock:blob', expect: 'skipped (too-large): a 1 KB string' },
};

const HEALTHY_TTL_MS = 10_000;
const PARTIAL_TTL_MS = 5 * 60_000;
const SPLIT_TTL_MS = 10 * 60_000;
const SKEW_TTL_MS = 5 * 60_000;
/** Per node: well over the inspector's drift allowance (1% of 5 min + 2 ms = 3 s). */
const SKEW_STEP_MS = 5_000;
/** Redisson's default lockWatchdogTimeout, renewed every third of it. */
const REDISSON_LEASE_MS = 30_000;
const WATCHDOG_EVERY_MS = 10_000;
/** Below the default 2 s threshold ~75% of the time, and never gone between renewals. */
const EXPIRING_TTL_MS = 2_500;
const EXPIRING_EVERY_MS = 2_000;

// Redisson's renewExpiration: only a hash that still has our holder is renewed, so a
// force-release made during the demo sticks.
const RENEW_HASH = `if redis.call('hexists', KEYS[1], ARGV[1]) == 1 then
  return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0`;
// redis-semaphore's refresh: bump our holders' scores (XX: never re-add) and the expiry.
const REFRESH_ZSET = `local n = 0
for i = 2, #ARGV do n = n + redis.call('zadd', KEYS[1], 'XX', 'CH', ARGV[1], ARGV[i]) end
if redis.call('exists', KEYS[1]) == 1 then redis.call('pexpire', KEYS[1], ${REDISSON_LEASE_MS}) end
return n`;
// Static leftovers keep their seeded TTL while the demo runs, unless their token changed.
const RENEW_STRING = `if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0`;

const hexToken = (): string => randomBytes(16).toString('hex');
const redissonHolder = (threadId: number): string => `${randomUUID()}:${threadId}`;

function isServer(n: DemoNode): n is RedisServer {
  return typeof n === 'object' && !(n instanceof Redis) && typeof (n as RedisServer).client === 'function';
}

/** Runs fn `ms` from now, then `ms` after each run ends (no overlap); stop() awaits the run in flight. */
function every(ms: number, fn: () => Promise<void>, log: (m: string) => void): { stop(): Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const tick = (): void => {
    running = fn().catch((e: Error) => log(`demo worker: ${e.message}`)).finally(() => {
      if (!stopped) timer = setTimeout(tick, ms);
    });
  };
  timer = setTimeout(tick, ms);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

export async function seedDemoStates(nodes: readonly DemoNode[], options: DemoOptions = {}): Promise<DemoStates> {
  if (nodes.length < 5) throw new RangeError(`the demo states need 5 nodes, got ${nodes.length}`);
  const log = options.log ?? ((): void => undefined);
  const prefix = options.prefix ?? '';
  const keys = Object.fromEntries(
    Object.entries(DEMO_STORIES).map(([name, s]) => [name, prefix + s.key]),
  ) as Record<DemoState, string>;

  // One raw client per node for seeding and renewals; ours are closed by stop().
  const owned: Redis[] = [];
  const clients = nodes.map((n) => {
    if (n instanceof Redis) return n;
    const c = isServer(n) ? n.client() : new Redis(n, { maxRetriesPerRequest: 1 });
    c.on('error', () => undefined);
    owned.push(c);
    return c;
  });
  const all = clients.map((_, i) => i);

  const t = {
    splitA: hexToken(), splitB: hexToken(), partial: hexToken(), noTtl: hexToken(), skew: hexToken(),
    expiring: hexToken(), reentrant: redissonHolder(57), readers: [redissonHolder(81), redissonHolder(82)],
    permits: [randomUUID(), randomUUID()],
  };
  // [key, node indexes, expected TTL per node index] for the static string leftovers.
  const leftovers: Array<[string, string, number[], (i: number) => number]> = [
    [keys.split, t.splitA, [0, 1], () => SPLIT_TTL_MS],
    [keys.split, t.splitB, [2, 3], () => SPLIT_TTL_MS],
    [keys.partial, t.partial, [0, 1], () => PARTIAL_TTL_MS],
    [keys.ttlSkew, t.skew, all, (i) => SKEW_TTL_MS + i * SKEW_STEP_MS],
  ];
  const REENTRANT_ON = [1, 2, 3];
  const READERS_ON = [2, 3, 4];
  const NO_TTL_ON = [0, 1, 2];

  // One absolute expiry for every copy (PXAT, Redis 6.2+), as a careful extender sets it:
  // copies written a few ms apart with PX expire that far apart, and on a loaded machine
  // that crossed the drift allowance and the demo's lock turned `ttl-skew` for a tick.
  const expiringAt = Date.now() + EXPIRING_TTL_MS;
  const seedNode = async (c: Redis, i: number): Promise<void> => {
    const m = c.multi();
    m.del(...Object.values(keys).filter((k) => k !== keys.healthy));
    for (const [key, token, on, ttl] of leftovers) if (on.includes(i)) m.set(key, token, 'PX', ttl(i));
    if (NO_TTL_ON.includes(i)) m.set(keys.noTtl, t.noTtl); // the EXPIRE never came
    if (REENTRANT_ON.includes(i)) {
      m.hset(keys.reentrant, t.reentrant, 2).pexpire(keys.reentrant, REDISSON_LEASE_MS);
    }
    if (READERS_ON.includes(i)) {
      // Real Redisson also writes `{name}:<holder>:rwlock_timeout:1` keys; left out so
      // the tree shows one entry per lock.
      m.hset(keys.readWrite, 'mode', 'read', t.readers[0], 1, t.readers[1], 1).pexpire(keys.readWrite, REDISSON_LEASE_MS);
    }
    const now = Date.now();
    m.zadd(keys.semaphore, now, t.permits[0], now, t.permits[1]).pexpire(keys.semaphore, REDISSON_LEASE_MS);
    m.set(keys.expiring, t.expiring, 'PXAT', expiringAt);
    m.rpush(keys.list, 'acquired=1841', 'released=1839', 'timeouts=2');
    m.hset(keys.settings, 'maxAttempts', 5, 'windowSeconds', 900, 'lockoutSeconds', 1800);
    m.set(keys.blob, 'x'.repeat(1024));
    await m.exec();
  };

  const workers: Array<{ stop(): Promise<void> }> = [];
  // The worker's holder name, as a service would set it (the default would name the
  // demo's script, not the service it plays).
  // It records its events, as a service would with { events: true }: history, audit and
  // status --stats read them.
  const redlock = new Redlock(nodes.map((n) => (isServer(n) ? n.url : n)), { retryCount: 3, holderName: 'invoice-worker', events: true });
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      await Promise.all(workers.map((w) => w.stop()));
      await redlock.quit();
      for (const c of owned) c.disconnect();
    })());

  try {
    await Promise.all(clients.map(seedNode));
    const healthy = healthyWorker(redlock, keys.healthy, log);
    workers.push(healthy);
    workers.push(
      every(EXPIRING_EVERY_MS, async () => {
        const at = Date.now() + EXPIRING_TTL_MS;
        await Promise.all(clients.map((c) => c.set(keys.expiring, t.expiring, 'PXAT', at)));
      }, log),
      every(WATCHDOG_EVERY_MS, async () => {
        await Promise.all(clients.map(async (c, i) => {
          if (REENTRANT_ON.includes(i)) await c.eval(RENEW_HASH, 1, keys.reentrant, t.reentrant, REDISSON_LEASE_MS);
          if (READERS_ON.includes(i)) await c.eval(RENEW_HASH, 1, keys.readWrite, t.readers[0], REDISSON_LEASE_MS);
          await c.eval(REFRESH_ZSET, 1, keys.semaphore, Date.now(), ...t.permits);
          for (const [key, token, on, ttl] of leftovers) {
            if (on.includes(i)) await c.eval(RENEW_STRING, 1, key, token, ttl(i));
          }
        }));
      }, log),
    );
    await healthy.firstHeld;
  } catch (e) {
    await stop();
    throw e;
  }
  return { stop, keys };
}

/**
 * A service that takes the lock with redlock.using() and works until the demo stops,
 * auto-extended all along: one holder whose TTL is renewed, never a new holder (were the
 * lock lost, it takes it again after a second).
 */
function healthyWorker(redlock: Redlock, key: string, log: (m: string) => void) {
  const stopper = new AbortController();
  let markHeld!: () => void;
  let failFirst!: (e: Error) => void;
  const firstHeld = new Promise<void>((resolve, reject) => {
    markHeld = resolve;
    failFirst = reject;
  });
  const pause = (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        stopper.signal.removeEventListener('abort', done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      stopper.signal.addEventListener('abort', done);
      signal?.addEventListener('abort', done);
    });
  const loop = (async () => {
    let first = true;
    while (!stopper.signal.aborted) {
      try {
        await redlock.using(key, HEALTHY_TTL_MS, async (signal) => {
          markHeld();
          await pause(2 ** 31 - 1, signal); // the longest timer: until stopped, in practice
        }, { signal: stopper.signal });
      } catch (e) {
        if (stopper.signal.aborted) break;
        if (first) failFirst(e as Error);
        log(`demo worker ${key}: ${(e as Error).message}`);
        await pause(1000);
      }
      first = false;
    }
  })();
  return {
    firstHeld,
    async stop() {
      stopper.abort();
      await loop;
    },
  };
}
