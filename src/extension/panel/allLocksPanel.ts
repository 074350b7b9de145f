// The all-locks timeline, extension side: one WebviewPanel with a row per lock over the
// last hour, worst first (docs/extension.md, "All-locks timeline"). Its rows come from
// the event logs under the configured patterns, read through the core's EventFeed (only
// the logs whose newest entry moved are read again), and from what an open detail panel
// observed of a foreign lock. A click on a row opens that lock's detail panel.
import * as vscode from 'vscode';
import type { LockEvent } from '../../core';
import type { Verdict } from '../../core/vocabulary';
import { ALL_LOCKS_WINDOW_MS, allLocksRows, type LockLog } from '../../shared/allLocksRows';
import {
  ALL_LOCKS_PROTOCOL_VERSION, ALL_LOCKS_VIEW_TYPE, isAllLocksWebviewMessage, type AllLocksHostMessage,
} from '../../shared/allLocksProtocol';
import type { HistoryEvent } from '../../shared/protocol';
import { recordedHistory } from './changeEvents';
import { makeNonce, panelHtml } from './html';
import { lockDetailsWebviewOptions } from './lockDetailsPanel';

/** What one read of the event logs gives: the logs that changed, whole. */
export interface FeedChanges {
  changed: Array<{ resource: string; events: LockEvent[] }>;
  logs: number;
  cut: boolean;
}

/** The core's EventFeed, as far as the panel uses it: each read after the first gives only the logs that moved. */
export interface LogFeed {
  read(patterns: readonly string[]): Promise<FeedChanges>;
}

export interface AllLocksSource {
  /** A fresh feed over the configured nodes (one per panel); undefined: no node configured. */
  eventFeed(): Promise<LogFeed | undefined>;
  /** The key patterns the Locks view watches. */
  patterns(): readonly string[];
  /** The keys of the current snapshot and their verdicts (a lock held now may have no log). */
  current(): ReadonlyArray<{ key: string; verdict: Verdict }>;
  /** What an open detail panel saw of the key itself (observed, not recorded), oldest first. */
  observed(key: string): readonly HistoryEvent[];
  openDetails(key: string): void;
  /** Fires when the snapshot changed: the rows are read again, at most every MIN_GAP_MS. */
  onDidChange: vscode.Event<unknown>;
  warn?(message: string): void;
}

/** Reads of the logs at most this often, however often the snapshot changes. */
const MIN_GAP_MS = 2000;

export class AllLocksPanel implements vscode.Disposable {
  private readonly logs = new Map<string, HistoryEvent[]>();
  private feed: LogFeed | undefined;
  private logCount = 0;
  private cut = false;
  private ready = false;
  private disposed = false;
  private reading: Promise<void> | undefined;
  private lastRead = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly postEmitter = new vscode.EventEmitter<AllLocksHostMessage>();
  /** Every message sent to the webview (for tests). */
  readonly onDidPost = this.postEmitter.event;

  constructor(readonly panel: vscode.WebviewPanel, extensionUri: vscode.Uri, private readonly source: AllLocksSource, private readonly onDispose: () => void) {
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'redlock.svg');
    const webview = panel.webview;
    webview.options = lockDetailsWebviewOptions(extensionUri);
    const dist = vscode.Uri.joinPath(extensionUri, 'dist', 'webview');
    webview.html = panelHtml({
      cspSource: webview.cspSource,
      nonce: makeNonce(),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'allLocks.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'allLocks.css')).toString(),
      codiconUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'codicon.css')).toString(),
      title: 'All locks',
      loading: 'Loading the all-locks timeline…',
    });
    this.disposables.push(
      panel.onDidDispose(() => this.dispose()),
      webview.onDidReceiveMessage((m: unknown) => this.handleMessage(m)),
      source.onDidChange(() => this.schedule()),
      this.postEmitter,
    );
  }

  /** Handles one message from the webview; anything that fails validation is dropped. Public for tests. */
  handleMessage(raw: unknown): void {
    if (!isAllLocksWebviewMessage(raw)) {
      this.source.warn?.('all-locks timeline: dropped an invalid message from the webview');
      return;
    }
    if (raw.type === 'ready') {
      this.ready = true;
      this.lastRead = 0;
      void this.refresh();
    } else this.source.openDetails(raw.key);
  }

  /** Reads again after the snapshot changed, no sooner than MIN_GAP_MS after the last read. */
  private schedule(): void {
    // Hidden, it reads nothing: shown again, its page reloads and asks (ready).
    if (this.timer || this.disposed || !this.ready || !this.panel.visible) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.refresh();
    }, Math.max(0, this.lastRead + MIN_GAP_MS - Date.now()));
  }

  /** Reads the logs that moved, rebuilds the rows and sends them. Resolves when sent. */
  refresh(): Promise<void> {
    this.reading ??= this.read().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async read(): Promise<void> {
    this.lastRead = Date.now();
    try {
      this.feed ??= await this.source.eventFeed();
      const r = await this.feed?.read(this.source.patterns());
      if (r) {
        for (const c of r.changed) this.logs.set(c.resource, recordedHistory(c.events));
        this.logCount = r.logs;
        this.cut = r.cut;
      }
    } catch (e) {
      this.source.warn?.(`all-locks timeline: could not read the event logs: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (this.disposed || !this.ready) return;
    const verdicts = new Map(this.source.current().map((c) => [c.key, c.verdict]));
    const keys = new Set([...this.logs.keys(), ...verdicts.keys()]);
    const logs: LockLog[] = [...keys].map((key) => {
      const recorded = this.logs.get(key) ?? [];
      const seen = this.source.observed(key).filter((e) => e.recordedBy === undefined);
      return { key, events: seen.length ? [...recorded, ...seen] : recorded, verdict: verdicts.get(key) ?? null };
    });
    const now = Date.now();
    this.post({ type: 'rows', version: ALL_LOCKS_PROTOCOL_VERSION, sentAt: now, windowMs: ALL_LOCKS_WINDOW_MS, rows: allLocksRows(logs, now), logs: this.logCount, cut: this.cut });
  }

  private post(message: AllLocksHostMessage): void {
    this.postEmitter.fire(message);
    void this.panel.webview.postMessage(message);
  }

  reveal(): void {
    this.panel.reveal(undefined, false);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.onDispose();
    this.panel.dispose();
    while (this.disposables.length) this.disposables.pop()?.dispose();
  }
}

/** The one all-locks panel: opened, or shown again when open. */
export class AllLocksPanels implements vscode.Disposable {
  private open: AllLocksPanel | undefined;

  constructor(private readonly extensionUri: vscode.Uri, private readonly source: AllLocksSource) {}

  show(): AllLocksPanel {
    if (this.open) {
      this.open.reveal();
      return this.open;
    }
    const panel = vscode.window.createWebviewPanel(ALL_LOCKS_VIEW_TYPE, vscode.l10n.t('All Locks'), vscode.ViewColumn.Active, {
      ...lockDetailsWebviewOptions(this.extensionUri),
      enableFindWidget: true,
      // Its rows are read again from the logs when it is shown: no need to keep a hidden page.
      retainContextWhenHidden: false,
    });
    const p = new AllLocksPanel(panel, this.extensionUri, this.source, () => {
      if (this.open === p) this.open = undefined;
    });
    this.open = p;
    return p;
  }

  get current(): AllLocksPanel | undefined {
    return this.open;
  }

  dispose(): void {
    this.open?.dispose();
  }
}
