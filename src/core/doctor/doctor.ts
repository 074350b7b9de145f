// The deployment doctor: reads each node's deployment facts (deploymentFacts.ts) and
// turns them into findings with a stable code, a severity and a one-line fix. The rules
// are a pure function of the facts (diagnose), so each rule is testable on its own; the
// reasoning behind every rule is in docs/doctor.md. Reads only.
import { DeploymentFacts, deploymentFacts } from './deploymentFacts';
import { capabilityFindings } from './capabilityFindings';
import { DEFAULT_PATTERNS, InspectContext } from '../read/inspect';
import { inspectNodes } from '../read/snapshot';

export type Severity = 'error' | 'warning' | 'info';

export type FindingCode =
  | 'same-server' | 'replica' | 'not-independent' | 'has-replicas' | 'eviction' | 'persistence'
  | 'restart-risk' | 'clock-offset' | 'latency' | 'version' | 'permissions' | 'quorum-size'
  | 'unreachable' | 'unknown' | 'capability';

export interface Finding {
  severity: Severity;
  code: FindingCode;
  /** The node id the finding is about; null for the set as a whole. */
  node: string | null;
  message: string;
  fix: string;
  /**
   * How long after the doctor read it this finding stays true by itself, in ms, when time
   * alone ends it (a restarted node's risk ends once it has been up for the longest TTL):
   * a surface that keeps findings on screen runs the doctor again then.
   */
  untilMs?: number;
}

/** What `doctor --json` prints, plus what the exit code needs. */
export interface DoctorReport {
  findings: Finding[];
  /** Nodes that answered, and how many must (the set's quorum). */
  answered: number;
  quorum: number;
}

export interface DoctorOptions {
  /** Globs selecting lock keys, for the longest live TTL; default DEFAULT_PATTERNS. */
  patterns?: string[];
  /** The TTL the set's locks typically use (ms), for the drift and latency checks; default the longest live TTL, else 10 s. */
  ttlMs?: number;
}

export interface DiagnoseInput {
  facts: DeploymentFacts[];
  /** Configured entries (a cluster counts once: each key lives on one master). */
  configured: number;
  /** A Redis Cluster: each key has one owner, there is no quorum across nodes. */
  cluster: boolean;
  quorum: number;
  driftFactor: number;
  /** Reference TTL for drift and latency (ms). */
  ttlMs: number;
  /** Longest PTTL among live lock copies (ms), 0 when none. */
  longestTtlMs: number;
  liveLocks: number;
  /** Per-node deadline of one lock command (ms). */
  deadlineMs: number;
  /** The read path's error per node (from a snapshot), e.g. NOPERM on SCAN. */
  readErrors: ReadonlyMap<string, string>;
  /**
   * Nodes that answered but whose locks could not be read (no scripting, a role without
   * it): their live TTLs are unknown, so restart risk is judged against `ttlMs` there.
   */
  locksUnread?: ReadonlySet<string>;
}

export const DEFAULT_REFERENCE_TTL_MS = 10_000;
const SEVERITY_ORDER: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

