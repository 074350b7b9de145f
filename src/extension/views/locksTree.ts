// The Locks view. A short list is flat (anomalies first, then by key). A long one opens
// with "Needs attention" (every lock the status bar counts, so none hides in a closed
// folder), then folders on `:` that load their rows only when opened. What is fired is
// what a person can see change (docs/decisions.md, "A tree for 10,000 locks"):
// - elements are memoized (per key, per folder prefix): VS Code finds rows by identity;
// - the root is refreshed only when its own rows come or go, never by a tick;
// - a closed folder's rows are never fired: it is marked stale and refreshed when opened;
// - far from expiry a row says `> 30 s`, which a renewal does not move; the live countdown
//   is for rows near expiry and rows a user opened or selected.
// A row whose tooltip was just resolved holds still while it is read: a re-render would
// close the tooltip (docs/decisions.md, "Tooltips that stay").
import * as vscode from 'vscode';
import type { LockEntry, Observation } from '../../core';
import { formatDuration } from '../../core';
import { agedEntry, agedEntryWithCopies, LIVE_BELOW_MS, roughTimeLeft, steppedEntry } from '../../shared/countdown';
import { keyMatcher } from '../../shared/glob';
import type { LockModel, ModelChange } from '../model/lockModel';
import { anomalyRank, needsAttention, sortLocks } from '../../shared/lockOrder';
import { roughAgeText } from '../../shared/holderText';
import { copyContextValue, copyDescription, copyIcon, copyTokenMark, lockContextValue, lockIcon, lockRowText, type IconSpec } from '../words/lockText';
import { escapeMarkdown, printable } from '../words/markdown';
import type { MineLocks } from '../model/mineLocks';
import { AttentionGroupElement, attentionGroupItem } from './attentionGroup';
import { FolderElement, folderDescription, folderItem } from './folderNode';
import { HeldElement, HeldGroupElement, heldGroupItem, heldItem } from './heldGroup';
import { CopyElement, LoadMoreElement, LockElement, loadMoreItem } from './lockNodes';
import { FLAT_MAX, LockGroups } from './lockGroups';
import { lockTooltipMarkdown } from './tooltip';
import { LastSeenElement, lastSeenElements, lastSeenItem, saveLastSeen } from './lastSeenRows';
import { mark } from '../startupTrace';

export { CopyElement, LoadMoreElement, LockElement } from './lockNodes';
export { FolderElement } from './folderNode';
export { AttentionGroupElement } from './attentionGroup';
export { LastSeenElement } from './lastSeenRows';

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

/** Far from expiry: `> 30 s`; near it, the exact time. */
const roughly = (ms: number): string => roughTimeLeft(ms) ?? formatDuration(ms);

export type LocksTreeElement = LockElement | CopyElement | LoadMoreElement | HeldGroupElement | HeldElement | FolderElement | AttentionGroupElement | LastSeenElement;

function themeIcon(i: IconSpec): vscode.ThemeIcon {
  return new vscode.ThemeIcon(i.id, new vscode.ThemeColor(i.color));
}

const childId = (c: { kind: 'folder'; prefix: string } | { kind: 'lock'; key: string }): string => (c.kind === 'folder' ? `f${c.prefix}` : `k${c.key}`);

