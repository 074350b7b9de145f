// What the deployment doctor reads from one node: identity, replication, memory policy,
// persistence, clock, latency and ACL permissions. Reads only (TIME, INFO, CONFIG GET,
// ACL WHOAMI / DRYRUN); a fact the user may not read stays null with the reason kept,
// so the doctor can say what it would need instead of guessing.
import { capabilitiesOf, parseInfo, serverOf, type Capabilities } from '../connection/capabilities';
import { withDeadline } from '../connection/deadline';
import { probeClock, type ClockOffset } from '../connection/clockOffset';
import { describeFailure, RedisNode } from '../connection/nodes';
import { formatHostPort } from '../connection/urls';

export interface ReplicaAddress {
  host: string;
  port: number;
}

export interface DeniedCommand {
  command: string;
  /** What the command is for: the read paths (status, watch) or lock writes. */
  use: 'read' | 'write';
}

export interface DeploymentFacts {
  node: string;
  /** host:port this entry connects to, when known (standalone URLs and cluster members). */
  address: string | null;
  /** Reached through Sentinel (redis+sentinel://): a failover promotes a replica automatically. */
  viaSentinel: boolean;
  reachable: boolean;
  error: string | null;
  /** Median round trip of a few TIME calls. */
  latencyMs: number | null;
  /** Node clock minus local clock, from the fastest TIME sample. */
  clockOffsetMs: number | null;
  /** Why INFO failed (null when it was read). */
  infoError: string | null;
  runId: string | null;
  version: string | null;
  mode: string | null;
  role: 'master' | 'replica' | null;
  /** For a replica: the master it follows, as it names it. */
  masterAddress: string | null;
  masterLinkUp: boolean | null;
  /** The replication id: a master's own, a synced replica's master's. */
  replId: string | null;
  replicas: ReplicaAddress[];
  connectedReplicas: number | null;
  uptimeS: number | null;
  maxmemory: number | null;
  maxmemoryPolicy: string | null;
  aofEnabled: boolean | null;
  /** CONFIG GET; null when denied (see configError). */
  appendfsync: string | null;
  save: string | null;
  configError: string | null;
  /** null when the user's permissions could not be checked (see permissionsError). */
  denied: DeniedCommand[] | null;
  permissionsError: string | null;
  /** The user ACL checks ran for (ACL WHOAMI); never a password. */
  user: string | null;
  /** `redis`, `valkey`, or INFO's server_name; `version` is that server's own. */
  server?: string | null;
  /** What the server can do (null: the probe did not answer). */
  capabilities?: Capabilities | null;
}

/** A key the probes name: the first pattern with its glob syntax taken out (`*[lL][oO][cC][kK]*` -> `lock`). */
export function sampleKey(patterns: readonly string[]): string {
  const k = (patterns[0] ?? '').replace(/\[\^[^\]]*\]/g, 'x').replace(/\[([^\]])[^\]]*\]/g, '$1').replace(/\\(.)/g, '$1').replace(/\*/g, '').replace(/\?/g, 'x');
  return k || 'lock';
}

const SHA = '0'.repeat(40);

/** Commands the read paths and the lock writes run (the scripts' inner calls included). */
export function permissionProbes(key: string): Array<{ use: 'read' | 'write'; args: string[] }> {
  const read = [
    ['SCAN', '0', 'MATCH', key, 'COUNT', '10'], ['TIME'], ['INFO'], ['EVALSHA', SHA, '1', key], ['EVAL', 'return 1', '1', key],
    ['PTTL', key], ['PEXPIRETIME', key], ['TYPE', key], ['GETRANGE', key, '0', '1'], ['STRLEN', key],
    ['HLEN', key], ['HKEYS', key], ['HGET', key, 'f'], ['HSTRLEN', key, 'f'], ['ZCARD', key], ['ZRANGE', key, '0', '-1'],
  ];
  const write = [
    ['SET', key, 'v', 'PX', '1000', 'NX'], ['GET', key], ['DEL', key], ['PEXPIRE', key, '1000'], ['HEXISTS', key, 'f'], ['ZSCORE', key, 'm'],
    ['EVALSHA', SHA, '1', key],
  ];
  return [...read.map((args) => ({ use: 'read' as const, args })), ...write.map((args) => ({ use: 'write' as const, args }))];
}

function reason(e: unknown, node: RedisNode): string {
  return describeFailure(e, node).reason;
}

function numberOr(v: string | undefined): number | null {
  const n = Number(v);
  return v !== undefined && v !== '' && Number.isFinite(n) ? n : null;
}

function addressOf(node: RedisNode): string | null {
  if (node.spec?.kind === 'standalone') return formatHostPort(normalHost(node.spec));
  if (node.clusterMember) return node.id;
  return null;
}

/** localhost and 127.x spellings of the loopback address compare equal. */
export function normalHost(a: { host: string; port: number }): { host: string; port: number } {
  const h = a.host.toLowerCase();
  if (h === 'localhost' || /^127\./.test(h)) return { host: '127.0.0.1', port: a.port };
  return { host: h, port: a.port };
}

/**
 * The median of three round trips, and the clock offset the connection keeps from its
 * quickest TIME, these three included (clockOffset.ts). Without TIME (renamed, or not
 * granted) PING measures the latency and the offset stays unknown.
 */