function bytes(n: number): string {
  if (n >= 1024 ** 3) return `${(n / 1024 ** 3).toFixed(1)} GiB`;
  if (n >= 1024 ** 2) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${n} B`;
}

function versionBelow(version: string, major: number, minor: number): boolean {
  const [a, b] = version.split('.').map(Number);
  return Number.isFinite(a) && (a < major || (a === major && (b ?? 0) < minor));
}

/** Union-find over node indices: nodes that share one data set. */
class Groups {
  private parent: number[];
  constructor(n: number) {
    this.parent = Array.from({ length: n }, (_, i) => i);
  }
  find(i: number): number {
    while (this.parent[i] !== i) i = this.parent[i] = this.parent[this.parent[i]];
    return i;
  }
  union(a: number, b: number): void {
    this.parent[this.find(a)] = this.find(b);
  }
}

export function diagnose(input: DiagnoseInput): Finding[] {
  const out: Finding[] = [];
  const add = (severity: Severity, code: FindingCode, node: string | null, message: string, fix: string, untilMs?: number): void => {
    out.push({ severity, code, node, message, fix, ...(untilMs !== undefined ? { untilMs } : {}) });
  };
  const facts = input.facts;
  const live = facts.filter((f) => f.reachable);

  for (const f of facts) {
    if (!f.reachable) {
      add('warning', 'unreachable', f.node, `${f.node} did not answer (${f.error ?? 'no reply'}): nothing about it could be checked, and it cannot vote`, 'check the URL, the network path and the password, then run the doctor again');
    }
  }

  identity(input, add);

  for (const f of live) {
    if (f.infoError !== null) {
      add('warning', 'unknown', f.node, `${f.node}: INFO was refused (${f.infoError}), so its role, replication, memory policy, persistence, version and server identity are unknown`, 'grant the inspecting user +info (read-only) and run the doctor again');
      continue;
    }
    replication(f, add);
    eviction(f, input, add);
    persistence(f, input, add);
    if (f.version !== null && (f.server ?? 'redis') === 'redis' && versionBelow(f.version, 7, 0)) {
      add('warning', 'version', f.node, `${f.node} runs Redis ${f.version}: before 7.0 there are no read-only scripts (EVAL_RO) and no PEXPIRETIME, so a read-only ACL role cannot read locks and watch lists every SCAN page with TTLs on each tick`, 'upgrade to Redis 7.0 or later');
    }
  }
  for (const f of live) capabilityFindings(f, add);

  for (const f of live) permissions(f, input, add);
  clocks(live, input, add);
  for (const f of live) {
    if (f.latencyMs !== null && f.latencyMs > input.deadlineMs / 2) {
      add('warning', 'latency', f.node, `${f.node} answers in ${f.latencyMs} ms, more than half of the ${input.deadlineMs} ms per-node deadline of a ${seconds(input.ttlMs)} lock: under load its votes time out and acquisitions fail or use up their validity`, 'run the nodes close to the clients (same region), or use longer TTLs (the per-node deadline grows with the TTL) or a larger commandTimeoutMs');
    }
  }
  quorumSize(input, add);

  const index = new Map(facts.map((f, i) => [f.node, i]));
  return out
    .map((f, i) => ({ f, i }))
    .sort((a, b) => SEVERITY_ORDER[a.f.severity] - SEVERITY_ORDER[b.f.severity]
      || (a.f.node === null ? -1 : index.get(a.f.node) ?? 0) - (b.f.node === null ? -1 : index.get(b.f.node) ?? 0)
      || a.i - b.i)
    .map((x) => x.f);
}

type Add = (severity: Severity, code: FindingCode, node: string | null, message: string, fix: string, untilMs?: number) => void;

function identity(input: DiagnoseInput, add: Add): void {
  const facts = input.facts;
  const sameAs = new Map<number, number>();
  facts.forEach((f, i) => {
    if (!f.reachable || f.runId === null) return;
    const first = facts.findIndex((g) => g.reachable && g.runId === f.runId);
    if (first < i) {
      sameAs.set(i, first);
      add('error', 'same-server', f.node, `${facts[first].node} and ${f.node} reach the same Redis server (run_id ${f.runId.slice(0, 12)}…): one server would count as two votes`, `remove ${f.node} from the configuration (or point it at an independent master)`);
    }
  });
  if (input.cluster) return;

  // Entries that share one data set through replication.
  const groups = new Groups(facts.length);
  const byAddress = new Map<string, number>();
  facts.forEach((f, i) => f.address && byAddress.set(f.address, i));
  facts.forEach((f, i) => {
    if (!f.reachable || sameAs.has(i)) return;
    facts.forEach((g, j) => {
      if (j <= i || !g.reachable || sameAs.has(j)) return;
      const linked = (f.replId !== null && f.replId === g.replId)
        || (f.masterAddress !== null && (f.masterAddress === g.address || f.masterAddress === g.masterAddress))
        || (g.masterAddress !== null && g.masterAddress === f.address)
        || (f.address !== null && g.replicas.some((r) => `${r.host}:${r.port}` === f.address))
        || (g.address !== null && f.replicas.some((r) => `${r.host}:${r.port}` === g.address));
      if (linked) groups.union(i, j);
    });
  });
  const members = new Map<number, number[]>();
  facts.forEach((_, i) => {
    if (sameAs.has(i)) return;
    const r = groups.find(i);
    members.set(r, [...(members.get(r) ?? []), i]);
  });
  for (const group of members.values()) {
    if (group.length < 2) continue;
    const names = group.map((i) => facts[i].node);
    const how = group
      .filter((i) => facts[i].role === 'replica')
      .map((i) => `${facts[i].node} replicates from ${facts[i].masterAddress ?? 'the same master'}`)
      .join('; ');
    // Named on the entry that adds the duplicate vote: the (last) replica.
    const replica = group.filter((i) => facts[i].role === 'replica').pop() ?? group[group.length - 1];
    add('error', 'not-independent', facts[replica].node, `${names.join(', ')} are not independent${how ? ` (${how})` : ''}: they hold one data set, so one failure or failover counts against several votes`, 'configure only independent masters (no replication between them); drop the replicas from the lock configuration');
  }
}

function replication(f: DeploymentFacts, add: Add): void {
  if (f.role === 'replica') {
    add('error', 'replica', f.node, `${f.node} is a replica${f.masterAddress ? ` of ${f.masterAddress}` : ''}: lock writes are refused (READONLY), or with replica-read-only off they are silently lost at the next resync`, `configure ${f.masterAddress ?? 'its master'} or another independent master instead`);
  } else if (f.role === 'master' && (f.connectedReplicas ?? 0) > 0) {
    const n = f.connectedReplicas!;
    const automatic = f.viaSentinel || f.mode === 'cluster';
    const who = f.viaSentinel ? 'Sentinel' : f.mode === 'cluster' ? 'Redis Cluster' : 'Sentinel, Cluster or a managed service';
    const when = automatic
      ? `${who} manages this node, so a failover is automatic here`
      : 'it matters only with automatic failover; replicas kept for reads or backups are harmless';
    add('warning', 'has-replicas', f.node, `${f.node} has ${n} replica${n === 1 ? '' : 's'}. Replication is asynchronous: if a failover (${who}) promotes a replica before a lock reached it, the lock is gone and a second client can take it; ${when}`, 'for Redlock use independent masters without automatic failover, or accept that a promotion during a lock\'s TTL can grant it twice');
  }
}

function eviction(f: DeploymentFacts, input: DiagnoseInput, add: Add): void {
  const policy = f.maxmemoryPolicy;
  const max = f.maxmemory;
  if (policy === null || max === null) {
    add('warning', 'unknown', f.node, `${f.node}: its eviction policy is unknown (INFO memory lacks maxmemory or maxmemory_policy)`, 'check maxmemory and maxmemory-policy by hand (CONFIG GET maxmemory-policy)');
    return;
  }
  if (policy === 'noeviction') return;
  const limit = max > 0 ? `with maxmemory ${bytes(max)}` : '(maxmemory 0: it starts evicting as soon as a limit is set)';
  if (policy.startsWith('allkeys-') || (!policy.startsWith('volatile-') && max > 0)) {
    add('error', 'eviction', f.node, `${f.node} uses maxmemory-policy ${policy} ${limit}: under memory pressure Redis evicts any key, a held lock included, silently, and another client then acquires it`, 'CONFIG SET maxmemory-policy noeviction (and in redis.conf), or keep locks on an instance that never evicts');
  } else if (policy.startsWith('volatile-') && max > 0) {
    const locks = input.liveLocks > 0 ? ` (${input.liveLocks} live lock${input.liveLocks === 1 ? '' : 's'} now)` : '';
    add('warning', 'eviction', f.node, `${f.node} uses maxmemory-policy ${policy} ${limit}: lock keys carry a TTL, so they are eviction candidates when memory runs out${locks}`, 'CONFIG SET maxmemory-policy noeviction, or keep enough memory headroom that eviction never starts');
  }
}

function persistence(f: DeploymentFacts, input: DiagnoseInput, add: Add): void {
  // Renamed away (managed services) is not the same as denied to this user (an ACL rule).
  const needConfig = /unknown command/i.test(f.configError ?? '') ? 'unknown, CONFIG is disabled on this service' : `CONFIG GET was refused (${f.configError ?? 'no reply'})`;
  let persistent: boolean | null;
  if (f.aofEnabled === null) {
    persistent = null;
    add('warning', 'unknown', f.node, `${f.node}: persistence is unknown (INFO persistence lacks aof_enabled)`, 'check appendonly and appendfsync by hand');
  } else if (f.aofEnabled) {
    persistent = true;
    if (f.appendfsync === null) {
      add('warning', 'unknown', f.node, `${f.node}: AOF is on but its fsync policy is unknown: ${needConfig}`, 'grant the inspecting user +config|get, or check appendfsync by hand (always is the safe value)');
    } else if (f.appendfsync === 'always') {
      add('info', 'persistence', f.node, `${f.node} writes every grant to the AOF with appendfsync always before replying: a restarted node remembers its locks`, 'nothing to do');
    } else {
      const loss = f.appendfsync === 'everysec' ? 'about the last second of grants' : 'the grants the OS had not flushed yet (often tens of seconds)';
      add('warning', 'persistence', f.node, `${f.node} uses AOF with appendfsync ${f.appendfsync}: a crash loses ${loss}, so a restarted node may have forgotten a lock it granted`, 'appendfsync always (slower writes), or keep a crashed node out for the longest lock TTL before it rejoins');
    }
  } else if (f.save === null) {
    persistent = null;
    add('warning', 'unknown', f.node, `${f.node}: AOF is off and its RDB schedule is unknown: ${needConfig}`, 'grant the inspecting user +config|get, or check the save setting by hand');
  } else {
    persistent = false;
    const what = f.save.trim() === '' ? 'no persistence (AOF off, no RDB snapshots)' : `RDB snapshots only (save ${f.save}): a restart loses every grant since the last snapshot`;
    add('warning', 'persistence', f.node, `${f.node} has ${what}; a restarted node has forgotten the locks it granted, so it must stay out for the longest lock TTL before it rejoins`, 'enable appendonly yes with appendfsync always, or delay every restart by the longest TTL (the delayed-restart rule)');
  }
  // Uptime and persistence come from INFO, which a server without scripting still answers:
  // where its locks could not be read, a lock as long as the reference TTL may live there.
  const unread = input.locksUnread?.has(f.node) === true;
  const longest = unread ? Math.max(input.longestTtlMs, input.ttlMs) : input.longestTtlMs;
  if (longest <= 0 || f.uptimeS === null || f.uptimeS * 1000 >= longest) return;
  const up = unread
    ? `started ${f.uptimeS} s ago, less than a ${seconds(longest)} lock (its locks could not be read, so one may live there)`
    : `started ${f.uptimeS} s ago, less than the longest live lock (${seconds(longest)} left)`;
  const until = longest - f.uptimeS * 1000;
  if (persistent === false) {
    add('error', 'restart-risk', f.node, `${f.node} ${up}, without persistence: locks granted before its restart are forgotten, so a second client may hold one of them right now`, 'keep a restarted node out of the set for the longest TTL (delayed restart), or enable appendfsync always', until);
  } else if (persistent === null) {
    add('warning', 'unknown', f.node, `${f.node} ${up}; whether it restarted without persistence is unknown (see its persistence finding)`, 'grant +config|get so the doctor can read the persistence settings', until);
  }
}

function permissions(f: DeploymentFacts, input: DiagnoseInput, add: Add): void {
  const readError = input.readErrors.get(f.node);
  if (f.denied === null) {
    const m = readError !== undefined ? /'([a-z|]+)' command/i.exec(readError) : null;
    if (m) {
      add('warning', 'permissions', f.node, `${f.node}: the read paths are refused: ${readError}`, `grant the inspecting user +${m[1].toLowerCase()}`);
    }
    add('info', 'unknown', f.node, `${f.node}: the user's permissions for lock writes could not be checked (${f.permissionsError ?? 'no reply'})`, 'check by hand that the service account may run SET, GET, DEL, PEXPIRE, EVALSHA and EVAL on the lock keys; a read-only inspecting account needs none of them');
    return;
  }
  for (const use of ['read', 'write'] as const) {
    const cmds = f.denied.filter((d) => d.use === use).map((d) => d.command);
    if (cmds.length === 0) continue;
    const who = f.user ? `user ${f.user}` : 'the user';
    const what = use === 'read' ? 'status, watch and the views need' : 'acquire, extend and release need';
    add('warning', 'permissions', f.node, `${f.node}: ${who} may not run ${cmds.join(', ')}, which ${what}`, `ACL SETUSER ${f.user ?? '<user>'} ${cmds.map((c) => `+${c.toLowerCase()}`).join(' ')}${use === 'write' ? ' (ignore for an account that only inspects)' : ''}`);
  }
}

