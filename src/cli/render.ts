// Human output. Pure: documents in, lines of terminal-safe text out. Every untrusted
// string (key, token, node error) goes through escapeText before it is padded or coloured.
import { describeVerdict } from '../core/vocabulary';
import type { NodeAttempt } from '../core';
import type { NodeFacts } from '../core/vocabulary';
import type { LockEntry, Observation, Snapshot } from '../core/vocabulary';
import { FLAGS, FLAGS_BY_URGENCY, fencingRiskWhy, formatDuration, formatOffset, formatTtl, livenessText, type LivenessVerdict } from '../core/vocabulary';
import { needsAttention, sortLocks } from '../shared/lockOrder';
import { displayWidth as width, padEnd as pad } from './displayWidth';
import { escapeText } from './escape';
import { PLAIN, Style } from './style';
import { cycleText, whoSuffix } from '../shared/holderText';
import { tokenLabels } from '../shared/tokenLabels';

/** The verdict as the tree words it, with the CLI's one duration format. */
export function verdictText(l: LockEntry): string {
  return describeVerdict(l, l.nodes.length, formatDuration);
}

/** A lock that never expires on its own is never shown as healthy. */
function verdictColour(l: LockEntry, style: Style): (s: string) => string {
  switch (l.verdict) {
    case 'held':
      return l.flags.includes('no-ttl') ? style.yellow : style.green;
    case 'split':
      return style.red;
    case 'partial':
      return style.yellow;
    case 'unknown':
      return style.magenta;
  }
}

export { tokenLabels } from '../shared/tokenLabels';

function copyCell(o: Observation, labels: Map<string, string>): string {
  switch (o.state) {
    case 'present': {
      const ttl = formatTtl(o.pttlMs);
      const count = o.holdCount !== null && o.holdCount > 1 ? ` x${o.holdCount}` : '';
      return `${labels.get(o.token ?? '') ?? '?'} ${ttl}${count}`;
    }
    case 'absent':
      return '-';
    case 'unreachable':
      return '?';
    case 'unreadable':
      return `!${escapeText(o.reason ?? 'unreadable')}`;
  }
}

export interface StatusOptions {
  style?: Style;
  patterns: string[];
  /** The clock holder ages are measured against; default now. */
  nowMs?: number;
  /** With no lock matching: patterns a short discovery walk found outside them. */
  outside?: ReadonlyArray<{ pattern: string; count: number; library: string }>;
}

export function renderNodes(snap: Snapshot, facts: NodeFacts[] | null, style: Style = PLAIN): string[] {
  const reachable = snap.nodes.filter((n) => n.reachable).length;
  const ok = reachable >= snap.quorum;
  const head = `Nodes: ${reachable} of ${snap.nodes.length} reachable, quorum ${snap.quorum}`;
  const lines = [ok ? style.bold(head) : style.red(style.bold(`${head}: NO QUORUM`))];
  const idWidth = Math.max(...snap.nodes.map((n) => width(escapeText(n.node))));
  for (const n of snap.nodes) {
    const id = pad(escapeText(n.node), idWidth);
    if (!n.reachable) {
      lines.push(`  ${id}  ${style.red('unreachable')}: ${escapeText(n.error ?? 'no answer')}`);
      continue;
    }
    if (n.outcome === 'unsupported') {
      lines.push(`  ${id}  ${style.red('unsupported')}: ${escapeText(n.error ?? 'cannot serve the read')}`);
      continue;
    }
    const parts = [style.green('ok'), n.latencyMs === null ? '' : formatDuration(n.latencyMs)];
    const f = facts?.find((x) => x.node === n.node);
    if (f && f.reachable) {
      if (f.version) parts.push(`${escapeText(f.server ?? 'redis')} ${escapeText(f.version)}`);
      const missing = missingCapabilities(f);
      if (missing.length) parts.push(style.yellow(`without ${missing.join(', ')}`));
      if (f.role !== 'unknown') parts.push(f.role === 'master' ? f.role : style.yellow(f.role));
      if (f.clockOffsetMs !== null) parts.push(`clock ${formatOffset(f.clockOffsetMs)}`);
      if (f.uptimeS !== null) parts.push(`up ${formatDuration(f.uptimeS * 1000)}`);
      parts.push(`persistence ${f.persistence}`);
      if (f.restartRisk === true) parts.push(style.red('restart risk: up for less than the longest TTL without persistence'));
      if (f.libraries.length) parts.push(`scripts: ${f.libraries.map(escapeText).join(', ')}`);
    }
    lines.push(`  ${id}  ${parts.filter(Boolean).join('  ')}`);
  }
  return lines;
}

