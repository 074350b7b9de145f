// Making the ioredis client for one configured node: options that never resend a lock
// write, reconnect delays, TLS, sentinel and cluster settings.
import Redis, { Cluster, RedisOptions } from 'ioredis';
import { AUTH_FAILURE } from '../vocabulary/describe';
import { seedIds, trackNodeErrors } from './clusterTopology';
import { connectionOptions, TlsSettings } from './tls';
import { watchTlsRefusals } from './tlsRefusals';
import { formatHostPort, NodeSpec } from './urls';
const RETRY_MAX_MS = 2000;

export function retryStrategy(times: number): number {
  return Math.min(50 * 2 ** Math.min(times, 6), RETRY_MAX_MS);
}

/**
 * Reconnect delays for one client. A refused login waits the longest delay every time:
 * ioredis counts its retries from zero at each connection that comes up, and a login is
 * refused only after that, so the backoff alone would retry a wrong password several
 * times a second against the user's server (docs/deployments.md, "A wrong password").
 */
export function reconnects(): { retryStrategy: (times: number) => number; watch: (client: Redis) => Redis } {
  let refusedLogin = false;
  return {
    retryStrategy: (times) => (refusedLogin ? RETRY_MAX_MS : retryStrategy(times)),
    watch: (client) => {
      client.on('ready', () => (refusedLogin = false));
      client.on('error', (e: Error) => (refusedLogin = AUTH_FAILURE.test(e.message)));
      return client;
    },
  };
}

export function clientOptions(spec: NodeSpec, connectTimeoutMs: number, tls?: TlsSettings): RedisOptions {
  return {
    username: spec.username,
    password: spec.password,
    tls: spec.tls ? connectionOptions(tls) : undefined,
    connectTimeout: connectTimeoutMs,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    retryStrategy,
    // quit() on a node that refused the connection must not keep the process alive.
    disconnectTimeout: 200,
    // Without ioredis' ready check a node still LOADING says so (a LOADING reply with the
    // node named) instead of leaving the client silently "not connected".
    enableReadyCheck: false,
    lazyConnect: false,
    // No auto-pipelining: with the offline queue off, ioredis 5 throws an uncaught
    // TypeError from its auto-pipeline when the connection is down.
    enableAutoPipelining: false,
    // No CLIENT SETINFO at connect: with the ready check off, ioredis declares a
    // connection ready once those answer, even when its login was refused and the
    // connection already closed, and it then never reconnects (docs/deployments.md).
    // 'ready' then means connected; a node has answered once identify() knows its run_id.
    disableClientInfo: true,
  };
}

/** Well below the overall wait, so at least a second sentinel is asked in time. */
export function sentinelTimeout(connectTimeoutMs: number): number {
  return Math.max(100, Math.min(500, Math.floor(connectTimeoutMs / 4)));
}

export function createClient(spec: NodeSpec, connectTimeoutMs: number, tls?: TlsSettings): Redis | Cluster {
  const base = clientOptions(spec, connectTimeoutMs, tls);
  const retry = reconnects();
  if (spec.kind === 'standalone') return retry.watch(new Redis({ ...base, retryStrategy: retry.retryStrategy, host: spec.host, port: spec.port, db: spec.db }));
  if (spec.kind === 'sentinel') {
    const client = retry.watch(new Redis({
      ...base,
      retryStrategy: retry.retryStrategy,
      sentinels: spec.sentinels,
      name: spec.masterName,
      db: spec.db,
      sentinelUsername: spec.username,
      sentinelPassword: spec.password,
      sentinelRetryStrategy: retryStrategy,
      // A hung sentinel (paused, overloaded) accepts the connection and never answers:
      // each one gets a short deadline so the next one is asked within the overall wait.
      sentinelCommandTimeout: sentinelTimeout(connectTimeoutMs),
      // rediss+sentinel:// encrypts both legs with the same settings: the sentinels
      // (sentinelTLS) and the master they name (enableTLSForSentinelMode applies `tls`),
      // as a deployment with `tls-replication yes` runs them (docs/deployments.md, "TLS").
      enableTLSForSentinelMode: spec.tls,
      sentinelTLS: base.tls,
    }));
    if (base.tls) watchTlsRefusals(client, spec.sentinels, base.tls, Math.min(1000, connectTimeoutMs), /All sentinels are unreachable/);
    return client;
  }
  const cluster = new Cluster(spec.seeds, {
    enableOfflineQueue: false,
    clusterRetryStrategy: retryStrategy,
    // ioredis' own readiness probe goes to a random member while the others still
    // connect, and with the offline queue off it fails and reconnects, again and again:
    // waitClusterReady waits for the slot map and the member connections instead.
    enableReadyCheck: false,
    // ioredis would resend a command on its own after CLUSTERDOWN or a dropped member
    // connection, later, past our per-call deadline: a lock written after its caller gave
    // up. The honest answer now is better (docs/deployments.md).
    retryDelayOnClusterDown: 0,
    retryDelayOnFailover: 0,
    // rediss+cluster://: `tls` in redisOptions applies to the seeds and to every member
    // the slot map names; with `tls-cluster yes` that map lists the TLS ports
    // (docs/deployments.md, "TLS").
    redisOptions: (({ enableOfflineQueue: _q, retryStrategy: _r, ...rest }) => rest)(base),
  });
  trackNodeErrors(cluster);
  if (base.tls) watchTlsRefusals(cluster, spec.seeds, base.tls, Math.min(1000, connectTimeoutMs), /Failed to refresh slots cache/);
  return cluster;
}

export function idOfClient(client: Redis | Cluster): string {
  if (client instanceof Cluster) return seedIds(client).join(',') || 'cluster';
  const o = client.options;
  if (o.sentinels && o.name) return o.name;
  if (o.path) return o.path;
  return formatHostPort({ host: o.host ?? '127.0.0.1', port: o.port ?? 6379 }) + (o.db ? `/${o.db}` : '');
}

export function trackedClient(client: Redis | Cluster): Redis | Cluster {
  if (client instanceof Cluster) trackNodeErrors(client);
  return client;
}
