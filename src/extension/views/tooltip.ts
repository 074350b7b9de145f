// The lock tooltip as Markdown text; every untrusted value goes through cell().
import type { LockEntry } from '../../core';
import { describeVerdict, fencingRiskWhy, livenessText, stateText, ttlText } from '../../core/vocabulary';
import { agedPttl } from '../../shared/countdown';
import { cell, escapeMarkdown } from '../words/markdown';
import { cycleText, holderText } from '../../shared/holderText';

export function lockTooltipMarkdown(entry: LockEntry, elapsedMs: number, mine: boolean): string {
  const n = entry.nodes.length;
  const lines: string[] = [];
  lines.push(`**${cell(entry.key, 200)}**`, '');
  lines.push(`${escapeMarkdown(describeVerdict(entry, n))} · quorum ${entry.quorum} of ${n}${mine ? ' · taken in this window' : ''}`, '');
  if (entry.flags.length > 0) lines.push(`Flags: ${entry.flags.map(escapeMarkdown).join(', ')}`, '');
  if (entry.fence !== null) {
    const risk = entry.fenceRisk ? ` · **fencing risk**: ${fencingRiskWhy(entry.quorum)}` : '';
    lines.push(`Fence: ${entry.fence}${risk}`, '');
  }
  const now = Date.now();
  const who = holderText(entry.holder, now);
  if (who) lines.push(`Holder: ${cell(who, 200)}`, '');
  const alive = livenessText(entry.liveness);
  if (alive) lines.push(`Liveness: ${cell(alive, 600)}`, '');
  const waiters = entry.waiters ?? [];
  if (waiters.length > 0) {
    const shown = waiters.slice(0, 10).map((w) => (w.reason ? 'unreadable entry' : `${holderText({ ...w }, now)?.replace(/ for /, ', waiting for ') ?? 'unnamed'}`));
    lines.push(`Waiting (${waiters.length}): ${shown.map((t) => cell(t, 120)).join('; ')}${waiters.length > 10 ? ' …' : ''}`, '');
  }
  const cycle = cycleText(entry);
  if (cycle) lines.push(`**${cell(cycle, 400)}**`, '');
  lines.push('| node | state | token | TTL | format |', '| --- | --- | --- | --- | --- |');
  for (const o of entry.nodes) {
    const pttl = agedPttl(o, elapsedMs);
    const ttl = o.state !== 'present' ? '' : ttlText(pttl);
    const state = stateText(o);
    lines.push(`| ${cell(o.node, 40)} | ${cell(state, 60)} | ${cell(o.token, 48)} | ${cell(ttl)} | ${cell(o.format ?? o.type)} |`);
  }
  return lines.join('\n');
}
