// Every read the core offers, over one node set: inspect, one key, watch, discover, node
// facts, the doctor, history and the audit. Nothing here writes, so a surface that only
// looks (status, watch, the exporter, the MCP server) can hold a reader and no lock engine.
// It sits on the doctor's floor because diagnosing is one of its reads; the lock engine
// above shares its node set (docs/architecture.md, "The reader and the lock engine").
import type { NodeInput, RedisNode } from '../connection/nodes';
import { NodeSet, type NodeSetTimings } from '../connection/nodeSet';
import { DEFAULT_PATTERNS, type InspectContext } from '../read/inspect';
import { inspectNodes, inspectOne, type KeyInspection } from '../read/snapshot';
import { readContextOf, unreadOf } from '../read/context';
import { discoverNodes, type DiscoverOptions, type Discovery } from '../read/discover';
import { Watcher, type WatchListener, type WatchOptions } from '../read/watch';
import { nodeFacts } from '../read/facts';
import { type History, readHistory } from '../read/history';
import { type AuditQuery, type AuditReport, readAudit, readHistories } from '../read/auditRead';
import { EventFeed } from '../read/eventFeed';
import { type DoctorOptions, type DoctorReport, runDoctor } from './doctor';
import type { InspectOptions, InspectPage, NodeFacts } from '../vocabulary/inspectTypes';
import type { Snapshot } from '../vocabulary/types';
import type { LockEvent } from '../vocabulary/lockEvents';
import { type Resource, validateResources } from '../vocabulary/resource';

export type ReaderOptions = NodeSetTimings;

export class LockReader {
  readonly nodeSet: NodeSet;
  /** Whether quit() closes the connections: not when they belong to a lock engine. */
  private readonly owned: boolean;

  /** Opens its own connections, or reads over a node set someone else holds (`redlock.reader`). */
  constructor(nodes: readonly NodeInput[] | NodeSet, options: ReaderOptions = {}) {
    this.owned = !(nodes instanceof NodeSet);
    this.nodeSet = nodes instanceof NodeSet ? nodes : new NodeSet(nodes, options);
  }

  get nodes(): RedisNode[] {
    return this.nodeSet.nodes;
  }

  get quorum(): number {
    return this.nodeSet.quorum;
  }

  get warnings(): string[] {
    return this.nodeSet.warnings;
  }

  /** The document `status --json` prints. */
  async inspect(options: InspectOptions = {}): Promise<Snapshot> {
    return (await this.inspectPage(options)).snapshot;
  }

  /**
   * One key by its name on every node (no SCAN), with its bookkeeping, fence and waiters:
   * the document `status` would print for it, its entry, or why it is no lock.
   */
  async inspectKey(resource: Resource, options: Omit<InspectOptions, 'patterns' | 'continueFrom'> = {}): Promise<KeyInspection> {
    validateResources([resource]);
    await this.nodeSet.ready();
    return inspectOne(this.readContext(), typeof resource === 'string' ? Buffer.from(resource) : resource, options);
  }

  /** A snapshot plus the continuation of a truncated scan ("load more"). */
  async inspectPage(options: InspectOptions = {}): Promise<InspectPage> {
    await this.nodeSet.ready();
    return inspectNodes(this.readContext(), options);
  }

  /** Lock-shaped keys anywhere in the keyspace, grouped into patterns; a bounded walk. */
  async discover(options: DiscoverOptions = {}): Promise<Discovery> {
    await this.nodeSet.ready();
    return discoverNodes(this.readContext(), options);
  }

  /** Live watch: `snapshot` once, then `change` for what changed; stop() ends it. */
  watch(options: WatchOptions, listener: WatchListener): Watcher {
    const watcher = new Watcher(() => {
      this.nodeSet.checkDistinct();
      return this.readContext(true);
    }, options, listener);
    // A refused node set surfaces through the first tick (listener.error), like any failure.
    void this.nodeSet.ready().catch(() => undefined).then(() => watcher.start());
    return watcher;
  }

  /**
   * Redis Cluster: the masters among `nodes` (a snapshot's or a watch status's) that did
   * not answer and own part of the keyspace `patterns` can reach; [] elsewhere. What
   * `inspectPage()` returns as `unread`, for a watch.
   */
  unreadKeyspace(nodes: ReadonlyArray<{ node: string; reachable: boolean }>, patterns: readonly string[] = DEFAULT_PATTERNS): string[] {
    return unreadOf(this.nodes, nodes, patterns);
  }

  /** Version, role, clock offset, persistence and restart risk per node. */
  async nodeFacts(longestTtlMs = 0): Promise<NodeFacts[]> {
    await this.nodeSet.ready();
    return Promise.all(this.readContext().nodes.map((n) => nodeFacts(n, longestTtlMs, this.nodeSet.readTimeoutMs)));
  }

  /** Deployment findings (replicas, eviction, persistence, clocks, permissions...). */
  async doctor(options: DoctorOptions = {}): Promise<DoctorReport> {
    // Not ready(): two entries of one server are what the doctor reports (same-server),
    // not a reason to refuse the diagnosis.
    await this.nodeSet.connected();
    const set = this.nodeSet;
    return runDoctor({ ...this.readContext(), configured: set.nodes.length, quorum: set.quorum, deadlineFor: (ttl) => set.writeDeadline(ttl) }, options);
  }

  /** The resource's event log from every node, merged, newest first. */
  async history(resource: Resource): Promise<History> {
    validateResources([resource]);
    await this.nodeSet.ready();
    return readHistory(this.nodeSet.logNodes(), this.nodeSet.logQuorum(), this.nodeSet.readTimeoutMs, resource);
  }

  /** Findings of the safety audit over the recorded histories (docs/audit.md). */
  async audit(query: AuditQuery = {}): Promise<AuditReport> {
    if (query.resource !== undefined) validateResources([query.resource]);
    await this.nodeSet.ready();
    return readAudit(this.readContext(), this.nodeSet.logNodes(), this.nodeSet.logQuorum(), query);
  }

  /** Each resource's recorded events, newest first (null when unread): for stats and metrics. */
  async lockHistories(resources: readonly Resource[]): Promise<Array<LockEvent[] | null>> {
    await this.nodeSet.ready();
    return readHistories(this.nodeSet.logNodes(), this.nodeSet.logQuorum(), this.nodeSet.readTimeoutMs, resources);
  }

  /** The event logs under some patterns, read again only where something new was recorded (the exporter's source). */
  eventFeed(): EventFeed {
    return new EventFeed(() => this.readContext(), () => this.nodeSet.logNodes(), this.nodeSet.logQuorum());
  }

  /** Closes the connections this reader opened; a shared node set is its engine's to close. */
  async quit(): Promise<void> {
    if (this.owned) await this.nodeSet.close();
  }

  /** Read paths see a cluster as its masters; everything else as configured. A watch's copies share their tokens' strings. */
  private readContext(shareTokens = false): InspectContext {
    return readContextOf(this.nodes, this.nodeSet.driftFactor, this.nodeSet.readTimeoutMs, shareTokens);
  }
}
