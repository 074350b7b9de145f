// One ioredis client per configured node. Lock writes must fail fast and never come
// back as ghosts: no offline queue, no resend of unfulfilled commands, and every call
// gets its own deadline (ioredis' commandTimeout is per client, not per call).
import { performance } from 'node:perf_hooks';
import Redis, { Cluster, ReplyError } from 'ioredis';
import { classifyFailure, Failure, firstLine, FOREIGN_PROTOCOL, nodeOutcome } from './replies';

/** How a connection that the peer closed or reset fails: after another protocol, no news. */
const CONNECTION_DROPPED = /ECONNRESET|EPIPE|Connection is closed/;
import { unsupportedLine } from './capabilities';
import type { ClockSample } from './clockOffset';
import type { NodeStatus } from '../vocabulary/types';
import { aliasError, checkConfiguredAliases, hostPortKey, runIdOf } from './identity';
import { NodeConfigError, NodeSpec, parseNodeUrl } from './urls';
import { waitClusterReady } from './clusterTopology';
import { tlsRefusal, tlsRefusalSettled } from './tlsRefusals';
import { createClient, idOfClient, trackedClient } from './clients';
import { nameConnections } from './connectionName';
export { sentinelTimeout } from './clients';
import { checkTls, plainOnTlsReason, plainOnTlsSettled, TlsSettings, watchPlainOnTls } from './tls';

/** A URL, a URL with a name and TLS settings of its own, or a client the caller owns. */
export type NodeInput = string | { name?: string; url: string; tls?: TlsSettings } | Redis | Cluster;

export interface NodeSetOptions {
  connectTimeoutMs?: number;
  /** Used when a URL carries no password (e.g. REDLOCK_PASSWORD). */
  defaultPassword?: string;
  /** TLS settings for every TLS node that has none of its own (a private CA, a client certificate). */
  tls?: TlsSettings;
  /** CLIENT SETNAME for the connections this set opens (connectionName.ts); never for a client given. */
  connectionName?: string;
}

export { DeadlineError, firstLine } from './replies';
import { DeadlineError } from './replies';
export type { Failure, FailureOutcome } from './replies';

/** Maps any failure of a node call to the contract's outcome words and a safe reason. */
export function describeFailure(err: unknown, node?: RedisNode): Failure {
  // A plain connection that a TLS-only port reset: say so instead of ECONNRESET.
  const plainOnTls = err instanceof ReplyError || err instanceof DeadlineError ? undefined : plainOnTlsReason(node);
  if (plainOnTls) return { outcome: 'refused', reason: plainOnTls, answered: false };
  // TLS seeds or sentinels that refuse the handshake: its words, not "not connected".
  const refusal = err instanceof ReplyError ? undefined : tlsRefusal(node?.client);
  if (refusal) return { outcome: 'refused', reason: refusal, answered: false };
  return classifyFailure(err, node);
}

/** What a node status becomes when a read failed: not reachable, the reason, and its outcome. */
export function downStatus(err: unknown, node?: RedisNode): Pick<NodeStatus, 'reachable' | 'error' | 'outcome'> {
  // It answered: never "unreachable", and the line names what it cannot do.
  const unsupported = unsupportedLine(err, node?.client);
  if (unsupported !== null) return { reachable: true, error: unsupported, outcome: 'unsupported' };
  const f = describeFailure(err, node);
  return { reachable: false, error: f.reason, outcome: nodeOutcome(f) };
}

/** A plain standalone node checks its first exchange, so a TLS-only port is named as such. */
function plainWatched(node: RedisNode, connectTimeoutMs: number): RedisNode {
  const spec = node.spec;
  if (spec?.kind === 'standalone' && !spec.tls) watchPlainOnTls(node, node.client as Redis, spec.host, spec.port, Math.min(1000, connectTimeoutMs));
  return node;
}


/**
 * Lock rounds (one command per node, see redlock.ts) started and not yet decided, in the
 * whole process: while one is open, other callers may write in the same tick, so a new
 * round's writes are worth corking.
 */
export const lockRounds = { undecided: 0 };

/** Run ids learnt or forgotten, by any node of the process: a set checked since none changed needs no new check. */
const identities = { changes: 0 };
const checkedAt = new WeakMap<readonly RedisNode[], number>();

export class RedisNode {
  lastError: string | null = null;
  latencyMs: number | null = null;
  private knownRunId: string | null = null;
  /** The server's INFO run_id once known; forgotten at every disconnect, asked again at every connect. */
  get runId(): string | null {
    return this.knownRunId;
  }
  set runId(id: string | null) {
    if (id !== this.knownRunId) identities.changes++;
    this.knownRunId = id;
  }
  /** The best clock offset this connection measured (clockOffset.ts); forgotten with the connection. */
  clock: ClockSample | null = null;
  /** Set when the user may not run INFO: identity then rests on the host:port check alone. */
  identityWarning: string | null = null;
  /** The other entries of this node set, to tell whether this one reaches a server already counted. */
  peers: readonly RedisNode[] = [];
  /** How long the INFO probe may take. */
  probeTimeoutMs = 2000;
  private identifying: Promise<void> | undefined;
  private probeError: Error | undefined;
  /** Lock commands sent and not answered yet (a round's deadline does not cancel them). */
  inflight = 0;
  private drainWaiters: Array<() => void> = [];