async function timeSamples(node: RedisNode, timeoutMs: number, hasTime: boolean): Promise<{ latencyMs: number; clockOffsetMs: number | null }> {
  const rtts: number[] = [];
  let offset: ClockOffset | null = null;
  for (let i = 0; i < 3; i++) {
    const probe = await probeClock(node, hasTime, timeoutMs);
    rtts.push(probe.rttMs);
    offset = probe.offset;
  }
  rtts.sort((a, b) => a - b);
  return { latencyMs: Math.round(rtts[1] * 100) / 100, clockOffsetMs: offset === null ? null : Math.round(offset.offsetMs) };
}

async function settle<T>(p: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await p };
  } catch (error) {
    return { ok: false, error };
  }
}

export async function deploymentFacts(node: RedisNode, patterns: readonly string[], timeoutMs: number): Promise<DeploymentFacts> {
  const f: DeploymentFacts = {
    node: node.id, address: addressOf(node), viaSentinel: node.spec?.kind === 'sentinel', reachable: false, error: null, latencyMs: null, clockOffsetMs: null,
    infoError: null, runId: null, version: null, mode: null, role: null, masterAddress: null, masterLinkUp: null,
    replId: null, replicas: [], connectedReplicas: null, uptimeS: null, maxmemory: null, maxmemoryPolicy: null,
    aofEnabled: null, appendfsync: null, save: null, configError: null, denied: null, permissionsError: null, user: null,
    server: null, capabilities: null,
  };
  try {
    const caps = await withDeadline(capabilitiesOf(node.client, timeoutMs), timeoutMs).catch(() => null);
    f.capabilities = caps?.capabilities ?? null;
    f.server = caps?.server ?? null;
    Object.assign(f, await timeSamples(node, timeoutMs, caps?.capabilities.time !== false));
    f.reachable = true;
  } catch (e) {
    f.error = reason(e, node);
    return f;
  }
  const client = node.client;
  const [info, save, fsync] = await Promise.all([
    settle(withDeadline(client.info(), timeoutMs)),
    settle(withDeadline(client.config('GET', 'save') as Promise<string[]>, timeoutMs)),
    settle(withDeadline(client.config('GET', 'appendfsync') as Promise<string[]>, timeoutMs)),
  ]);
  if (info.ok) readInfo(f, parseInfo(info.value));
  else f.infoError = reason(info.error, node);
  if (save.ok && fsync.ok) {
    f.save = save.value[1] ?? null;
    f.appendfsync = fsync.value[1] ?? null;
  } else {
    f.configError = reason(save.ok ? (fsync as { error: unknown }).error : save.error, node);
  }
  await readPermissions(f, node, sampleKey(patterns), timeoutMs);
  return f;
}

function readInfo(f: DeploymentFacts, m: Map<string, string>): void {
  f.runId = m.get('run_id') || null;
  // The server's own version: Valkey's valkey_version, not its compatibility redis_version.
  ({ server: f.server, version: f.version } = serverOf(m));
  f.mode = m.get('redis_mode') ?? null;
  const role = m.get('role');
  f.role = role === 'master' ? 'master' : role === 'slave' ? 'replica' : null;
  const mh = m.get('master_host');
  const mp = numberOr(m.get('master_port'));
  if (f.role === 'replica' && mh && mp !== null) f.masterAddress = formatHostPort(normalHost({ host: mh, port: mp }));
  if (f.role === 'replica') f.masterLinkUp = m.get('master_link_status') === 'up';
  const replId = m.get('master_replid');
  // A replica that never synced still shows a replication id of its own.
  f.replId = replId && (f.role === 'master' || f.masterLinkUp) ? replId : null;
  f.connectedReplicas = numberOr(m.get('connected_slaves'));
  for (const [k, v] of m) {
    if (!/^slave\d+$/.test(k)) continue;
    const fields = new Map(v.split(',').map((kv) => kv.split('=') as [string, string]));
    const port = numberOr(fields.get('port'));
    if (fields.get('ip') && port !== null) f.replicas.push(normalHost({ host: fields.get('ip')!, port }));
  }
  f.uptimeS = numberOr(m.get('uptime_in_seconds'));
  f.maxmemory = numberOr(m.get('maxmemory'));
  f.maxmemoryPolicy = m.get('maxmemory_policy') ?? null;
  const aof = m.get('aof_enabled');
  f.aofEnabled = aof === undefined ? null : aof === '1';
}

async function readPermissions(f: DeploymentFacts, node: RedisNode, key: string, timeoutMs: number): Promise<void> {
  const client = node.client;
  const who = await settle(withDeadline(client.call('ACL', 'WHOAMI') as Promise<string>, timeoutMs));
  if (!who.ok) {
    const r = reason(who.error, node);
    // Redis before 6 has no ACLs: every authenticated client may run everything.
    if (/unknown command/i.test(r)) f.denied = [];
    else f.permissionsError = `ACL WHOAMI: ${r}`;
    return;
  }
  f.user = String(who.value);
  const probes = permissionProbes(key);
  const replies = await Promise.all(
    probes.map((p) => settle(withDeadline(client.call('ACL', 'DRYRUN', f.user!, ...p.args) as Promise<string>, timeoutMs))),
  );
  const denied: DeniedCommand[] = [];
  for (let i = 0; i < probes.length; i++) {
    const r = replies[i];
    const { use, args } = probes[i];
    if (!r.ok) {
      const why = reason(r.error, node);
      // A command this server does not have (PEXPIRETIME before 7.0) is not a permission.
      if (/not found|unknown command/i.test(why)) continue;
      f.permissionsError = `ACL DRYRUN: ${why}`;
      return;
    }
    if (String(r.value) !== 'OK' && !denied.some((d) => d.command === args[0] && d.use === use)) denied.push({ command: args[0], use });
  }
  f.denied = denied;
}
