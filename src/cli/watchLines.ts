// What `watch` prints for each change: the lock's verdict now and what moved since the
// last line about it, per node and field (`127.0.0.1:7103 token A→B`, `TTL 1.2 s→10.0 s`,
// `verdict held 3/5→split 2+2/5`, `flags +no-ttl`, `waiting 0→2`). Token labels (A, B, ...) start as
// the first table labelled them and stay with their token for as long as the key is
// watched; a new token gets the next label and one legend line with the whole token.
//
// Quiet changes: a change in which no token, node state, hold count, verdict or flag
// other than `expiring` moved (a worker renewing its lock: the TTL jumps back up, the
// `expiring` flag flips) prints nothing. Such a lock would otherwise print a line or two
// per renewal. The rule is in docs/cli.md ("watch"); `--json` still reports every change.
import { describeVerdict } from '../core/vocabulary';
import type { LockEntry, Observation } from '../core/vocabulary';
import { formatDuration, formatTtl, livenessText } from '../core/vocabulary';
import { escapeText } from './escape';
import { tokenLabels, verdictText } from './render';

/** A TTL that rose by more than this since the last line (read-time noise aside) was renewed. */
const TTL_JUMP_MS = 250;

interface Memory {
  entry: LockEntry;
  atMs: number;
  /**
   * Undefined until the key first changes: then the labels the first table gave `entry`
   * (a map per lock of a 100,000-lock first snapshot, for the few that change).
   */
  labels: Map<string, string> | undefined;
  /** Labels handed out so far: a label is never given to a second token of the same key. */
  issued: number;
}

export interface ChangeText {
  /** `verdict now: what changed`, escaped; null when the change is quiet. */
  text: string | null;
  /** `B = <token>` for each label first handed out by this change. */
  legend: string[];
}

function labelName(i: number): string {
  return i < 26 ? String.fromCharCode(65 + i) : `T${i + 1}`;
}

/** The verdict and holder counts without the validity, which moves on every read. */
function verdictHead(l: LockEntry): string {
  return describeVerdict({ ...l, validityMs: null }, l.nodes.length).replace(/ · no TTL$/, '');
}

export class WatchLines {
  private readonly keys = new Map<string, Memory>();

  /** The first snapshot: labels as the status table gave them. */
  seed(locks: readonly LockEntry[], atMs: number): void {
    this.keys.clear();
    for (const l of locks) this.keys.set(l.key, { entry: l, atMs, labels: undefined, issued: 0 });
  }

  /** A new lock: its legend (the verdict line is the caller's `lockLine`). */
  added(l: LockEntry, atMs: number): string[] {
    const labels = tokenLabels(l);
    this.keys.set(l.key, { entry: l, atMs, labels, issued: labels.size });
    return [...labels].map(([token, label]) => `${label} = ${escapeText(token)}`);
  }

  removed(key: string): void {
    this.keys.delete(key);
  }

