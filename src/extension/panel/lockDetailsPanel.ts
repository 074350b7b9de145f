// The lock detail panel, extension side: one WebviewPanel per lock key (shown
// again when it is already open), restored after a window reload by a serializer, fed
// snapshots and history events over the typed protocol in src/shared/protocol.ts.
// The webview only reads; its action buttons run the same commands as the tree, with the
// same confirmations and the same read-only refusal.
import { failedCopyText } from '../../shared/failedCopyText';
import * as vscode from 'vscode';
import type { LockEntry } from '../../core/vocabulary';
import {
  LOCK_DETAILS_VIEW_TYPE, PROTOCOL_VERSION, isHistoryEvent, isPanelState, isWebviewMessage,
  type HistoryEvent, type HostMessage, type LockView, type PanelFinding, type WebviewMessage,
} from '../../shared/protocol';
import { appendHistory, buildHistory, historyDocument, mergeRecorded, recordedHistory } from './changeEvents';
import { auditObserved, type AuditFinding, type LockEvent } from '../../core';
import { makeNonce, panelHtml } from './html';

export { LOCK_DETAILS_VIEW_TYPE };

/** What the panel reads from the extension (the LockModel, MineLocks and settings in practice). */
export interface LockDetailsSource {
  /** The key's entry in the current snapshot, if any. */
  entry(key: string): LockEntry | undefined;
  /** Epoch ms at which the key's entry was read. */
  takenAtOf(key: string): number;
  /** Configured node ids in configuration order. */
  nodeIds(): string[];
  isMine(key: string): boolean;
  readOnly(): boolean;
  expiringThresholdMs(): number;
  /**
   * Fires when the panel may need an update: the model's onDidChange (a LockDiff-like
   * payload `{ added, changed, removed }` narrows it to the keys listed), the mine set
   * changing, or a settings change (any other payload: every panel updates).
   */
  onDidChange: vscode.Event<unknown>;
  /** Runs a write command (default: `redlock.<kind>` with `{ key }`, which asks the same confirmations). */
  runAction?(kind: 'extend' | 'release' | 'forceRelease', key: string): Thenable<unknown>;
  /** Where problems go (e.g. the Log's warn). */
  warn?(message: string): void;
  /** False until the first snapshot: the state before it is unknown, not "no copy". */
  hasSnapshot?(): boolean;
  /** What the locking clients recorded on the nodes (read-only), so history predates the panel. */
  recordedEvents?(key: string): Promise<readonly LockEvent[]>;
  /** The audit's findings on the key over its recorded history (docs/audit.md), read when new events were recorded. */
  auditFindings?(key: string): Promise<readonly AuditFinding[]>;
  /** A panel opened or closed (the watch rate depends on whether anyone looks). */
  panelsChanged?(): void;
}

const MAX_HISTORY = 1000;

const panelFinding = (f: AuditFinding): PanelFinding => (f.observed ? { at: f.at, kind: f.kind, detail: f.detail, observed: true } : { at: f.at, kind: f.kind, detail: f.detail });

/** Webview options: scripts on, resources only from the bundled output and media. */
export function lockDetailsWebviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return {
    enableScripts: true,
    enableCommandUris: false,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(extensionUri, 'media')],
  };
}

function listsKey(payload: unknown, key: string): boolean | undefined {
  if (!payload || typeof payload !== 'object') return undefined;
  const p = payload as { added?: unknown; changed?: unknown; removed?: unknown };
  if (!Array.isArray(p.added) || !Array.isArray(p.changed) || !Array.isArray(p.removed)) return undefined;
  return p.added.includes(key) || p.changed.includes(key) || p.removed.includes(key);
}

/** One event that fires whenever any of `events` fires (payload passed through). */
export function anyEvent(...events: Array<vscode.Event<unknown>>): vscode.Event<unknown> {
  return (listener, thisArgs?, disposables?) => {
    const subs = events.map((e) => e((v) => listener.call(thisArgs, v)));
    const d = vscode.Disposable.from(...subs);
    disposables?.push(d);
    return d;
  };
}

/** The tab title: the key as plain text, shortened (a tab title is never HTML). */
export function panelTitle(key: string): string {
  const clean = key.replace(/[\u0000-\u001f\u007f]/g, '\uFFFD');
  return `Lock: ${clean.length > 50 ? `${clean.slice(0, 49)}…` : clean}`;
}

export class LockDetailsPanel implements vscode.Disposable {
  /** Oldest first; the webview shows it newest first. */
  readonly history: HistoryEvent[];
  /** The audit's findings over the recorded history, as last read. */
  private recordedFindings: PanelFinding[] = [];
  /** What was last sent of the findings, recorded and observed. */
  private findingsSent = '[]';
  private last: { entry: LockEntry | null; at: number };
  /** Opened (or restored) before the first snapshot: the first state is a baseline, not a change. */
  private baseline: boolean;
  private ready = false;
  private readonly disposables: vscode.Disposable[] = [];
  private disposed = false;
  private readonly postEmitter = new vscode.EventEmitter<HostMessage>();
  /** Every message sent to the webview (for tests). */
  readonly onDidPost = this.postEmitter.event;