function clocks(live: DeploymentFacts[], input: DiagnoseInput, add: Add): void {
  const allowance = Math.round(input.ttlMs * input.driftFactor) + 2;
  const measured = live.filter((f) => f.clockOffsetMs !== null);
  for (const f of measured) {
    // Half the round trip is the measurement's own uncertainty.
    if (Math.abs(f.clockOffsetMs!) - (f.latencyMs ?? 0) / 2 > allowance) {
      add('warning', 'clock-offset', f.node, `${f.node}'s clock is ${f.clockOffsetMs} ms off this machine's, beyond the ${allowance} ms drift allowance of a ${seconds(input.ttlMs)} lock: a clock that far off is likely unsynchronised and may jump`, 'run NTP (chrony) on every node and client, and never step clocks on a running node');
    }
  }
  if (measured.length < 2) return;
  const offsets = measured.map((f) => f.clockOffsetMs!);
  const spread = Math.max(...offsets) - Math.min(...offsets);
  const slack = Math.max(...measured.map((f) => f.latencyMs ?? 0));
  if (spread - slack > allowance) {
    add('warning', 'clock-offset', null, `node clocks differ by ${spread} ms across the set, beyond the ${allowance} ms drift allowance of a ${seconds(input.ttlMs)} lock: copies of one lock expire at visibly different instants`, 'synchronise the nodes\' clocks (NTP / chrony)');
  }
}