  changed(now: LockEntry, atMs: number): ChangeText {
    const memory = this.keys.get(now.key);
    // Not seen before (it was no lock at the last line, e.g. unreadable): shown whole.
    if (!memory) return { text: `${escapeText(now.key)} ${verdictText(now)}`, legend: this.added(now, atMs) };
    if (memory.labels === undefined) {
      memory.labels = tokenLabels(memory.entry);
      memory.issued = memory.labels.size;
    }
    const labels = memory.labels;
    const legend: string[] = [];
    const label = (o: Observation): string => {
      if (o.state === 'absent') return '-';
      if (o.state === 'unreachable') return '?';
      if (o.state === 'unreadable') return '!';
      const token = o.token ?? '';
      let l = labels.get(token);
      if (l === undefined) {
        l = labelName(memory.issued++);
        labels.set(token, l);
        legend.push(`${l} = ${escapeText(token)}`);
      }
      return l;
    };
    const before = memory.entry;
    const elapsed = Math.max(0, atMs - memory.atMs);
    // Per node, `field before→after`; nodes with the same words are named together.
    const byChange = new Map<string, string[]>();
    let loud = false;
    const note = (node: string, words: string, counts: boolean): void => {
      if (counts) loud = true;
      const nodes = byChange.get(words) ?? [];
      nodes.push(escapeText(node));
      byChange.set(words, nodes);
    };
    for (const o of now.nodes) {
      const was = before.nodes.find((b) => b.node === o.node);
      const after = label(o);
      if (!was) continue;
      const prior = label(was);
      if (prior !== after) {
        note(o.node, `${was.state === 'present' && o.state === 'present' ? 'token' : 'copy'} ${prior}→${after}`, true);
        continue;
      }
      if (o.state !== 'present') continue;
      if ((was.holdCount ?? 1) !== (o.holdCount ?? 1)) note(o.node, `hold count ${was.holdCount ?? 1}→${o.holdCount ?? 1}`, true);
      const wasNoTtl = was.pttlMs !== null && was.pttlMs < 0;
      const isNoTtl = o.pttlMs !== null && o.pttlMs < 0;
      if (wasNoTtl !== isNoTtl) note(o.node, `TTL ${formatTtl(wasNoTtl ? -1 : aged(was.pttlMs, elapsed))}→${formatTtl(o.pttlMs)}`, true);
      else if (!isNoTtl && was.pttlMs !== null && o.pttlMs !== null && o.pttlMs > aged(was.pttlMs, elapsed) + TTL_JUMP_MS) {
        note(o.node, `TTL ${formatDuration(aged(was.pttlMs, elapsed))}→${formatDuration(o.pttlMs)}`, false);
      }
    }
    const parts: string[] = [];
    const headBefore = verdictHead(before);
    const headNow = verdictHead(now);
    if (headBefore !== headNow) {
      loud = true;
      parts.push(`verdict ${headBefore}→${headNow}`);
    }
    const gained = now.flags.filter((f) => !before.flags.includes(f));
    const lost = before.flags.filter((f) => !now.flags.includes(f));
    if (gained.length || lost.length) {
      if ([...gained, ...lost].some((f) => f !== 'expiring')) loud = true;
      parts.push(`flags ${[...gained.map((f) => `+${f}`), ...lost.map((f) => `-${f}`)].join(' ')}`);
    }
    const waitBefore = before.waiters?.length ?? 0;
    const waitNow = now.waiters?.length ?? 0;
    if (waitBefore !== waitNow) {
      loud = true;
      parts.push(`waiting ${waitBefore}→${waitNow}`);
    }
    // A new fence is a new fenced holder; a risk appearing is what an operator must see.
    if ((before.fence ?? null) !== (now.fence ?? null)) {
      loud = true;
      parts.push(`fence ${before.fence ?? '-'}→${now.fence ?? '-'}`);
    }
    if ((before.fenceRisk ?? false) !== (now.fenceRisk ?? false)) {
      loud = true;
      parts.push(now.fenceRisk ? '+fencing risk' : '-fencing risk');
    }
    // A holder that stopped renewing or is gone, or came back from that: the verdict's move,
    // with the line that says why. Its first renewal seen (unknown -> alive) stays quiet.
    const troubled = (v: string | undefined): boolean => v === 'stopped-renewing' || v === 'gone';
    const was = before.liveness?.verdict;
    if (now.liveness && was !== now.liveness.verdict && (troubled(was) || troubled(now.liveness.verdict))) {
      loud = true;
      parts.push(escapeText(livenessText(now.liveness)!));
    }
    for (const [words, nodes] of byChange) parts.push(`${nodes.join(', ')} ${words}`);
    // Labels of tokens gone from every node are dropped; `issued` keeps them from coming back.
    const present = new Set(now.nodes.filter((o) => o.state === 'present').map((o) => o.token ?? ''));
    for (const token of labels.keys()) if (!present.has(token)) labels.delete(token);
    memory.entry = now;
    memory.atMs = atMs;
    if (!loud) return { text: null, legend: [] };
    return { text: `${escapeText(now.key)} ${verdictText(now)}: ${parts.join('; ')}`, legend };
  }
}

function aged(pttlMs: number | null, elapsedMs: number): number {
  return Math.max(0, (pttlMs ?? 0) - elapsedMs);
}
