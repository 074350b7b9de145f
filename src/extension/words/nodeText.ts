// Words of the Nodes tree, as plain data.
import type { NodeFacts, NodeStatus } from '../../core';
import { cell, printable } from './markdown';

export function nodeDescription(facts: NodeFacts | undefined, status: NodeStatus | undefined): string {
  if (facts && !facts.reachable) return `unreachable: ${printable(facts.error ?? 'no answer')}`;
  if (!facts && status && !status.reachable) return `unreachable: ${printable(status.error ?? 'no answer')}`;
  if (status?.outcome === 'unsupported') return `unsupported: ${printable(status.error ?? 'cannot serve the read')}`;
  if (!facts) return status?.latencyMs != null ? `${status.latencyMs} ms` : 'connecting…';
  const parts: string[] = [];
  if (facts.latencyMs !== null) parts.push(`${facts.latencyMs} ms`);
  if (facts.version) parts.push(facts.server && facts.server !== 'redis' ? `${printable(facts.server)} ${printable(facts.version)}` : `v${printable(facts.version)}`);
  if (facts.role !== 'unknown') parts.push(facts.role);
  if (facts.clockOffsetMs !== null) parts.push(`clock ${facts.clockOffsetMs >= 0 ? '+' : ''}${facts.clockOffsetMs} ms`);
  if (facts.restartRisk === true) parts.push('restart risk');
  return parts.join(' · ');
}

export function nodeTooltipMarkdown(id: string, facts: NodeFacts | undefined, status: NodeStatus | undefined): string {
  const rows: Array<[string, string | null | undefined]> = [
    ['reachable', facts ? String(facts.reachable) : status ? String(status.reachable) : 'unknown'],
    ['latency', facts?.latencyMs != null ? `${facts.latencyMs} ms` : status?.latencyMs != null ? `${status.latencyMs} ms` : null],
    ['server', facts?.server],
    ['version', facts?.version],
    ['capabilities missing', facts?.capabilities ? missingOf(facts.capabilities) : null],
    ['role', facts?.role],
    ['clock offset', facts?.clockOffsetMs != null ? `${facts.clockOffsetMs} ms` : null],
    ['uptime', facts?.uptimeS != null ? `${facts.uptimeS} s` : null],
    ['persistence', facts?.persistence],
    ['restart risk', facts ? String(facts.restartRisk) : null],
    ['lock libraries (scripts cached)', facts?.libraries.length ? facts.libraries.join(', ') : null],
    ['error', facts?.error ?? status?.error],
  ];
  const lines = [`**${cell(id, 120)}**`, '', '| | |', '| --- | --- |'];
  for (const [k, v] of rows) if (v !== null && v !== undefined) lines.push(`| ${cell(k)} | ${cell(v, 200)} |`);
  if (facts?.restartRisk === true) {
    lines.push('', 'Up for less than the longest live TTL with persistence off: locks it granted before a restart are gone, so another client may take them (restart delay rule).');
    lines.push('', 'Its fence counters are gone too: a lock whose highest fence fewer than a quorum of nodes still hold is flagged as a fencing risk in its tooltip and detail panel.');
  }
  return lines.join('\n');
}

/** The capabilities a node lacks (false), by name; null when it lacks none. */
function missingOf(c: NonNullable<NodeFacts['capabilities']>): string | null {
  const missing = Object.entries(c).filter(([, v]) => v === false).map(([k]) => k);
  return missing.length ? missing.join(', ') : null;
}
