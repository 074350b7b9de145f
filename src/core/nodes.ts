// One ioredis client per configured node. Lock writes must fail fast and never come
// back as ghosts: no offline queue, no resend of unfulfilled commands, and every call
// gets its own deadline (ioredis' commandTimeout is per client, not per call).
import Redis, { Cluster, RedisOptions, ReplyError } from 'ioredis';
import { formatHostPort, NodeConfigError, NodeSpec, parseNodeUrl } from './urls';
import { seedIds, trackNodeErrors, waitClusterReady } from './clusterTopology';
import { clusterMembers } from './clusterMembers';
import { checkTls, connectionOptions, plainOnTlsReason, plainOnTlsSettled, TlsSettings, watchPlainOnTls } from './tls';

/** A URL, a URL with a name and TLS settings of its own, or a client the caller owns. */
export type NodeInput = string | { name?: string; url: string; tls?: TlsSettings } | Redis | Cluster;

export interface NodeSetOptions {
  connectTimeoutMs?: number;
  /** Used when a URL carries no password (e.g. REDLOCK_PASSWORD). */
  defaultPassword?: string;
  /** TLS settings for every TLS node that has none of its own (a private CA, a client certificate). */
  tls?: TlsSettings;
}

export type FailureOutcome = 'timeout' | 'refused' | 'auth' | 'wrong-type';

export class DeadlineError extends Error {
  override name = 'DeadlineError';
  constructor(readonly ms: number) {
    super(`no answer within ${ms} ms`);
  }
}

/** Maps any failure of a node call to the contract's outcome words and a safe reason. */
export interface Failure {
  outcome: FailureOutcome;
  reason: string;
  /** The node replied (e.g. NOPERM, READONLY): it answered, it refused. */
  answered: boolean;
}

export function describeFailure(err: unknown, node?: RedisNode): Failure {
  const f = describe(err, node);
  // instanceof, not err.name: a minified bundle renames classes.
  // A LOADING node answers but cannot serve yet: as good as out of reach.
  const replied = err instanceof ReplyError && f.outcome !== 'auth' && !/^(LOADING|CLUSTERDOWN)/.test(f.reason);
  return { ...f, answered: replied || f.outcome === 'wrong-type' };
}

function describe(err: unknown, node?: RedisNode): { outcome: FailureOutcome; reason: string } {
  if (err instanceof DeadlineError) return { outcome: 'timeout', reason: err.message };
  const plainOnTls = err instanceof ReplyError ? undefined : plainOnTlsReason(node);
  if (plainOnTls) return { outcome: 'refused', reason: plainOnTls };
  let message = err instanceof Error ? err.message : String(err);
  // A command on a dead connection only says "not writeable"; the connection's own
  // last error (ECONNREFUSED, WRONGPASS, ...) is what the user needs.
  if (/Stream isn't writeable|Connection is closed|enableOfflineQueue/i.test(message) && node?.lastError) {
    message = node.lastError;
  }
  if (/NOAUTH|WRONGPASS|invalid username-password|AUTH failed|invalid password/i.test(message)) {
    return { outcome: 'auth', reason: firstLine(message) };
  }
  if (/WRONGTYPE/.test(message)) return { outcome: 'wrong-type', reason: firstLine(message) };
  if (/Stream isn't writeable|Connection is closed|enableOfflineQueue/i.test(message)) {
    return { outcome: 'refused', reason: 'not connected' };
  }
  if (/^MOVED|^ASK/.test(message)) {
    return { outcome: 'refused', reason: `${firstLine(message)} (this node is part of a Redis Cluster: use redis+cluster://)` };
  }
  if (/^READONLY/.test(message)) return { outcome: 'refused', reason: `${firstLine(message)} (a replica: point at the master)` };
  if (/^LOADING/.test(message)) return { outcome: 'refused', reason: `${firstLine(message)} (the node is starting: try again when it has loaded)` };
  return { outcome: 'refused', reason: firstLine(message) };
}

function firstLine(s: string): string {
  const line = s.split('\n')[0];
  return line.length > 300 ? line.slice(0, 300) + '…' : line;
}

function retryStrategy(times: number): number {
  return Math.min(50 * 2 ** Math.min(times, 6), 2000);
}

function clientOptions(spec: NodeSpec, connectTimeoutMs: number, tls?: TlsSettings): RedisOptions {
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
  };
}

/** Well below the overall wait, so at least a second sentinel is asked in time. */
export function sentinelTimeout(connectTimeoutMs: number): number {
  return Math.max(100, Math.min(500, Math.floor(connectTimeoutMs / 4)));
}

function createClient(spec: NodeSpec, connectTimeoutMs: number, tls?: TlsSettings): Redis | Cluster {
  const base = clientOptions(spec, connectTimeoutMs, tls);
  if (spec.kind === 'standalone') return new Redis({ ...base, host: spec.host, port: spec.port, db: spec.db });
  if (spec.kind === 'sentinel') {
    return new Redis({
      ...base,
      sentinels: spec.sentinels,
      name: spec.masterName,
      db: spec.db,
      sentinelUsername: spec.username,
      sentinelPassword: spec.password,
      sentinelRetryStrategy: retryStrategy,
      // A hung sentinel (paused, overloaded) accepts the connection and never answers:
      // each one gets a short deadline so the next one is asked within the overall wait.
      sentinelCommandTimeout: sentinelTimeout(connectTimeoutMs),
      enableTLSForSentinelMode: spec.tls,
    });
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
    redisOptions: (({ enableOfflineQueue: _q, retryStrategy: _r, ...rest }) => rest)(base),
  });
  trackNodeErrors(cluster);
  return cluster;
}

