// The Locks view: one item per key, its node copies as children. Elements are memoized
// per key so onDidChangeTreeData can fire exactly the ones that changed; a re-sort,
// an added or a removed key refreshes the root. Tooltips are built on hover
// (resolveTreeItem), and the once-a-second countdown re-renders only the rows near the
// top of the list, the expanded and the selected ones; the rest every COUNTDOWN_FAR_EVERY
// ticks (docs/decisions.md: the cost of a countdown over 10,000 rows). A row whose tooltip
// was just resolved holds still while it is read: a re-render would close the tooltip
// (docs/decisions.md, "Tooltips that stay").
import * as vscode from 'vscode';
import type { LockEntry, Observation } from '../../core';
import { agedEntry, agedEntryWithCopies, steppedEntry } from '../../shared/countdown';
import { keyMatcher } from '../../shared/glob';
import type { LockModel, ModelChange } from '../model/lockModel';
import { compareLocks, needsAttention } from '../../shared/lockOrder';
import { copyContextValue, copyDescription, copyIcon, copyTokenMark, lockContextValue, lockDescription, lockIcon, lockRowText, type IconSpec } from '../words/lockText';
import { escapeMarkdown, printable } from '../words/markdown';
import type { MineLocks } from '../model/mineLocks';
import { HeldElement, HeldGroupElement, heldGroupItem, heldItem } from './heldGroup';
import { lockTooltipMarkdown } from './tooltip';
import { elementId } from './treeIds';

/** Rows from the top that count down every second: more than any screen shows. */
export const COUNTDOWN_NEAR_ROWS = 200;
/** Rows further down (a long list scrolled) count down every this many seconds. */
export const COUNTDOWN_FAR_EVERY = 10;
/**
 * A row whose tooltip was resolved (the pointer rests on it) skips countdown and renewal
 * re-renders this long, unless what it says to do changes: long enough to read the
 * tooltip, short enough that a row left behind is not stale for long.
 */
export const HOVER_HOLD_MS = 15_000;

/** What a row says to do, without time: verdict, flags, holders per node. A change here is never held. */
function rowGist(entry: LockEntry, mine: boolean): string {
  return `${entry.verdict}|${entry.flags.join()}|${mine}|${entry.nodes.map((o) => `${o.state}:${o.token ?? ''}`).join('|')}`;
}

export class LockElement {
  readonly kind = 'lock';
  /** What the tree shows now, to tell whether the countdown changed it. */
  rendered = '';
  /** Expanded or selected: counts down every second wherever it is in the list. */
  watched = false;
  /** When its tooltip was last resolved; the row holds still for HOVER_HOLD_MS after. */
  hoveredAt = Number.NEGATIVE_INFINITY;
  /** rowGist() of what the tree shows now. */
  gist = '';
  readonly copies = new Map<string, CopyElement>();
  constructor(readonly key: string) {}
}

export class CopyElement {
  readonly kind = 'copy';
  constructor(readonly parent: LockElement, readonly node: string) {}
  get key(): string {
    return this.parent.key;
  }
}

export class LoadMoreElement {
  readonly kind = 'more';
}

export type LocksTreeElement = LockElement | CopyElement | LoadMoreElement | HeldGroupElement | HeldElement;

function themeIcon(i: IconSpec): vscode.ThemeIcon {
  return new vscode.ThemeIcon(i.id, new vscode.ThemeColor(i.color));
}