  constructor(
    readonly panel: vscode.WebviewPanel,
    readonly key: string,
    private readonly extensionUri: vscode.Uri,
    private readonly source: LockDetailsSource,
    history: HistoryEvent[],
    private readonly onDispose: (p: LockDetailsPanel) => void,
  ) {
    this.history = history.slice(-MAX_HISTORY);
    this.last = { entry: source.entry(key) ?? null, at: source.entry(key) ? source.takenAtOf(key) : Date.now() };
    this.baseline = source.hasSnapshot ? !source.hasSnapshot() : false;
    void this.loadRecorded();
    panel.title = panelTitle(key);
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'redlock.svg');
    panel.webview.options = lockDetailsWebviewOptions(extensionUri);
    panel.webview.html = this.html();
    this.disposables.push(
      panel.onDidDispose(() => this.dispose()),
      panel.webview.onDidReceiveMessage((m: unknown) => void this.handleMessage(m)),
      source.onDidChange((payload) => {
        if (listsKey(payload, key) !== false) this.update();
      }),
      this.postEmitter,
    );
  }

  private html(): string {
    const webview = this.panel.webview;
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview');
    return panelHtml({
      cspSource: webview.cspSource,
      nonce: makeNonce(),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'main.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'main.css')).toString(),
      codiconUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'codicon.css')).toString(),
    });
  }

  reveal(): void {
    this.panel.reveal(undefined, false);
  }

  private view(): LockView {
    const entry = this.source.entry(this.key) ?? null;
    return {
      key: this.key,
      nodes: entry ? entry.nodes.map((o) => o.node) : this.source.nodeIds(),
      entry: entry && { ...entry, holders: { ...entry.holders } },
      readAt: entry ? this.source.takenAtOf(this.key) : Date.now(),
      sentAt: Date.now(),
      readOnly: this.source.readOnly(),
      mine: this.source.isMine(this.key),
      expiringThresholdMs: this.source.expiringThresholdMs(),
    };
  }

  /** Merges the recorded events of the nodes; resends the whole history once the webview has it. */
  private async loadRecorded(): Promise<void> {
    if (!this.source.recordedEvents) return;
    let events: readonly LockEvent[];
    try {
      events = await this.source.recordedEvents(this.key);
    } catch (e) {
      this.source.warn?.(`lock details: could not read the recorded history: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    // Recorded events may predate what the webview shows: it gets the whole history again.
    if (mergeRecorded(this.history, recordedHistory(events), MAX_HISTORY) > 0) {
      this.post({ type: 'init', version: PROTOCOL_VERSION, history: this.history, ...this.view() });
      await this.loadFindings();
    }
  }

  /** Audits the key's recorded history again and sends the findings (new events may have made one). */
  private async loadFindings(): Promise<void> {
    if (!this.source.auditFindings) return;
    try {
      const found = await this.source.auditFindings(this.key);
      this.recordedFindings = found.slice(-MAX_HISTORY).map(panelFinding);
    } catch (e) {
      this.source.warn?.(`lock details: could not audit the recorded history: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    this.sendFindings();
  }

  /** The recorded history's findings and those of what the panel observed itself (weaker evidence, docs/audit.md). */
  findings(): PanelFinding[] {
    const seen = this.history.filter((e) => e.recordedBy === undefined);
    const quorum = this.source.entry(this.key)?.quorum ?? Math.floor(this.source.nodeIds().length / 2) + 1;
    const observed = seen.length === 0 ? [] : auditObserved(this.key, seen, { quorum }).map(panelFinding);
    return [...this.recordedFindings, ...observed].sort((a, b) => a.at - b.at).slice(-MAX_HISTORY);
  }

  /** Sends the findings when they changed (or, with `always`, once the webview is ready). */
  private sendFindings(always = false): void {
    const findings = this.findings();
    const sig = JSON.stringify(findings);
    if (sig === this.findingsSent && !always) return;
    this.findingsSent = sig;
    if (findings.length > 0 || !always) this.post({ type: 'findings', key: this.key, findings });
  }

  /** Records what changed since the last state as history, then sends the new state. */
  update(): void {
    if (this.disposed) return;
    const entry = this.source.entry(this.key) ?? null;
    const at = entry ? this.source.takenAtOf(this.key) : Date.now();
    if (this.baseline && this.source.hasSnapshot?.()) {
      // The first read after a reload: whatever it shows was already so, not a change.
      this.baseline = false;
      this.last = { entry, at };
    }
    if (entry !== this.last.entry) {
      const events = buildHistory(this.last.entry, entry, Math.max(at, this.last.at), { prevAt: this.last.at, nextAt: at, nodes: this.source.nodeIds() });
      this.last = { entry, at };
      if (events.length > 0) {
        appendHistory(this.history, events, MAX_HISTORY);
        this.post({ type: 'events', key: this.key, events });
        this.sendFindings();
      }
      // The lock changed hands or state: its holders may have recorded why.
      void this.loadRecorded();
    }
    this.post({ type: 'snapshot', ...this.view() });
  }

  private post(message: HostMessage): void {
    if (!this.ready || this.disposed) return;
    this.postEmitter.fire(message);
    void this.panel.webview.postMessage(message);
  }

  /** Handles one message from the webview; anything that fails validation is dropped. Public for tests. */
  async handleMessage(raw: unknown): Promise<unknown> {
    if (!isWebviewMessage(raw)) {
      this.source.warn?.('lock details: dropped an invalid message from the webview');
      return undefined;
    }
    const m: WebviewMessage = raw;
    switch (m.type) {
      case 'ready':
        this.ready = true;
        this.post({ type: 'init', version: PROTOCOL_VERSION, history: this.history, ...this.view() });
        this.sendFindings(true);
        return undefined;
      case 'action': {
        if (m.key !== this.key) return undefined;
        if (this.source.readOnly()) {
          void vscode.window.showWarningMessage(vscode.l10n.t('Redlock: read-only mode is on; write commands are refused.'));
          return undefined;
        }
        const run = this.source.runAction ?? ((kind, key) => vscode.commands.executeCommand(`redlock.${kind}`, { key }));
        const result = await run(m.kind, this.key);
        this.update();
        return result;
      }
      case 'exportHistory':
        if (m.key !== this.key) return undefined;
        return this.exportHistory();
      case 'copyToken': {
        if (m.key !== this.key) return undefined;
        // A held copy's token, or an unreachable / unreadable node's error as the panel shows it.
        const o = this.source.entry(this.key)?.nodes.find((n) => n.node === m.node);
        const text = o?.state === 'present' ? o.token : o && o.state !== 'absent' ? failedCopyText(o) : null;
        if (typeof text === 'string') await vscode.env.clipboard.writeText(text);
        return text ?? undefined;
      }
    }
  }

  private async exportHistory(): Promise<vscode.Uri | undefined> {
    const name = `${this.key.replace(/[^\w.-]+/g, '_').slice(0, 60) || 'lock'}-history.json`;
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const uri = await vscode.window.showSaveDialog({
      title: vscode.l10n.t('Export Lock History'),
      defaultUri: folder ? vscode.Uri.joinPath(folder, name) : undefined,
      filters: { JSON: ['json'] },
      saveLabel: vscode.l10n.t('Export'),
    });
    if (!uri) return undefined;
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(historyDocument(this.key, this.history, Date.now())));
    return uri;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.onDispose(this);
    this.panel.dispose();
    while (this.disposables.length) this.disposables.pop()?.dispose();
  }
}

