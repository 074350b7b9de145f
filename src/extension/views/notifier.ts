// Optional notifications (redlock.notifyOn) when a split or a lock without TTL appears,
// and an offer to set a password when a node answers NOAUTH/WRONGPASS. Each lock state is
// notified once per workspace: what was said is remembered in workspaceState, so a new
// window or a changed node list does not say it again (docs/decisions.md, "Watching").
// Toasts respect attention: at most one per kind per TOAST_INTERVAL_MS, naming the count
// and the worst lock ("3 locks split: orders:42, …"); everything else stays in the view.
import * as vscode from 'vscode';
import { describeVerdict, parseKeyArg, type LockEntry } from '../../core';
import { holderText } from '../../shared/holderText';
import type { Log } from '../log';
import type { LockModel, ModelChange } from '../model/lockModel';
import { printable } from '../words/markdown';
import { readSettings, type NotifyOn } from '../model/settings';

const CONDITIONS: Record<Exclude<NotifyOn, 'lost'>, (e: LockEntry) => boolean> = {
  split: (e) => e.verdict === 'split',
  'no-ttl': (e) => e.flags.includes('no-ttl'),
};

/** workspaceState key: the lock states already notified, oldest first. */
export const NOTIFIED_STATE = 'redlock.notified';
/** Remembered states, at most: the oldest are forgotten first. */
const MAX_REMEMBERED = 500;

/**
 * One lock state as notifications count it: the key, the condition and the tokens behind
 * it. The same tokens still split is the same news; another token is a new state.
 */
export function notifiedState(kind: string, e: LockEntry): string {
  const tokens = kind === 'split' ? Object.keys(e.holders) : e.nodes.filter((o) => o.state === 'present' && o.pttlMs !== null && o.pttlMs < 0).map((o) => o.token ?? '');
  return JSON.stringify([e.key, kind, [...new Set(tokens)].sort()]);
}

/** One toast per kind per this long, at most: news within it waits and is told together. */
export const TOAST_INTERVAL_MS = 30_000;