function idOfClient(client: Redis | Cluster): string {
  if (client instanceof Cluster) return seedIds(client).join(',') || 'cluster';
  const o = client.options;
  if (o.sentinels && o.name) return o.name;
  if (o.path) return o.path;
  return formatHostPort({ host: o.host ?? '127.0.0.1', port: o.port ?? 6379 }) + (o.db ? `/${o.db}` : '');
}

/** A plain standalone node checks its first exchange, so a TLS-only port is named as such. */
function plainWatched(node: RedisNode, connectTimeoutMs: number): RedisNode {
  const spec = node.spec;
  if (spec?.kind === 'standalone' && !spec.tls) watchPlainOnTls(node, node.client as Redis, spec.host, spec.port, Math.min(1000, connectTimeoutMs));
  return node;
}

function trackedClient(client: Redis | Cluster): Redis | Cluster {
  if (client instanceof Cluster) trackNodeErrors(client);
  return client;
}

export class RedisNode {
  lastError: string | null = null;
  latencyMs: number | null = null;

  constructor(
    readonly id: string,
    readonly client: Redis | Cluster,
    /** Clients the caller passed in are never closed by us. */
    readonly owned: boolean,
    readonly spec?: NodeSpec,
    /** A master inside a Redis Cluster: scripts may only touch keys of one slot there. */
    readonly clusterMember = false,
  ) {
    client.on('error', (e: Error) => {
      this.lastError = firstLine(e.message || String(e));
    });
    client.on('ready', () => {
      this.lastError = null;
    });
  }

  private corked = false;

  /**
   * Holds this node's socket writes until the end of the current tick, so the commands
   * that many concurrent callers send in one tick leave in one writev: the batching of
   * ioredis auto-pipelining without a Pipeline object per batch, without holding a lone
   * command back to the next event-loop turn, and without auto-pipelining's uncaught
   * TypeError when the connection is down. A Cluster routes per key: left alone.
   */
  cork(): void {
    if (this.corked || this.client instanceof Cluster) return;
    const stream = this.client.stream;
    if (!stream) return;
    this.corked = true;
    stream.cork();
    process.nextTick(() => {
      this.corked = false;
      stream.uncork();
    });
  }

  get isCluster(): boolean {
    return this.client instanceof Cluster;
  }

  get ready(): boolean {
    return this.client.status === 'ready';
  }

  /** Resolves when connected, or after `ms` whatever the state: callers then fail fast. */
  waitReady(ms: number): Promise<void> {
    if (this.client instanceof Cluster) return waitClusterReady(this.client, ms);
    if (this.ready || this.client.status === 'end') return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.client.off('ready', answered);
        this.client.off('end', done);
        this.client.off('error', answered);
        resolve();
      };
      // Once a reset has been explained (a plain connection to a TLS-only port).
      const answered = (): void => void plainOnTlsSettled(this).then(done);
      const timer = setTimeout(done, ms);
      this.client.once('ready', answered);
      this.client.once('end', done);
      // A refused or failed first connection is an answer too: fail fast, do not wait it out.
      this.client.once('error', answered);
    });
  }

  /**
   * The masters of a cluster's slot map, as nodes of their own (ids host:port); a master
   * without a connection is still listed, and fails every read with the reason.
   */
  clusterMasters(): RedisNode[] {
    if (!(this.client instanceof Cluster)) return [this];
    return clusterMembers(this.client).map((m) => m.node);
  }

  /** The string for messages: never carries credentials. */
  toString(): string {
    return this.id;
  }

  toJSON(): string {
    return this.id;
  }

  async close(): Promise<void> {
    if (!this.owned) return;
    const client = this.client;
    if (client.status === 'end') return;
    await Promise.race([client.quit().catch(() => undefined), new Promise((r) => setTimeout(r, 500).unref())]);
    client.disconnect();
  }
}

export function createNodes(inputs: readonly NodeInput[], options: NodeSetOptions = {}): RedisNode[] {
  const connectTimeoutMs = options.connectTimeoutMs ?? 2000;
  // Parse and check everything before opening a single connection.
  const specs = inputs.map((input) => {
    if (input instanceof Redis || input instanceof Cluster) return { id: idOfClient(input), client: input };
    const spec = typeof input === 'string'
      ? parseNodeUrl(input, undefined, options.defaultPassword)
      : parseNodeUrl(input.url, input.name, options.defaultPassword);
    const own = typeof input === 'string' ? undefined : input.tls;
    if (own && !spec.tls) throw new NodeConfigError(`${spec.id}: TLS settings given for a plain URL (use rediss://)`);
    if (own) checkTls(own);
    return { id: spec.id, spec, tls: own ?? options.tls };
  });
  if (options.tls) checkTls(options.tls);
  const seen = new Set<string>();
  for (const s of specs) {
    if (seen.has(s.id)) throw new NodeConfigError(`node ${s.id} is configured twice`);
    seen.add(s.id);
  }
  if (specs.length === 0) throw new NodeConfigError('no Redis node configured');
  const clusterAt = specs.findIndex((s) => ('spec' in s && s.spec?.kind === 'cluster') || ('client' in s && s.client instanceof Cluster));
  if (clusterAt >= 0 && specs.length > 1) {
    throw new NodeConfigError(`${specs[clusterAt].id}: a redis+cluster:// node cannot be combined with other nodes (a cluster shows each key on its owning master)`);
  }
  return specs.map((s) =>
    'client' in s && s.client
      ? new RedisNode(s.id, trackedClient(s.client), false)
      : plainWatched(new RedisNode(s.id, createClient(s.spec!, connectTimeoutMs, s.tls), true, s.spec), connectTimeoutMs),
  );
}