export function renderLocks(snap: Snapshot, options: StatusOptions): string[] {
  const style = options.style ?? PLAIN;
  const lines: string[] = [];
  if (snap.locks.length === 0) {
    const seen = options.outside?.length ? ` Lock-shaped keys were seen outside them: ${options.outside.slice(0, 5).map((p) => `${escapeText(p.pattern)} (${p.count}, ${escapeText(p.library)})`).join(', ')}; pass them as --pattern, or run discover.` : '';
    const answered = snap.nodes.filter((n) => n.reachable).length;
    // Nothing read is no evidence of no lock: say which it is.
    const patterns = options.patterns.map(escapeText).join(', ');
    if (answered < snap.quorum) lines.push(`No locks listed: only ${answered} of ${snap.nodes.length} nodes answered (quorum ${snap.quorum}), so it cannot be told which locks exist.`);
    else if (snap.truncated) lines.push(`No locks match ${patterns} in the part read (the scan budget cut the read short).${seen}`);
    else lines.push(`No locks match ${patterns}.${seen}`);
  } else {
    const summary = anomalySummary(snap.locks);
    const attention = snap.locks.filter(needsAttention).length;
    // A cut read lists some of the locks: its count is a floor, said before the rows (output piped to head).
    lines.push(`Locks: ${snap.locks.length}${snap.truncated ? ' or more (truncated)' : ''}${attention ? `, ${attention} need${attention === 1 ? 's' : ''} attention` : ''}${summary.length ? ` (${summary.join(', ')})` : ''}; copies per node in configuration order: token label and TTL, - absent, ? unreachable, ! unreadable`);
    const rows = sortLocks(snap.locks).map((l) => {
      const labels = tokenLabels(l);
      return {
        entry: l,
        labels,
        key: escapeText(l.key),
        verdict: verdictText(l) + escapeText(whoSuffix(l, options.nowMs ?? Date.now())),
        flags: l.flags.length ? l.flags.join(',') : '-',
        cells: l.nodes.map((o) => copyCell(o, labels)),
      };
    });
    const header = { key: 'KEY', verdict: 'VERDICT', flags: 'FLAGS' };
    // A key wider than its column is never cut (a cut name could match another key): it
    // gets a line of its own and its row starts under the column, so columns stay aligned.
    const kw = Math.min(KEY_COLUMN, widest(rows, (r) => width(r.key), width(header.key)));
    const vw = widest(rows, (r) => width(r.verdict), width(header.verdict));
    const fw = widest(rows, (r) => width(r.flags), width(header.flags));
    const cw = snap.nodes.map((_, i) => widest(rows, (r) => width(r.cells[i] ?? ''), 0));
    lines.push(style.dim(`${pad(header.key, kw)}  ${pad(header.verdict, vw)}  ${pad(header.flags, fw)}  COPIES`));
    for (const r of rows) {
      const colour = verdictColour(r.entry, style);
      const flags = r.flags === '-' ? pad(r.flags, fw) : style.yellow(pad(r.flags, fw));
      const copies = r.cells.map((c, i) => pad(c, cw[i] ?? 0)).join('  ').trimEnd();
      if (width(r.key) > kw) lines.push(r.key);
      lines.push(`${pad(width(r.key) > kw ? '' : r.key, kw)}  ${colour(pad(r.verdict, vw))}  ${flags}  ${copies}`);
      for (const [token, label] of r.labels) {
        lines.push(style.dim(`    ${label} = `) + escapeText(token));
      }
      if (r.entry.fence !== null) lines.push(fenceLine(r.entry, style));
      const cycle = cycleText(r.entry);
      if (cycle) lines.push(style.red(`    ${escapeText(cycle)}`));
      const alive = livenessText(r.entry.liveness);
      if (alive) lines.push(livenessColour(r.entry.liveness!.verdict, style)(`    ${escapeText(alive)}`));
    }
  }
  if (snap.skipped.length) {
    const reasons = new Map<string, number>();
    for (const s of snap.skipped) reasons.set(s.reason, (reasons.get(s.reason) ?? 0) + 1);
    const list = [...reasons].map(([r, n]) => `${n} ${escapeText(r)}`).join(', ');
    const one = snap.skipped.length === 1;
    lines.push(style.dim(`Skipped ${snap.skipped.length} matching ${one ? 'key that is not a lock' : 'keys that are not locks'} (${list}); --json lists them.`));
  }
  if (snap.truncated) {
    lines.push(style.yellow('Truncated: the scan budget (keys or time) cut this snapshot short; narrow --pattern to see everything.'));
  }
  return lines;
}