  /** @internal called as each lock command answers. */
  settleOne(): void {
    if (--this.inflight === 0 && this.drainWaiters.length) {
      for (const w of this.drainWaiters.splice(0)) w();
    }
  }

  /** Resolves when no lock command is in flight on this node, or after `ms`. */
  drained(ms: number): Promise<void> {
    if (this.inflight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref();
      this.drainWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

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
      const line = firstLine(e.message || String(e));
      // A peer that spoke another protocol then hung up: the protocol is the news, not the reset.
      if (this.lastError !== null && FOREIGN_PROTOCOL.test(this.lastError) && CONNECTION_DROPPED.test(line)) return;
      this.lastError = line;
    });
    client.on('ready', () => {
      this.lastError = null;
      void this.identify();
    });
    // A reconnect may reach another server (a failover, a moved address): ask again.
    client.on('close', () => {
      this.runId = null;
      this.clock = null;
    });
    if (client.status === 'ready') void this.identify();
  }

  /**
   * Known to count as one server: its run_id is known, or the user may not run INFO (the
   * host:port check then stands alone), or it is a cluster (one master per key).
   */
  get identified(): boolean {
    return this.runId !== null || this.identityWarning !== null || this.isCluster || this.clusterMember;
  }

  /** Asks the server who it is (INFO server), once per connection; shared by concurrent callers. */
  identify(): Promise<void> {
    if (this.identified || this.client.status !== 'ready') return Promise.resolve();
    if (this.identifying) return this.identifying;
    let timer: NodeJS.Timeout | undefined;
    const probe = (this.client as Redis).info('server');
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DeadlineError(this.probeTimeoutMs)), this.probeTimeoutMs);
    });
    this.identifying = Promise.race([probe, timeout]).then(
      (info) => {
        this.probeError = undefined;
        this.runId = runIdOf(info);
        if (this.runId === null) this.identityWarning = `${this.id}: INFO server gave no run_id; nodes are told apart by host and port only`;
      },
      (e: unknown) => {
        this.probeError = e instanceof Error ? e : new Error(String(e));
        // Denied INFO (an ACL): fall back to the host:port check, with a warning, never a refusal.
        if (e instanceof ReplyError && /NOPERM|no permissions|can't run/i.test((e as Error).message)) {
          this.identityWarning = `${this.id}: the user may not run INFO, so a second entry reaching the same server cannot be ruled out (only host and port were compared)`;
        }
      },
    ).finally(() => {
      clearTimeout(timer);
      this.identifying = undefined;
    });
    return this.identifying;
  }

  /** Another entry of the set that reaches the same server (same run_id), if any. */
  sameServerAs(): RedisNode | undefined {
    if (this.runId === null) return undefined;
    return this.peers.find((p) => p !== this && p.runId === this.runId);
  }

  /**
   * Before a call on a node whose identity is not known yet (just connected, reconnected):
   * waits (at most `ms`) for its connection and its INFO answer. Rejects when it turns out
   * to reach a server another entry already counts, or stays unknown: not a vote.
   */
  async gate(ms: number): Promise<void> {
    // A first connection still under way is waited for; a failed one fails the call fast.
    if (!this.ready && this.lastError === null && this.client.status !== 'end') {
      await this.waitReady(ms);
      // Connected but silent (a frozen process): report it at the call's own deadline.
      if (!this.ready && this.lastError === null) throw new DeadlineError(ms);
    }
    if (!this.identified && this.ready) {
      await this.identify();
      // The probe's own failure (NOAUTH, LOADING, BUSY, no answer) is this call's answer too.
      if (!this.identified) throw this.probeError ?? new DeadlineError(this.probeTimeoutMs);
    }
    const twin = this.sameServerAs();
    if (twin) throw aliasError(twin.id, this.id, `the same run_id ${this.runId}`);
  }

  private corked = false;

  /**
   * Holds this node's socket writes until the end of the current tick, so the commands
   * that many concurrent callers send in one tick leave in one writev: the batching of
   * ioredis auto-pipelining without a Pipeline object per batch, without holding a lone
   * command back to the next event-loop turn, and without auto-pipelining's uncaught
   * TypeError when the connection is down. A Cluster routes per key: left alone.
   * Only while another lock round is undecided (lockRounds): a lone caller has nothing to
   * batch with, and corking its single write cost a fifth of a sequential acquire+release
   * (docs/decisions.md, "Lock round costs").
   */
  cork(): void {
    if (lockRounds.undecided === 0 || this.corked || this.client instanceof Cluster) return;
    const stream = this.client.stream;
    if (!stream) return;
    this.corked = true;
    stream.cork();
    process.nextTick(() => {
      this.corked = false;
      stream.uncork();
    });
  }

  /**
   * Holds this node's socket writes until the event loop's check phase: a release that
   * wakes a retry of the same process writes its compare-and-delete and, in the same
   * writev, the woken call's grant (sent a few promise hops later, still in this turn).
   * Streams count corks, so this nests with cork().
   */
  corkTurn(): void {
    if (this.client instanceof Cluster) return;
    const stream = this.client.stream;
    if (!stream || this.client.status !== 'ready') return;
    stream.cork();
    setImmediate(() => stream.uncork());
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
      // Once a reset has been explained (a plain connection to a TLS-only port), or a
      // refused TLS handshake at the sentinels.
      const answered = (): void => void Promise.all([plainOnTlsSettled(this), tlsRefusalSettled(this.client)]).then(done);
      const timer = setTimeout(done, ms);
      this.client.once('ready', answered);
      this.client.once('end', done);
      // A refused or failed first connection is an answer too: fail fast, do not wait it out.
      this.client.once('error', answered);
    });
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
    if (own && !spec.tls) throw new NodeConfigError(`${spec.id}: TLS settings given for a plain URL (use rediss://, rediss+sentinel:// or rediss+cluster://)`);
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
  checkConfiguredAliases(specs.map((s) => ({ id: s.id, server: 'client' in s && s.client ? serverOfClient(s.client) : serverOfSpec(s.spec!) })));
  const clusterAt = specs.findIndex((s) => ('spec' in s && s.spec?.kind === 'cluster') || ('client' in s && s.client instanceof Cluster));
  if (clusterAt >= 0 && specs.length > 1) {
    throw new NodeConfigError(`${specs[clusterAt].id}: a redis+cluster:// node cannot be combined with other nodes (a cluster shows each key on its owning master)`);
  }
  const nodes = specs.map((s) =>
    'client' in s && s.client
      ? new RedisNode(s.id, trackedClient(s.client), false)
      : plainWatched(new RedisNode(s.id, createClient(s.spec!, connectTimeoutMs, s.tls), true, s.spec), connectTimeoutMs),
  );
  for (const n of nodes) {
    n.peers = nodes;
    n.probeTimeoutMs = connectTimeoutMs;
    if (options.connectionName && n.owned) nameConnections(n.client, options.connectionName);
  }
  return nodes;
}