function quorumSize(input: DiagnoseInput, add: Add): void {
  if (input.cluster) {
    add('info', 'quorum-size', null, 'Redis Cluster: each key lives on one master (N = 1 per key), so a lock is only as safe as that master and its failover', 'for Redlock proper, use 3 or 5 independent masters instead of one cluster');
    return;
  }
  const n = input.configured;
  const q = input.quorum;
  if (n === 1) {
    add('info', 'quorum-size', null, 'one node: a single-instance lock, with no tolerance for that node failing or restarting without persistence', 'fine when a lost lock is acceptable; otherwise use 3 or 5 independent masters');
  } else if (n === 2) {
    add('warning', 'quorum-size', null, 'two nodes: a quorum needs both (Q = 2), so either one failing blocks every lock: less available than one node, no safer', 'use 3 independent masters (tolerates 1 failure) or 5 (tolerates 2)');
  } else if (n % 2 === 0) {
    add('info', 'quorum-size', null, `${n} nodes: a quorum needs ${q}, so it tolerates ${n - q} failure${n - q === 1 ? '' : 's'}, no more than ${n - 1} nodes would`, `use ${n - 1} or ${n + 1} independent masters`);
  }
}

/** Longest live TTL and how many locks a snapshot shows. */
export function liveLockFacts(snapshot: { locks: Array<{ nodes: Array<{ state: string; pttlMs: number | null }> }> }): { longestTtlMs: number; liveLocks: number } {
  let longest = 0;
  for (const l of snapshot.locks) for (const o of l.nodes) if (o.state === 'present' && o.pttlMs !== null && o.pttlMs > longest) longest = o.pttlMs;
  return { longestTtlMs: longest, liveLocks: snapshot.locks.length };
}