const KEY_COLUMN = 48;

/**
 * The largest of `least` and `of` each row: a loop, not Math.max(...rows), whose arguments
 * all go on the stack (past about 120,000 locks the table threw a RangeError).
 */
function widest<T>(rows: readonly T[], of: (row: T) => number, least: number): number {
  let most = least;
  for (const r of rows) most = Math.max(most, of(r));
  return most;
}

/** A gone holder in red, one that stopped renewing in yellow, the rest dim. */
function livenessColour(verdict: LivenessVerdict, style: Style): (text: string) => string {
  return verdict === 'gone' ? style.red : verdict === 'stopped-renewing' ? style.yellow : style.dim;
}

/**
 * `1 split`, `2 partial`, `1 no TTL`...: what the locks that need attention have, every
 * verdict but held and every flag with a word (so `expiring` shows up only beside a
 * trouble that counts, src/shared/lockOrder.ts needsAttention), in the flag table's order.
 */
export function anomalySummary(locks: readonly LockEntry[]): string[] {
  const counts = new Map<string, number>();
  const add = (word: string): void => void counts.set(word, (counts.get(word) ?? 0) + 1);
  const troubled = locks.filter(needsAttention);
  for (const l of troubled) if (l.verdict !== 'held') add(l.verdict);
  for (const l of troubled) if (l.liveness?.verdict === 'gone') add('holder gone');
  for (const l of troubled) for (const f of l.flags) if (FLAGS[f].word) add(FLAGS[f].word);
  const order = ['split', 'partial', 'unknown', 'holder gone', ...FLAGS_BY_URGENCY.map((f) => FLAGS[f].word)];
  const rank = (w: string): number => order.indexOf(w);
  return [...counts].sort((a, b) => rank(a[0]) - rank(b[0])).map(([w, n]) => `${n} ${w}`);
}

export function renderStatus(snap: Snapshot, facts: NodeFacts[] | null, options: StatusOptions): string {
  return renderStatusLines(snap, facts, options).join('\n');
}

/** renderStatus's lines, for a caller that writes them in pieces (a table of 100,000 locks is 30 MB of text). */
export function renderStatusLines(snap: Snapshot, facts: NodeFacts[] | null, options: StatusOptions): string[] {
  const lines = renderLocks(snap, options);
  lines.push('');
  for (const line of renderNodes(snap, facts, options.style)) lines.push(line);
  return lines;
}

export function describeOutcome(a: { outcome: string; heldBy?: string; reason?: string }): string {
  if (a.outcome === 'held-by-other') return `held by another token${a.heldBy === undefined ? '' : ` (${escapeText(a.heldBy)})`}`;
  return a.reason ? `${a.outcome} (${escapeText(a.reason)})` : a.outcome;
}

function outcomeColour(outcome: string, style: Style): (s: string) => string {
  if (outcome === 'granted' || outcome === 'released' || outcome === 'deleted') return style.green;
  if (outcome === 'not-held' || outcome === 'absent') return style.dim;
  return style.red;
}

