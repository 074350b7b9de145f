// The configured nodes with what every call over them shares, whether it writes or reads:
// the quorum, the drift allowance, the deadlines and the bounded wait for connections.
// The lock engine (lock/redlock.ts) and the reader (doctor/lockReader.ts) each hold one;
// `redlock.reader` shares the engine's, so one process opens one connection per node.
import { checkDistinct, createNodes, type NodeInput, type NodeSetOptions, type RedisNode, waitForQuorum } from './nodes';
import { writeDeadlineFor } from './deadline';
import { quorumOf } from '../vocabulary/classify';

export interface NodeSetTimings extends NodeSetOptions {
  /** Clock drift allowance as a fraction of the TTL (drift = ttl * driftFactor + 2 ms). */
  driftFactor?: number;
  /** Per-node deadline for one lock command; default derived from the TTL. */
  commandTimeoutMs?: number;
  /** Per-node deadline for one read (a SCAN page, a batch of key reads, facts); default 2,000 ms. */
  readTimeoutMs?: number;
}

export class NodeSet {
  readonly nodes: RedisNode[];
  readonly quorum: number;
  readonly driftFactor: number;
  readonly readTimeoutMs: number;
  readonly commandTimeoutMs: number | undefined;
  private connecting: Promise<void> | undefined;

  constructor(inputs: readonly NodeInput[], options: NodeSetTimings = {}) {
    this.driftFactor = options.driftFactor ?? 0.01;
    this.readTimeoutMs = options.readTimeoutMs ?? 2000;
    this.commandTimeoutMs = options.commandTimeoutMs;
    this.nodes = createNodes(inputs, options);
    this.quorum = quorumOf(this.nodes.length);
    // A quorum of identified connections is enough to start: one frozen node must not
    // delay every call by the connect timeout; calls wait for the rest within their deadline.
    this.connecting = waitForQuorum(this.nodes, this.quorum, options.connectTimeoutMs ?? 2000).then(() => {
      this.connecting = undefined;
    });
  }

  /** Resolves once a quorum connected or the connect wait ran out; no promise after that. */
  connected(): Promise<void> | undefined {
    return this.connecting;
  }

  /**
   * The first calls after construction wait (bounded) for connections; every call rejects
   * (NodeConfigError) while two entries are known to reach one server. No round trip.
   */
  async ready(): Promise<void> {
    if (this.connecting) await this.connecting;
    checkDistinct(this.nodes);
  }

  /** Throws (NodeConfigError) when two entries are known to reach one server. */
  checkDistinct(): void {
    checkDistinct(this.nodes);
  }

  /** Why a node's identity rests on host:port only (the user may not run INFO), per node. */
  get warnings(): string[] {
    return this.nodes.flatMap((n) => (n.identityWarning ? [n.identityWarning] : []));
  }

  /** A write's per-node deadline for a lock of `ttlMs`. */
  writeDeadline(ttlMs: number): number {
    return writeDeadlineFor(ttlMs, this.commandTimeoutMs);
  }

  /** Where event logs live: a cluster client routes each key to its master, one vote as for inspect. */
  logNodes(): RedisNode[] {
    return this.nodes[0].isCluster ? [this.nodes[0]] : this.nodes;
  }

  logQuorum(): number {
    return this.nodes[0].isCluster ? 1 : this.quorum;
  }

  /**
   * A call's deadline does not cancel its commands: a SET that answers after the round gave
   * up, or a compare-and-delete still on its way, must land before the connection closes,
   * or it could leave a copy behind (bounded: a dead node never answers).
   */
  async close(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.drained(2000)));
    await Promise.all(this.nodes.map((n) => n.close()));
  }
}