export class LocksTreeProvider implements vscode.TreeDataProvider<LocksTreeElement>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<LocksTreeElement | LocksTreeElement[] | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  /** Rows in the list (root or folder), per key. */
  private readonly rows = new Map<string, LockElement>();
  /** Rows in the "Needs attention" group, per key. */
  private readonly attentionRows = new Map<string, LockElement>();
  private readonly folders = new Map<string, FolderElement>();
  private readonly groups = new LockGroups();
  private readonly more = new LoadMoreElement();
  private readonly held = new HeldGroupElement();
  private readonly attentionGroup = new AttentionGroupElement();
  /** The row whose tooltip was resolved last: refreshes that would re-render it wait (see release). */
  private hovered: LockElement | undefined;
  /** The group or folders whose refresh waits for the hovered row's hold to end. */
  private readonly deferred = new Set<LocksTreeElement>();
  /** A short list: every key at the root, anomalies first. Empty when grouped. */
  private flatOrder: string[] = [];
  private grouped = false;
  /** The group's keys, anomalies first (grouped only). */
  private attention: string[] = [];
  private listedKeys = new Set<string>();
  /** The root's rows as last given to VS Code: a refresh of the root only when these change. */
  private rootSignature = '';
  private filterText = '';
  private matches: (key: string) => boolean = () => true;
  private anomalies = false;
  private readonly ticker: NodeJS.Timeout;
  private readonly subscriptions: vscode.Disposable[] = [];

  /** `memory` (workspaceState) keeps the root's folders for the next startup (lastSeenRows.ts). */
  constructor(private readonly model: LockModel, private readonly mine: MineLocks, private readonly memory?: vscode.Memento) {
    this.subscriptions.push(
      model.onDidChange((c) => this.onModelChange(c)),
      model.onDidChangeState(() => this.fireRoot()),
      // The "Held by this window" group appears, grows or goes: the root changes.
      mine.onDidChange(() => this.fireRoot()),
    );
    this.ticker = setInterval(() => this.tick(), 1000);
  }

  get filter(): string {
    return this.filterText;
  }

  /** Everything may read differently after a while hidden. */
  refreshAll(): void {
    this.fireRoot();
  }

  setFilter(text: string): void {
    this.filterText = text.trim();
    this.matches = keyMatcher(this.filterText);
    this.restructure();
    this.fireRoot();
  }

  get anomaliesOnly(): boolean {
    return this.anomalies;
  }

  /** The view title's toggle: only the locks that need a look (src/shared/lockOrder.ts), as one flat list. */
  setAnomaliesOnly(on: boolean): void {
    if (on === this.anomalies) return;
    this.anomalies = on;
    this.restructure();
    this.fireRoot();
  }

  /** Grouped in folders (a long list) rather than flat. */
  get isGrouped(): boolean {
    return this.grouped;
  }

  /** The memoized row of a key the list shows now (at the root or in its folder), or undefined. */
  listed(key: string): LockElement | undefined {
    return this.listedKeys.has(key) ? this.rowOf(key) : undefined;
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

  private rowOf(key: string): LockElement {
    let el = this.rows.get(key);
    if (!el) this.rows.set(key, (el = new LockElement(key)));
    return el;
  }

  private attentionRowOf(key: string): LockElement {
    let el = this.attentionRows.get(key);
    if (!el) this.attentionRows.set(key, (el = new LockElement(key, true)));
    return el;
  }

  private folderOf(prefix: string): FolderElement {
    let el = this.folders.get(prefix);
    if (!el) this.folders.set(prefix, (el = new FolderElement(prefix)));
    return el;
  }

  /** Lays the keys out again (flat or in folders) and forgets the elements of what went. */
  private restructure(): void {
    const locks = (this.model.snapshot?.locks ?? []).filter((e) => this.matches(e.key) && (!this.anomalies || needsAttention(e)));
    this.grouped = !this.anomalies && locks.length > FLAT_MAX;
    if (this.grouped) {
      this.flatOrder = [];
      this.groups.rebuild(locks);
      this.attention = sortLocks(locks.filter(needsAttention)).map((e) => e.key);
    } else {
      this.flatOrder = sortLocks(locks).map((e) => e.key);
      this.groups.rebuild([]);
      this.attention = [];
    }
    this.listedKeys = new Set(locks.map((e) => e.key));
    const inGroup = new Set(this.attention);
    for (const key of this.rows.keys()) if (!this.listedKeys.has(key)) this.rows.delete(key);
    for (const key of this.attentionRows.keys()) if (!inGroup.has(key)) this.attentionRows.delete(key);
    for (const prefix of this.folders.keys()) if (!this.groups.folder(prefix)) this.folders.delete(prefix);
  }

  /** The root's rows, as ids: what decides whether the root itself must be refreshed. */
  private rootRows(): string {
    const parts: string[] = [this.mine.all().length > 0 ? 'held' : '', this.model.truncated ? 'more' : ''];
    // Loops, not push(...rows): a spread puts every row on the stack, and a root of
    // 120,000 rows or more threw a RangeError.
    if (!this.grouped) for (const key of this.flatOrder) parts.push(key);
    else {
      parts.push(this.attention.length > 0 ? 'attention' : '');
      for (const c of this.groups.root) parts.push(childId(c));
    }
    return parts.join('\n');
  }

  private fireRoot(): void {
    // Rows came or went at the root: they must show now, a tooltip open or not.
    this.deferred.clear();
    this.rootSignature = this.rootRows();
    this.emitter.fire(undefined);
  }

  /** The hovered row still holds still (docs/decisions.md, "Tooltips that stay"). */
  private hoverHeld(now = Date.now()): boolean {
    return this.hovered !== undefined && now - this.hovered.hoveredAt < HOVER_HOLD_MS;
  }

  /** `el` (the group or a folder) has the hovered row among the rows a refresh of it re-renders. */
  private containsHovered(el: LocksTreeElement): boolean {
    const row = this.hovered;
    if (!row) return false;
    if (el === this.attentionGroup) return row.inAttention;
    if (!(el instanceof FolderElement) || row.inAttention) return false;
    for (let p = this.groups.parentOf(row.key); p; p = this.groups.folder(p)?.parent ?? '') if (p === el.prefix) return true;
    return false;
  }

  /** Rows came or went in the group or a folder since VS Code last asked for them. */
  private rowsMoved(el: LocksTreeElement): boolean {
    if (el === this.attentionGroup) return this.attentionGroup.children !== this.attention.join('\n');
    if (!(el instanceof FolderElement)) return true;
    const f = this.groups.folder(el.prefix);
    return f === undefined || el.children !== f.children.map(childId).join('\n');
  }

  /**
   * Takes out of `fire` what would re-render the hovered row while it holds only to show
   * new words on its own row (a folder whose count or worst verdict moved re-renders every
   * row under it), and puts back what waited once it no longer holds. Rows that came or
   * went are shown at once.
   */
  private release(fire: Set<LocksTreeElement>, now = Date.now()): void {
    const held = this.hoverHeld(now);
    for (const el of [...fire]) {
      if (held && el !== this.hovered && this.containsHovered(el) && !this.rowsMoved(el)) {
        fire.delete(el);
        this.deferred.add(el);
      }
    }
    for (const el of [...this.deferred]) {
      if (held && this.containsHovered(el) && !this.rowsMoved(el)) continue;
      this.deferred.delete(el);
      fire.add(el);
    }
  }

  private onModelChange(c: ModelChange): void {
    const structural = c.added.length > 0 || c.removed.length > 0 || c.changed.some((k) => {
      const was = c.before.get(k);
      const now = this.model.entry(k);
      return !was || !now || anomalyRank(was) !== anomalyRank(now) || needsAttention(was) !== needsAttention(now);
    });
    const fire = new Set<LocksTreeElement>();
    if (structural) {
      this.restructure();
      if (this.rootRows() !== this.rootSignature) {
        this.fireRoot();
        return;
      }
      this.foldersToFire(fire);
    }
    // A renewal only moves the TTL: a row being read keeps its tooltip, and the first
    // tick after the hold shows the new time.
    for (const key of c.changed) {
      for (const el of [this.rows.get(key), this.attentionRows.get(key)]) {
        if (!el || this.holds(el)) continue;
        if (!this.shown(el)) {
          this.markStale(key);
          continue;
        }
        const entry = this.rowEntry(key);
        if (entry && this.render(el, entry) !== el.rendered) fire.add(el);
      }
    }
    this.release(fire);
    if (fire.size > 0) this.emitter.fire([...fire]);
  }

  /** The group and the folders VS Code knows whose row or rows moved; closed ones become stale instead. */
  private foldersToFire(fire: Set<LocksTreeElement>): void {
    const group = this.attentionGroup;
    if (this.attention.length > 0 && (group.rendered !== this.attentionText() || group.children !== this.attention.join('\n'))) fire.add(group);
    for (const [prefix, el] of this.folders) {
      const f = this.groups.folder(prefix);
      if (!f) continue;
      const rowMoved = el.rendered !== this.folderText(prefix);
      const rowsMoved = el.children !== f.children.map(childId).join('\n');
      if (!rowMoved && !rowsMoved) continue;
      if (!this.folderShown(f.parent)) {
        this.markStaleFrom(f.parent);
        el.stale = true;
      } else if (rowMoved || (rowsMoved && el.expanded)) fire.add(el);
      else el.stale = true;
    }
  }

  private attentionText(): string {
    return `${this.attention.length}|${this.attention.length > 0 ? anomalyRank(this.model.entry(this.attention[0]) ?? { verdict: 'held', flags: [] }) : ''}`;
  }

  private folderText(prefix: string): string {
    const f = this.groups.folder(prefix);
    return f ? folderDescription(f, this.model.entry(f.worstKey)) + `|${f.worstRank}` : '';
  }

  /** Every folder on the way to `prefix` is open ('' is the root: always shown). */
  private folderShown(prefix: string): boolean {
    for (let p = prefix; p; ) {
      const el = this.folders.get(p);
      const f = this.groups.folder(p);
      if (!el || !f || !el.expanded) return false;
      p = f.parent;
    }
    return true;
  }

  /** On screen when the view is: at the root, in the open group, or in a folder open all the way. */
  private shown(el: LockElement): boolean {
    if (el.inAttention) return this.attentionGroup.expanded;
    if (!this.grouped) return true;
    const parent = this.groups.parentOf(el.key);
    return parent !== undefined && this.folderShown(parent);
  }

  /** A change under closed folders: each closed folder on the way refreshes when it opens. */
  private markStale(key: string): void {
    const parent = this.groups.parentOf(key);
    if (parent) this.markStaleFrom(parent);
  }

  private markStaleFrom(prefix: string): void {
    for (let p = prefix; p; p = this.groups.folder(p)?.parent ?? '') {
      const el = this.folders.get(p);
      if (el && !el.expanded && el.loaded) el.stale = true;
      if (!this.groups.folder(p)) break;
    }
  }

  /** Hovered a moment ago and saying the same thing: a re-render would only close the tooltip. */
  private holds(el: LockElement, now = Date.now()): boolean {
    if (now - el.hoveredAt >= HOVER_HOLD_MS) return false;
    const entry = this.shownEntry(el.key);
    return entry !== undefined && rowGist(entry, this.mine.has(el.key)) === el.gist;
  }

  /** A row's words: live ones count down to the second; the others move in rough steps (TTL and holder's age). */
  private rowText(el: LockElement, entry: LockEntry): ReturnType<typeof lockRowText> {
    return this.live(el, entry) ? lockRowText(entry, Date.now()) : lockRowText(entry, Date.now(), roughly, roughAgeText);
  }

  /** Counting down live: near expiry, opened or selected by the user, or held by this window (a few rows the user cares about). */
  private live(el: LockElement, entry: LockEntry): boolean {
    return el.watched || (entry.validityMs !== null && entry.validityMs < LIVE_BELOW_MS) || this.mine.has(el.key);
  }

  /** What the row shows; the node rows below it only count when they are open to see. */
  private render(el: LockElement, entry: LockEntry): string {
    const row = this.rowText(el, entry);
    const head = `${row.label}|${row.description}|${entry.flags.join()}`;
    if (!el.watched) return head;
    return `${head}|${entry.nodes.map((o) => copyDescription(o, o.pttlMs)).join('|')}`;
  }

  /** Called when the root first holds lock rows: the startup trace ends there. */
  onFirstRows: () => void = () => undefined;
  /** Called whenever VS Code asks for the root's rows (the first read waits for the first ask). */
  onRootAsked: () => void = () => undefined;

  /** Set by the view: a hidden tree needs no countdown (it re-renders when shown). */
  isVisible: () => boolean = () => true;

  /** The view marks the rows a user selected: they count down live. */
  setWatched(elements: readonly LocksTreeElement[], selected: boolean): void {
    for (const e of elements) {
      const el = e instanceof CopyElement ? e.parent : e;
      if (el instanceof LockElement) el.selected = selected;
    }
  }

  /** The view's expand and collapse events: what is open decides what is fired. */
  setExpanded(element: LocksTreeElement, expanded: boolean): void {
    if (element instanceof FolderElement) {
      element.expanded = expanded;
      // Opened after changes it was not told about: VS Code may show the rows it had.
      if (expanded && element.stale) {
        element.stale = false;
        this.emitter.fire([element]);
      }
    } else if (element instanceof AttentionGroupElement) element.expanded = expanded;
    else if (element instanceof LockElement) element.open = expanded;
  }

  /** The rows on screen when the view is: the ones the countdown looks at. */
  private shownRows(): LockElement[] {
    if (!this.grouped) return this.flatOrder.map((k) => this.rowOf(k));
    const out: LockElement[] = [];
    if (this.attentionGroup.expanded) for (const k of this.attention) out.push(this.attentionRowOf(k));
    for (const c of this.groups.root) if (c.kind === 'lock') out.push(this.rowOf(c.key));
    for (const [prefix, el] of this.folders) {
      const f = this.groups.folder(prefix);
      if (!f || !el.expanded || !this.folderShown(prefix)) continue;
      for (const c of f.children) if (c.kind === 'lock') out.push(this.rowOf(c.key));
    }
    return out;
  }

  /** The live countdown: re-renders from the last snapshot, fires only rows on screen that read differently. */
  tick(): void {
    if (!this.isVisible()) return;
    const changed = new Set<LocksTreeElement>();
    const now = Date.now();
    for (const el of this.shownRows()) {
      if (!el.rendered) continue;
      const entry = this.rowEntry(el.key);
      if (!entry || this.holds(el, now)) continue;
      if (this.render(el, entry) !== el.rendered) changed.add(el);
    }
    // What waited for a hold to end goes out with the countdown.
    if (this.deferred.size > 0) this.release(changed, now);
    if (changed.size > 0) this.emitter.fire([...changed]);
  }

  /** What the last-seen rows belong to: the same nodes and patterns, or they are not shown. */
  private scope(): string {
    const s = this.model.settings;
    return JSON.stringify([s.connection?.name ?? '', s.nodes, s.keyPatterns]);
  }

  /** Before the first read answers (and while nothing failed): the folders last seen, marked as such. */
  private lastSeenRows(): LastSeenElement[] {
    if (!this.memory || this.model.hasSnapshot || this.model.error !== undefined) return [];
    return lastSeenElements(this.memory, this.scope());
  }

  /** The root's folders at this live read, kept when the whole list is shown (no filter). */
  private keepLastSeen(): void {
    if (!this.memory || !this.model.hasSnapshot || this.filterText || this.anomalies) return;
    const folders: Array<[string, number]> = [];
    if (this.grouped) for (const c of this.groups.root) if (c.kind === 'folder') folders.push([c.prefix, this.groups.folder(c.prefix)?.count ?? 0]);
    saveLastSeen(this.memory, this.scope(), folders);
  }

  getChildren(element?: LocksTreeElement): LocksTreeElement[] {
    if (!element) {
      mark('rows asked');
      this.onRootAsked();
      const lastSeen = this.lastSeenRows();
      if (lastSeen.length > 0) {
        mark('last-seen rows');
        // The first read's rows replace them: any live root differs from this signature.
        this.rootSignature = '\0last-seen';
        return lastSeen;
      }
      this.keepLastSeen();
      this.rootSignature = this.rootRows();
      const items: LocksTreeElement[] = [];
      if (this.mine.all().length > 0) items.push(this.held);
      if (!this.grouped) for (const key of this.flatOrder) items.push(this.rowOf(key));
      else {
        if (this.attention.length > 0) items.push(this.attentionGroup);
        for (const c of this.groups.root) items.push(c.kind === 'folder' ? this.folderOf(c.prefix) : this.rowOf(c.key));
      }
      if (this.model.truncated) items.push(this.more);
      if (this.model.lockCount > 0) this.onFirstRows();
      return items;
    }
    if (element instanceof HeldGroupElement) return this.mine.all().map((m) => new HeldElement(m.key));
    if (element instanceof AttentionGroupElement) {
      element.children = this.attention.join('\n');
      return this.attention.map((k) => this.attentionRowOf(k));
    }
    if (element instanceof FolderElement) {
      const f = this.groups.folder(element.prefix);
      // VS Code asks for a folder's rows when it is open (also one restored open at startup).
      element.expanded = true;
      element.loaded = true;
      element.stale = false;
      element.children = f ? f.children.map(childId).join('\n') : '';
      return (f?.children ?? []).map((c) => (c.kind === 'folder' ? this.folderOf(c.prefix) : this.rowOf(c.key)));
    }
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
    if (element instanceof CopyElement) return element.parent;
    if (element instanceof LockElement) {
      if (element.inAttention) return this.attentionGroup;
      const parent = this.grouped ? this.groups.parentOf(element.key) : undefined;
      return parent ? this.folderOf(parent) : undefined;
    }
    if (element instanceof FolderElement) {
      const parent = this.groups.folder(element.prefix)?.parent;
      return parent ? this.folderOf(parent) : undefined;
    }
    return undefined;
  }

  getTreeItem(element: LocksTreeElement): vscode.TreeItem {
    if (element instanceof LoadMoreElement) return loadMoreItem();
    if (element instanceof LastSeenElement) return lastSeenItem(element);
    if (element instanceof CopyElement) return this.copyItem(element);
    if (element instanceof HeldGroupElement) return heldGroupItem(this.mine.all().length);
    if (element instanceof HeldElement) {
      const m = this.mine.get(element.key);
      return m ? heldItem(m, this.shownEntry(m.key)) : new vscode.TreeItem(printable(element.key));
    }
    if (element instanceof AttentionGroupElement) {
      element.rendered = this.attentionText();
      const worst = this.model.entry(this.attention[0] ?? '');
      return attentionGroupItem(this.attention.length, worst ? lockIcon(worst, false) : { id: 'warning', color: 'list.warningForeground' });
    }
    if (element instanceof FolderElement) {
      const f = this.groups.folder(element.prefix);
      element.rendered = this.folderText(element.prefix);
      if (!f) return new vscode.TreeItem(printable(element.prefix), vscode.TreeItemCollapsibleState.Collapsed);
      return folderItem(f, this.model.entry(f.worstKey));
    }
    return this.lockItem(element);
  }

  private lockItem(el: LockElement): vscode.TreeItem {
    const item = new vscode.TreeItem(printable(el.key), vscode.TreeItemCollapsibleState.Collapsed);
    item.id = el.id;
    const entry = this.rowEntry(el.key);
    if (!entry) {
      item.description = vscode.l10n.t('gone');
      return item;
    }
    const mine = this.mine.has(el.key);
    el.rendered = this.render(el, entry);
    el.gist = rowGist(entry, mine);
    const row = this.rowText(el, entry);
    item.label = { label: row.label, highlights: row.highlights };
    item.description = row.description;
    item.iconPath = themeIcon(lockIcon(entry, mine));
    item.contextValue = lockContextValue(entry, mine);
    item.accessibilityInformation = { label: `${printable(el.key)}: ${row.headline}${row.description ? ` · ${row.description}` : ''}` };
    return item;
  }

  private copyItem(c: CopyElement): vscode.TreeItem {
    const item = new vscode.TreeItem(printable(c.node), vscode.TreeItemCollapsibleState.None);
    item.id = JSON.stringify([c.parent.inAttention ? 'attention-copy' : 'copy', c.key, c.node]);
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
    if (el instanceof LockElement) {
      el.hoveredAt = Date.now();
      this.hovered = el;
    }
    item.tooltip = this.tooltipOf(element) ?? item.tooltip;
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