export function renderNodeList(nodes: ReadonlyArray<{ node: string; outcome: string; heldBy?: string; reason?: string }>, style: Style = PLAIN): string[] {
  const w = Math.max(0, ...nodes.map((n) => width(escapeText(n.node))));
  return nodes.map((n) => `  ${pad(escapeText(n.node), w)}  ${outcomeColour(n.outcome, style)(describeOutcome(n))}`);
}

export function keyList(keys: readonly string[]): string {
  return keys.map(escapeText).join(', ');
}

export function renderLockResult(verb: 'acquired' | 'extended', resources: string[], token: string, validityMs: number, nodes: NodeAttempt[], style: Style = PLAIN, fences?: readonly number[]): string {
  const granted = nodes.filter((n) => n.outcome === 'granted').length;
  const fenceLines = !fences ? [] : fences.length === 1 ? [`fence ${fences[0]}`] : [`fences ${resources.map((r, i) => `${escapeText(r)} ${fences[i]}`).join(', ')}`];
  return [
    `${style.green(verb)} ${keyList(resources)}: validity ${formatDuration(validityMs)}, ${granted} of ${nodes.length} nodes granted`,
    `token ${escapeText(token)}`,
    ...fenceLines,
    ...renderNodeList(nodes, style),
  ].join('\n');
}

/** What force-release is about to delete, per node. */
export function renderForcePlan(entry: LockEntry, style: Style = PLAIN): string {
  const present = entry.nodes.filter((o) => o.state === 'present').length;
  const w = Math.max(...entry.nodes.map((o) => width(escapeText(o.node))));
  const lines = [`force-release ${escapeText(entry.key)} (${verdictText(entry)}): ${present} cop${present === 1 ? 'y' : 'ies'} to delete`];
  for (const o of entry.nodes) {
    const id = pad(escapeText(o.node), w);
    if (o.state === 'present') {
      const ttl = o.pttlMs !== null && o.pttlMs >= 0 ? `TTL ${formatDuration(o.pttlMs)}` : formatTtl(o.pttlMs);
      lines.push(`  ${id}  ${style.red('delete')}  token ${escapeText(o.token ?? '')}  ${ttl}  (${o.format ?? o.type ?? 'unknown'})`);
    } else if (o.state === 'unreachable') {
      lines.push(`  ${id}  ${style.yellow('unreachable')}: ${escapeText(o.reason ?? 'no answer')} (left alone)`);
    } else if (o.state === 'unreadable') {
      lines.push(`  ${id}  unreadable: ${escapeText(o.reason ?? '')} (left alone)`);
    } else {
      lines.push(`  ${id}  absent`);
    }
  }
  return lines.join('\n');
}

export function lockLine(l: LockEntry): string {
  const flags = l.flags.length ? `  [${l.flags.join(', ')}]` : '';
  const fence = l.fence === null ? '' : `  fence ${l.fence}${l.fenceRisk ? ' (fencing risk)' : ''}`;
  return `${escapeText(l.key)}  ${verdictText(l)}${flags}${fence}`;
}

/** The fence under a lock's row; a risk says why the next fence may repeat this one. */
function fenceLine(l: LockEntry, style: Style): string {
  if (!l.fenceRisk) return style.dim(`    fence ${l.fence}`);
  return `    fence ${l.fence}  ` + style.yellow(`fencing risk: ${fencingRiskWhy(l.quorum)}`);
}

/** HH:MM:SS.mmm of the local clock, for watch lines. */
export function clockTime(epochMs: number): string {
  const d = new Date(epochMs);
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

/** Capabilities a node lacks, in the words of the Nodes view (see NodeCapabilities). */
export function missingCapabilities(f: NodeFacts): string[] {
  const c = f.capabilities;
  if (!c) return [];
  const names: Array<[keyof typeof c, string]> = [['scripts', 'scripts'], ['readOnlyScripts', 'EVAL_RO'], ['scriptFlags', 'script flags'], ['pexpiretime', 'PEXPIRETIME'], ['memoryUsage', 'MEMORY'], ['time', 'TIME'], ['config', 'CONFIG']];
  return names.filter(([k]) => c[k] === false).map(([, word]) => word);
}