/** Throws when two nodes of the set are known to reach one server (same run_id). No round trip. */
export function checkDistinct(nodes: readonly RedisNode[]): void {
  // Every acquire and release asks: comparing each node with each peer was 2% of a 64-way run's CPU.
  if (checkedAt.get(nodes) === identities.changes) return;
  for (const n of nodes) {
    const twin = n.sameServerAs();
    if (twin) throw aliasError(twin.id, n.id, `the same run_id ${n.runId}`);
  }
  checkedAt.set(nodes, identities.changes);
}

/**
 * Resolves once `quorum` nodes are connected and identified, or every node has settled
 * (identified, failed, or unknown), or after `ms`: a frozen node must not hold up the
 * others. Nodes still pending are waited for by each call, within its own deadline.
 */
export function waitForQuorum(nodes: readonly RedisNode[], quorum: number, ms: number): Promise<void> {
  const start = performance.now();
  return new Promise((resolve) => {
    let identified = 0;
    let settled = 0;
    let timer = setTimeout(resolve, ms);
    const done = (): void => {
      clearTimeout(timer);
      resolve();
    };
    for (const n of nodes) {
      n.gate(ms).catch(() => undefined).then(() => {
        settled++;
        if (n.identified) identified++;
        if (settled === nodes.length) done();
        else if (identified === quorum) {
          // Healthy nodes answer within moments of each other: a short grace lets the
          // first call see an alias found at connect, while a frozen node costs little.
          const elapsed = performance.now() - start;
          clearTimeout(timer);
          timer = setTimeout(resolve, Math.min(Math.max(0, ms - elapsed), Math.max(50, elapsed)));
        }
      });
    }
    if (nodes.length === 0) done();
  });
}

/** The server a URL reaches, as far as its spelling tells. */
function serverOfSpec(spec: NodeSpec): string | undefined {
  if (spec.kind === 'standalone') return hostPortKey(spec.host, spec.port);
  if (spec.kind === 'sentinel') return `sentinel|${spec.masterName}|${spec.sentinels.map((h) => hostPortKey(h.host, h.port)).sort().join(',')}`;
  return undefined;
}

function serverOfClient(client: Redis | Cluster): string | undefined {
  if (client instanceof Cluster) return undefined;
  const o = client.options;
  if (o.sentinels && o.name) return `sentinel|${o.name}|${o.sentinels.map((h) => hostPortKey(h.host ?? '127.0.0.1', h.port ?? 26379)).sort().join(',')}`;
  if (o.path) return `unix|${o.path}`;
  return hostPortKey(o.host ?? '127.0.0.1', o.port ?? 6379);
}