/** The lock a batched toast names first: the most tokens, then key order. */
function worstFirst(a: LockEntry, b: LockEntry): number {
  const d = Object.keys(b.holders).length - Object.keys(a.holders).length;
  return d !== 0 ? d : a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

type Kind = Exclude<NotifyOn, 'lost'>;

/** History reads per refresh, at most: a `lost` check must stay a small, bounded read. */
const MAX_LOST_CHECKS = 20;
/** A key stays watched for `lost` this long after our holder left it (the holder records late). */
const LOST_GRACE_MS = 60_000;

export class Notifier implements vscode.Disposable {
  private readonly subscription: vscode.Disposable;
  private readonly askedPassword = new Set<string>();
  /** Every lock state notified so far, newest last (for tests). */
  readonly sent: string[] = [];
  /** Every toast shown, its message in English, newest last (for tests). */
  readonly toasts: string[] = [];
  /** Per kind: when its last toast went out, and the news waiting for the interval to end. */
  private readonly toastAt = new Map<Kind, number>();
  private readonly pending = new Map<Kind, LockEntry[]>();
  private readonly timers = new Map<Kind, NodeJS.Timeout>();
  /** Keys whose holder carried our identity, and until when to keep checking them. */
  private readonly lostWatch = new Map<string, number>();
  /** Only losses recorded after this are news. */
  private lostSince = Date.now();
  private checkingLost = false;

  constructor(private readonly model: LockModel, private readonly log: Log, readonly memory: vscode.Memento, private readonly toastIntervalMs = TOAST_INTERVAL_MS) {
    this.subscription = vscode.Disposable.from(
      model.onDidChange((c) => this.onChange(c)),
      model.onDidChangeNodes(() => this.checkAuth()),
    );
  }

  private onChange(c: ModelChange): void {
    const wanted = readSettings().notifyOn;
    if (wanted.length === 0) return;
    if (wanted.includes('lost')) {
      const touched = [...c.added, ...c.changed].map((k) => this.model.entry(k)).filter((e): e is LockEntry => e !== undefined);
      void this.checkLost(touched);
    }
    this.review([...c.added, ...c.changed], wanted);
  }

  /** Notifies the states of these keys not notified before in this workspace. */
  review(keys: readonly string[], wanted: readonly NotifyOn[] = readSettings().notifyOn): void {
    const seen = this.memory.get<string[]>(NOTIFIED_STATE, []);
    const fresh: string[] = [];
    for (const key of keys) {
      const e = this.model.entry(key);
      if (!e) continue;
      for (const kind of wanted) {
        if (kind === 'lost' || !CONDITIONS[kind](e)) continue;
        const state = notifiedState(kind, e);
        if (seen.includes(state) || fresh.includes(state)) continue;
        fresh.push(state);
        this.notify(kind, e);
      }
    }
    if (fresh.length > 0) void this.memory.update(NOTIFIED_STATE, [...seen, ...fresh].slice(-MAX_REMEMBERED));
  }

  /**
   * Reads the recorded history of the watched locks our core holds (and of those it held in
   * the last minute: a lease is often recorded lost after the copy is gone), bounded.
   */
  private async checkLost(locks: readonly LockEntry[]): Promise<void> {
    if (this.checkingLost) return;
    this.checkingLost = true;
    try {
      const now = Date.now();
      for (const l of locks) if (l.holder && l.holder.thread === undefined) this.lostWatch.set(l.key, now + LOST_GRACE_MS);
      for (const [k, until] of this.lostWatch) if (until < now) this.lostWatch.delete(k);
      const redlock = await this.model.redlock();
      if (!redlock) return;
      const since = this.lostSince;
      let newest = since;
      for (const key of [...this.lostWatch.keys()].slice(0, MAX_LOST_CHECKS)) {
        const h = await redlock.history(parseKeyArg(key));
        for (const e of h.events) {
          if (e.type !== 'lost' || e.at === null || e.at <= since) continue;
          newest = Math.max(newest, e.at);
          const who = holderText(e.holder ? { ...e.holder, since: null } : null, now) ?? 'a holder';
          this.sent.push(`lost: ${key}`);
          const message = `${printable(key)}: ${printable(who)} lost its lease${e.reason ? ` (${printable(e.reason)})` : ''}.`;
          this.log.warn(`notify lost: ${message}`);
          const shown = e.reason
            ? vscode.l10n.t('Redlock: {0}: {1} lost its lease ({2}).', printable(key), printable(who), printable(e.reason))
            : vscode.l10n.t('Redlock: {0}: {1} lost its lease.', printable(key), printable(who));
          void vscode.window.showWarningMessage(shown, vscode.l10n.t('Show')).then((pick) => {
            if (pick) void vscode.commands.executeCommand('redlock.locks.focus');
          });
        }
      }
      this.lostSince = newest;
    } catch (e) {
      this.log.warn(`lost-lease check failed: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      this.checkingLost = false;
    }
  }

  /** Logs the news at once; the toast waits for the kind's interval (see TOAST_INTERVAL_MS). */
  private notify(kind: Kind, e: LockEntry): void {
    const what = kind === 'split' ? 'has two or more holders' : 'has a copy that never expires';
    this.sent.push(`${kind}: ${e.key}`);
    this.log.warn(`notify ${kind}: ${printable(e.key)} ${what} (${describeVerdict(e, e.nodes.length)}).`);
    const waiting = this.pending.get(kind);
    if (waiting) waiting.push(e);
    else this.pending.set(kind, [e]);
    if (this.timers.has(kind)) return;
    const wait = Math.max(0, (this.toastAt.get(kind) ?? -Infinity) + this.toastIntervalMs - Date.now());
    // Even with no toast due, wait a turn: news of one refresh is told in one toast.
    this.timers.set(kind, setTimeout(() => this.toast(kind), wait));
  }

  /** One toast for the kind's waiting news: the count and the worst lock. */
  private toast(kind: Kind): void {
    this.timers.delete(kind);
    const news = (this.pending.get(kind) ?? []).sort(worstFirst);
    this.pending.delete(kind);
    if (news.length === 0) return;
    this.toastAt.set(kind, Date.now());
    const e = news[0];
    const verdict = describeVerdict(e, e.nodes.length);
    let shown: string;
    if (news.length === 1) {
      this.toasts.push(`${e.key} ${kind === 'split' ? 'has two or more holders' : 'has a copy that never expires'}`);
      shown = kind === 'split'
        ? vscode.l10n.t('Redlock: {0} has two or more holders ({1}).', printable(e.key), verdict)
        : vscode.l10n.t('Redlock: {0} has a copy that never expires ({1}).', printable(e.key), verdict);
    } else {
      this.toasts.push(`${news.length} locks ${kind === 'split' ? 'split' : 'without TTL'}: ${e.key}, …`);
      shown = kind === 'split'
        ? vscode.l10n.t('Redlock: {0} locks split: {1}, …', news.length, printable(e.key))
        : vscode.l10n.t('Redlock: {0} locks have a copy that never expires: {1}, …', news.length, printable(e.key));
    }
    void vscode.window.showWarningMessage(shown, vscode.l10n.t('Show')).then((pick) => {
      if (pick) void vscode.commands.executeCommand('redlock.locks.focus');
    });
  }

  private checkAuth(): void {
    for (const n of this.model.nodeStates) {
      if (n.outcome !== 'auth' || this.askedPassword.has(n.node)) continue;
      this.askedPassword.add(n.node);
      this.sent.push(`auth: ${n.node}`);
      void vscode.window.showWarningMessage(vscode.l10n.t('Redlock: node {0} needs a password ({1}).', n.node, n.error ?? ''), vscode.l10n.t('Set Password')).then((pick) => {
        if (pick) void vscode.commands.executeCommand('redlock.setPassword', { id: n.node });
      });
    }
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.subscription.dispose();
  }
}