export class LocksTreeProvider implements vscode.TreeDataProvider<LocksTreeElement>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<LocksTreeElement | LocksTreeElement[] | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly elements = new Map<string, LockElement>();
  private readonly more = new LoadMoreElement();
  private readonly held = new HeldGroupElement();
  private order: string[] = [];
  private filterText = '';
  private matches: (key: string) => boolean = () => true;
  private anomalies = false;
  private readonly ticker: NodeJS.Timeout;
  private ticks = 0;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(private readonly model: LockModel, private readonly mine: MineLocks) {
    this.subscriptions.push(
      model.onDidChange((c) => this.onModelChange(c)),
      model.onDidChangeState(() => this.emitter.fire(undefined)),
      // The "Held by this window" group appears, grows or goes: the root changes.
      mine.onDidChange(() => this.emitter.fire(undefined)),
    );
    this.ticker = setInterval(() => this.tick(), 1000);
  }

  get filter(): string {
    return this.filterText;
  }

  /** Everything may read differently after a while hidden. */
  refreshAll(): void {
    this.emitter.fire(undefined);
  }

  setFilter(text: string): void {
    this.filterText = text.trim();
    this.matches = keyMatcher(this.filterText);
    this.resort();
    this.emitter.fire(undefined);
  }

  get anomaliesOnly(): boolean {
    return this.anomalies;
  }

  /** The view title's toggle: only the locks that need a look (src/shared/lockOrder.ts). */
  setAnomaliesOnly(on: boolean): void {
    if (on === this.anomalies) return;
    this.anomalies = on;
    this.resort();
    this.emitter.fire(undefined);
  }

  /** The memoized row of a key the tree lists now, or undefined (filtered out, not seen yet). */
  listed(key: string): LockElement | undefined {
    if (!this.order.includes(key)) return undefined;
    let el = this.elements.get(key);
    if (!el) this.elements.set(key, (el = new LockElement(key)));
    return el;
  }

  /** The row of a key once the tree lists it: a watch read already in flight may predate it. */
  whenListed(key: string, timeoutMs: number): Promise<LockElement | undefined> {
    const now = this.listed(key);
    if (now) return Promise.resolve(now);
    return new Promise((resolve) => {
      const done = (el: LockElement | undefined): void => {
        clearTimeout(timer);
        sub.dispose();
        resolve(el);
      };
      const sub = this.emitter.event(() => {
        const el = this.listed(key);
        if (el) done(el);
      });
      const timer = setTimeout(() => done(undefined), timeoutMs);
    });
  }

  /** The entry as the tree shows it now: the last snapshot aged by the time since it was read. */
  shownEntry(key: string): LockEntry | undefined {
    const entry = this.model.entry(key);
    if (!entry) return undefined;
    return agedEntry(entry, Date.now() - this.model.takenAtOf(key), this.model.settings.expiringThresholdMs);
  }

  /** The entry as its row counts down: aged, then stepped (src/shared/countdown.ts). */
  private rowEntry(key: string): LockEntry | undefined {
    const entry = this.model.entry(key);
    if (!entry) return undefined;
    return steppedEntry(agedEntryWithCopies(entry, Date.now() - this.model.takenAtOf(key), this.model.settings.expiringThresholdMs));
  }

  private resort(): boolean {
    const locks = (this.model.snapshot?.locks ?? []).filter((e) => this.matches(e.key) && (!this.anomalies || needsAttention(e)));
    const order = [...locks].sort(compareLocks).map((e) => e.key);
    const same = order.length === this.order.length && order.every((k, i) => k === this.order[i]);
    this.order = order;
    return !same;
  }

  private onModelChange(c: ModelChange): void {
    for (const key of c.removed) this.elements.delete(key);
    const reordered = this.resort();
    if (reordered || c.added.length > 0 || c.removed.length > 0) {
      this.emitter.fire(undefined);
      return;
    }
    // A renewal only moves the TTL: a row being read keeps its tooltip, and the first
    // tick after the hold shows the new time.
    const changed = c.changed.map((k) => this.elements.get(k)).filter((e): e is LockElement => e !== undefined && !this.holds(e));
    if (changed.length > 0) this.emitter.fire(changed);
  }

  /** Hovered a moment ago and saying the same thing: a re-render would only close the tooltip. */
  private holds(el: LockElement, now = Date.now()): boolean {
    if (now - el.hoveredAt >= HOVER_HOLD_MS) return false;
    const entry = this.shownEntry(el.key);
    return entry !== undefined && rowGist(entry, this.mine.has(el.key)) === el.gist;
  }

  /** What the row shows; the node rows below it only count when they are open to see. */
  private render(el: LockElement, entry: LockEntry): string {
    const head = `${lockDescription(entry)}|${entry.flags.join()}`;
    if (!el.watched) return head;
    return `${head}|${entry.nodes.map((o) => copyDescription(o, o.pttlMs)).join('|')}`;
  }

  /** Set by the view: a hidden tree needs no countdown (it re-renders when shown). */
  isVisible: () => boolean = () => true;

  /** The view marks rows a user opened or selected: they count down every second. */
  setWatched(elements: readonly LocksTreeElement[], watched: boolean): void {
    for (const e of elements) {
      const el = e instanceof CopyElement ? e.parent : e;
      if (el instanceof LockElement) el.watched = watched;
    }
  }

  /** The live countdown: re-renders from the last snapshot, fires only what reads differently. */
  tick(): void {
    if (!this.isVisible()) return;
    const all = ++this.ticks % COUNTDOWN_FAR_EVERY === 0;
    const changed: LockElement[] = [];
    const now = Date.now();
    for (let i = 0; i < this.order.length; i++) {
      const el = this.elements.get(this.order[i]);
      if (!el || (!all && i >= COUNTDOWN_NEAR_ROWS && !el.watched)) continue;
      const entry = this.rowEntry(el.key);
      if (!entry || this.holds(el, now)) continue;
      if (this.render(el, entry) !== el.rendered) changed.push(el);
    }
    if (changed.length > 0) this.emitter.fire(changed);
  }

  getChildren(element?: LocksTreeElement): LocksTreeElement[] {
    if (!element) {
      const items: LocksTreeElement[] = this.order.map((key) => {
        let el = this.elements.get(key);
        if (!el) this.elements.set(key, (el = new LockElement(key)));
        return el;
      });
      if (this.model.truncated) items.push(this.more);
      return this.mine.all().length > 0 ? [this.held, ...items] : items;
    }
    if (element instanceof HeldGroupElement) return this.mine.all().map((m) => new HeldElement(m.key));
    if (element instanceof LockElement) {
      const entry = this.model.entry(element.key);
      if (!entry) return [];
      return entry.nodes.map((o) => {
        let c = element.copies.get(o.node);
        if (!c) element.copies.set(o.node, (c = new CopyElement(element, o.node)));
        return c;
      });
    }
    return [];
  }

  getParent(element: LocksTreeElement): LocksTreeElement | undefined {
    if (element instanceof HeldElement) return this.held;
    return element instanceof CopyElement ? element.parent : undefined;
  }

  getTreeItem(element: LocksTreeElement): vscode.TreeItem {
    if (element instanceof LoadMoreElement) {
      const item = new vscode.TreeItem(vscode.l10n.t('Load more…'), vscode.TreeItemCollapsibleState.None);
      item.id = elementId('more');
      item.description = vscode.l10n.t('the scan stopped at {0}', 'redlock.maxKeys');
      item.iconPath = new vscode.ThemeIcon('ellipsis');
      item.contextValue = 'more;';
      item.command = { command: 'redlock.loadMore', title: vscode.l10n.t('Load More Keys') };
      return item;
    }
    if (element instanceof CopyElement) return this.copyItem(element);
    if (element instanceof HeldGroupElement) return heldGroupItem(this.mine.all().length);
    if (element instanceof HeldElement) {
      const m = this.mine.get(element.key);
      return m ? heldItem(m, this.shownEntry(m.key)) : new vscode.TreeItem(printable(element.key));
    }
    return this.lockItem(element);
  }

  private lockItem(el: LockElement): vscode.TreeItem {
    const item = new vscode.TreeItem(printable(el.key), vscode.TreeItemCollapsibleState.Collapsed);
    item.id = elementId('lock', el.key);
    const entry = this.rowEntry(el.key);
    if (!entry) {
      item.description = vscode.l10n.t('gone');
      return item;
    }
    const mine = this.mine.has(el.key);
    el.rendered = this.render(el, entry);
    el.gist = rowGist(entry, mine);
    const row = lockRowText(entry);
    item.label = { label: row.label, highlights: row.highlights };
    item.description = row.description;
    item.iconPath = themeIcon(lockIcon(entry, mine));
    item.contextValue = lockContextValue(entry, mine);
    item.accessibilityInformation = { label: `${printable(el.key)}: ${lockDescription(entry)}` };
    return item;
  }

  private copyItem(c: CopyElement): vscode.TreeItem {
    const item = new vscode.TreeItem(printable(c.node), vscode.TreeItemCollapsibleState.None);
    item.id = elementId('copy', c.key, c.node);
    const entry = this.rowEntry(c.key);
    const o: Observation | undefined = entry?.nodes.find((n) => n.node === c.node);
    if (!entry || !o) return item;
    // Two holders or more: the CLI's letters and the panel's colours tell the copies apart.
    const mark = copyTokenMark(entry, o);
    if (mark) item.label = { label: `${mark.letter} · ${printable(c.node)}`, highlights: [[0, mark.letter.length]] };
    item.description = copyDescription(o, o.pttlMs);
    item.iconPath = themeIcon(copyIcon(o, mark));
    item.contextValue = copyContextValue(o);
    return item;
  }

  /** Tooltips on hover only: built and parsed for the row the pointer is on, as it reads now. */
  resolveTreeItem(item: vscode.TreeItem, element: LocksTreeElement): vscode.TreeItem {
    // A node row is re-rendered with its lock, so hovering it holds the lock's row too.
    const el = element instanceof CopyElement ? element.parent : element;
    if (el instanceof LockElement) el.hoveredAt = Date.now();
    item.tooltip = this.tooltipOf(element);
    return item;
  }

  tooltipOf(element: LocksTreeElement): vscode.MarkdownString | undefined {
    if (element instanceof LockElement) {
      const entry = this.shownEntry(element.key);
      return entry && safeMarkdown(lockTooltipMarkdown(entry, Date.now() - this.model.takenAtOf(element.key), this.mine.has(element.key)));
    }
    if (element instanceof CopyElement) {
      const token = this.model.entry(element.key)?.nodes.find((n) => n.node === element.node)?.token;
      return token == null ? undefined : safeMarkdown(`token: ${escapeMarkdown(token)}`);
    }
    return undefined;
  }

  dispose(): void {
    clearInterval(this.ticker);
    for (const s of this.subscriptions) s.dispose();
    this.emitter.dispose();
  }
}

/** Untrusted content: no command links, no HTML. */
export function safeMarkdown(text: string): vscode.MarkdownString {
  const md = new vscode.MarkdownString(text);
  md.isTrusted = false;
  md.supportHtml = false;
  md.supportThemeIcons = false;
  return md;
}