export interface DoctorContext extends InspectContext {
  configured: number;
  quorum: number;
  /** Per-node deadline of a lock command for a given TTL. */
  deadlineFor(ttlMs: number): number;
}

/** Reads every node (facts, plus one bounded snapshot for live TTLs) and diagnoses. */
export async function runDoctor(ctx: DoctorContext, options: DoctorOptions = {}): Promise<DoctorReport> {
  const patterns = options.patterns?.length ? options.patterns : [...DEFAULT_PATTERNS];
  const [page, facts] = await Promise.all([
    inspectNodes(ctx, { patterns }),
    Promise.all(ctx.nodes.map((n) => deploymentFacts(n, patterns, ctx.commandTimeoutMs))),
  ]);
  const { longestTtlMs, liveLocks } = liveLockFacts(page.snapshot);
  const ttlMs = options.ttlMs ?? (longestTtlMs > 0 ? longestTtlMs : DEFAULT_REFERENCE_TTL_MS);
  const readErrors = new Map<string, string>();
  const locksUnread = new Set<string>();
  for (const n of page.snapshot.nodes) {
    if (n.error !== null && /NOPERM|no permissions/i.test(n.error)) readErrors.set(n.node, n.error);
    if (n.error !== null && n.reachable) locksUnread.add(n.node);
  }
  const quorum = ctx.ownerOnly ? 1 : ctx.quorum;
  const findings = diagnose({
    facts, configured: ctx.configured, cluster: ctx.ownerOnly === true, quorum, driftFactor: ctx.driftFactor,
    ttlMs, longestTtlMs, liveLocks, deadlineMs: ctx.deadlineFor(ttlMs), readErrors, locksUnread,
  });
  return { findings, answered: facts.filter((f) => f.reachable).length, quorum };
}
