// Per-node facts for the Nodes view and `status`: version, role, clock offset, uptime,
// persistence and restart risk. Everything a restricted user may not read shows as
// unknown instead of failing the whole node.
import { withDeadline } from '../connection/deadline';
import { probeClock } from '../connection/clockOffset';
import type { NodeFacts, Persistence } from '../vocabulary/inspectTypes';
import { KNOWN_SCRIPTS, librariesFromExists } from '../vocabulary/libraries';
import { describeFailure, RedisNode } from '../connection/nodes';
import { capabilitiesOf, parseInfo } from '../connection/capabilities';

export { parseInfo } from '../connection/capabilities';

async function optional<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch {
    return undefined;
  }
}

/** Persistence from INFO (aof_enabled) plus CONFIG GET save when allowed. */
function persistenceOf(info: Map<string, string>, saveConfig: string | undefined): Persistence {
  if (info.get('aof_enabled') === '1') return 'on';
  if (saveConfig === undefined) return 'unknown';
  return saveConfig.trim() === '' ? 'off' : 'on';
}

export async function nodeFacts(node: RedisNode, longestTtlMs: number, timeoutMs: number): Promise<NodeFacts> {
  const facts: NodeFacts = {
    node: node.id, reachable: false, latencyMs: null, version: null, role: 'unknown', clockOffsetMs: null,
    uptimeS: null, persistence: 'unknown', restartRisk: 'unknown', libraries: [], error: null,
  };
  const client = node.client;
  try {
    const caps = await withDeadline(capabilitiesOf(client, timeoutMs), timeoutMs);
    Object.assign(facts, { server: caps.server, version: caps.version, capabilities: caps.capabilities });
    // Without TIME (renamed, or not granted) PING measures the latency; the offset stays unknown.
    const { rttMs, offset } = await probeClock(node, caps.capabilities.time !== false, timeoutMs);
    facts.reachable = true;
    facts.latencyMs = Math.round(rttMs * 100) / 100;
    if (offset !== null) facts.clockOffsetMs = Math.round(offset.offsetMs);
  } catch (e) {
    facts.error = describeFailure(e, node).reason;
    return facts;
  }
  const [info, save, exists] = await Promise.all([
    optional(withDeadline(client.info(), timeoutMs)),
    optional(withDeadline(client.config('GET', 'save') as Promise<string[]>, timeoutMs)),
    optional(withDeadline(client.script('EXISTS', ...KNOWN_SCRIPTS.map((s) => s.sha1)) as Promise<number[]>, timeoutMs)),
  ]);
  if (info !== undefined) {
    const m = parseInfo(info);
    // The server's own version (Valkey's, not its compatibility redis_version).
    facts.version = facts.version ?? m.get('redis_version') ?? null;
    const role = m.get('role');
    facts.role = role === 'master' ? 'master' : role === 'slave' ? 'replica' : m.get('redis_mode') === 'sentinel' ? 'sentinel' : 'unknown';
    const up = Number(m.get('uptime_in_seconds'));
    facts.uptimeS = Number.isFinite(up) ? up : null;
    facts.persistence = persistenceOf(m, save?.[1]);
  }
  if (exists) facts.libraries = librariesFromExists(exists);
  if (facts.persistence === 'on') facts.restartRisk = false;
  else if (facts.persistence === 'off' && facts.uptimeS !== null) facts.restartRisk = facts.uptimeS * 1000 < longestTtlMs;
  return facts;
}