/** One panel per lock key; also the serializer that restores them after a window reload. */
export class LockDetailsPanels implements vscode.Disposable, vscode.WebviewPanelSerializer {
  private readonly panels = new Map<string, LockDetailsPanel>();
  private readonly registration: vscode.Disposable;

  constructor(private readonly extensionUri: vscode.Uri, private readonly source: LockDetailsSource) {
    this.registration = vscode.window.registerWebviewPanelSerializer(LOCK_DETAILS_VIEW_TYPE, this);
  }

  /** Opens the key's panel, or shows it again if it is open. */
  show(key: string): LockDetailsPanel {
    const open = this.panels.get(key);
    if (open) {
      open.reveal();
      return open;
    }
    const panel = vscode.window.createWebviewPanel(LOCK_DETAILS_VIEW_TYPE, panelTitle(key), vscode.ViewColumn.Active, {
      ...lockDetailsWebviewOptions(this.extensionUri),
      enableFindWidget: true,
    });
    return this.adopt(panel, key, []);
  }

  get(key: string): LockDetailsPanel | undefined {
    return this.panels.get(key);
  }

  all(): LockDetailsPanel[] {
    return [...this.panels.values()];
  }

  /** After a reload: the webview's saved state names the key (and may carry its history). */
  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    if (!isPanelState(state)) {
      panel.dispose();
      return;
    }
    const saved = (state as { history?: unknown }).history;
    const history = Array.isArray(saved) ? saved.filter(isHistoryEvent) : [];
    const open = this.panels.get(state.key);
    if (open) {
      // Restored twice (two editor groups): keep one.
      panel.dispose();
      open.reveal();
      return;
    }
    this.adopt(panel, state.key, history);
  }

  private adopt(panel: vscode.WebviewPanel, key: string, history: HistoryEvent[]): LockDetailsPanel {
    const p = new LockDetailsPanel(panel, key, this.extensionUri, this.source, history, (gone) => {
      if (this.panels.get(gone.key) === gone) this.panels.delete(gone.key);
      this.source.panelsChanged?.();
    });
    this.panels.set(key, p);
    this.source.panelsChanged?.();
    return p;
  }

  dispose(): void {
    this.registration.dispose();
    for (const p of [...this.panels.values()]) p.dispose();
    this.panels.clear();
  }
}
