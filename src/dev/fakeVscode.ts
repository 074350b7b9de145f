// A stand-in for the `vscode` module, for running extension code in plain Node: the unit
// tests of the panel host and the extension bench (bench/extension.ts) load the real
// modules against it. It implements only what src/extension touches, records what the
// extension asks of the editor, and behaves like the extension host where cost matters:
// a visible tree view asks for the items of every element the provider fires.
import Module from 'node:module';

type Listener<T> = (v: T) => unknown;

export class EventEmitter<T> {
  private listeners: Array<Listener<T>> = [];
  event = (l: Listener<T>, thisArgs?: unknown, disposables?: Array<{ dispose(): unknown }>): Disposable => {
    const bound: Listener<T> = thisArgs === undefined ? l : (v) => l.call(thisArgs, v);
    this.listeners.push(bound);
    const d = new Disposable(() => (this.listeners = this.listeners.filter((x) => x !== bound)));
    disposables?.push(d);
    return d;
  };
  fire(v: T): void {
    for (const l of [...this.listeners]) l(v);
  }
  dispose(): void {
    this.listeners = [];
  }
}

export class Disposable {
  constructor(private readonly fn: () => unknown) {}
  static from(...ds: Array<{ dispose(): unknown }>): Disposable {
    return new Disposable(() => ds.forEach((d) => d.dispose()));
  }
  dispose(): void {
    this.fn();
  }
}

export class ThemeColor {
  constructor(readonly id: string) {}
}
export class ThemeIcon {
  constructor(readonly id: string, readonly color?: ThemeColor) {}
}
export class MarkdownString {
  isTrusted = false;
  supportHtml = false;
  supportThemeIcons = false;
  constructor(public value = '') {}
}
export enum TreeItemCollapsibleState { None = 0, Collapsed = 1, Expanded = 2 }
export class TreeItem {
  id?: string;
  description?: string;
  tooltip?: string | MarkdownString;
  iconPath?: unknown;
  contextValue?: string;
  command?: unknown;
  accessibilityInformation?: unknown;
  constructor(public label: string, public collapsibleState = TreeItemCollapsibleState.None) {}
}

interface FakeUri {
  path: string;
  toString(): string;
}
const uri = (path: string): FakeUri => ({ path, toString: () => `file://${path}` });

export interface TreeDataProviderLike<T> {
  onDidChangeTreeData?: (l: Listener<T | T[] | undefined | null | void>) => Disposable;
  getChildren(element?: T): T[] | undefined | null | Thenable<T[] | undefined | null>;
  getTreeItem(element: T): TreeItem | Thenable<TreeItem>;
}

/**
 * A tree view. While visible it does what the extension host does when the provider fires:
 * the root (undefined) means getChildren() and getTreeItem() for every row, elements mean
 * getTreeItem() for each. `itemsBuilt` counts those calls.
 */
export class FakeTreeView<T> {
  visible = false;
  message: string | undefined;
  description: string | undefined;
  selection: T[] = [];
  itemsBuilt = 0;
  rows: TreeItem[] = [];
  private readonly visibility = new EventEmitter<{ visible: boolean }>();
  readonly onDidChangeVisibility = this.visibility.event;
  readonly onDidExpandElement = new EventEmitter<{ element: T }>().event;
  readonly onDidCollapseElement = new EventEmitter<{ element: T }>().event;
  readonly onDidChangeSelection = new EventEmitter<{ selection: T[] }>().event;
  private pending: Promise<void> = Promise.resolve();

  constructor(readonly id: string, readonly provider: TreeDataProviderLike<T>) {
    provider.onDidChangeTreeData?.((e) => {
      if (!this.visible) return;
      this.pending = this.pending.then(() => this.render(e ?? undefined));
    });
  }

  /** Shows or hides the view, as the user switching to it or away would. */
  async setVisible(visible: boolean): Promise<void> {
    this.visible = visible;
    this.visibility.fire({ visible });
    if (visible) await this.render(undefined);
  }

  /** Resolves when the rendering of every fire so far is done. */
  settled(): Promise<void> {
    return this.pending;
  }

  private async render(e: T | T[] | undefined): Promise<void> {
    if (e === undefined) {
      const children = (await this.provider.getChildren()) ?? [];
      const rows: TreeItem[] = [];
      for (const c of children) rows.push(await this.provider.getTreeItem(c));
      this.itemsBuilt += children.length;
      this.rows = rows;
      return;
    }
    const list = Array.isArray(e) ? e : [e];
    for (const c of list) await this.provider.getTreeItem(c);
    this.itemsBuilt += list.length;
  }

  reveal(): Promise<void> {
    return Promise.resolve();
  }
  dispose(): void {
    this.visible = false;
  }
}

export interface FakeVscode {
  module: Record<string, unknown>;
  /** `redlock.*` settings the extension reads; change them, then fire `configurationChanged`. */
  settings: Map<string, unknown>;
  configurationChanged: EventEmitter<{ affectsConfiguration(section: string): boolean }>;
  views: Map<string, FakeTreeView<unknown>>;
  commands: Map<string, (...args: unknown[]) => unknown>;
  /** Everything shown as a notification, and every executeCommand call. */
  messages: string[];
  executed: unknown[][];
  context(extensionPath: string): unknown;
}

export function createFakeVscode(): FakeVscode {
  const settings = new Map<string, unknown>();
  const configurationChanged = new EventEmitter<{ affectsConfiguration(section: string): boolean }>();
  const views = new Map<string, FakeTreeView<unknown>>();
  const commands = new Map<string, (...args: unknown[]) => unknown>();
  const messages: string[] = [];
  const executed: unknown[][] = [];
  const show = (m: string): Promise<undefined> => {
    messages.push(m);
    return Promise.resolve(undefined);
  };
  const module = {
    EventEmitter, Disposable, ThemeColor, ThemeIcon, MarkdownString, TreeItem, TreeItemCollapsibleState,
    StatusBarAlignment: { Left: 1, Right: 2 },
    ViewColumn: { Active: -1 },
    ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
    ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
    Uri: { joinPath: (base: FakeUri, ...parts: string[]) => uri([base.path, ...parts].join('/')), file: (p: string) => uri(p) },
    window: {
      createOutputChannel: () => ({
        trace() {}, debug() {}, info() {}, warn() {}, error() {}, appendLine() {}, show() {}, dispose() {},
      }),
      createTreeView: <T>(id: string, options: { treeDataProvider: TreeDataProviderLike<T> }) => {
        const view = new FakeTreeView<T>(id, options.treeDataProvider);
        views.set(id, view as FakeTreeView<unknown>);
        return view;
      },
      createStatusBarItem: () => ({ text: '', tooltip: '', name: '', command: undefined, backgroundColor: undefined, show() {}, hide() {}, dispose() {} }),
      registerWebviewPanelSerializer: () => new Disposable(() => undefined),
      showWarningMessage: show,
      showInformationMessage: show,
      showErrorMessage: show,
      withProgress: <R>(_o: unknown, task: () => Promise<R>) => task(),
    },
    workspace: {
      workspaceFolders: undefined,
      getConfiguration: () => ({
        get: <V>(key: string, fallback?: V): V | undefined => (settings.has(key) ? (settings.get(key) as V) : fallback),
        inspect: () => undefined,
        update: (key: string, value: unknown) => {
          settings.set(key, value);
          configurationChanged.fire({ affectsConfiguration: (s: string) => s === 'redlock' || s === `redlock.${key}` });
          return Promise.resolve();
        },
      }),
      onDidChangeConfiguration: configurationChanged.event,
    },
    env: { clipboard: { writeText: () => Promise.resolve() } },
    // English only, as VS Code without a language pack: `{0}` replaced by the argument.
    l10n: { t: (message: string, ...args: unknown[]) => message.replace(/\{(\d+)\}/g, (m, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : m)) },
    commands: {
      registerCommand: (id: string, run: (...args: unknown[]) => unknown) => {
        commands.set(id, run);
        return new Disposable(() => commands.delete(id));
      },
      executeCommand: (...args: unknown[]) => {
        executed.push(args);
        const run = commands.get(String(args[0]));
        return Promise.resolve(run?.(...args.slice(1)));
      },
    },
  };
  const secretsChanged = new EventEmitter<{ key: string }>();
  const secrets = new Map<string, string>();
  return {
    module, settings, configurationChanged, views, commands, messages, executed,
    context: (extensionPath: string) => ({
      subscriptions: [] as Disposable[],
      extensionUri: uri(extensionPath),
      extension: { packageJSON: { version: '0.0.0-bench' } },
      secrets: {
        get: (k: string) => Promise.resolve(secrets.get(k)),
        store: (k: string, v: string) => {
          secrets.set(k, v);
          secretsChanged.fire({ key: k });
          return Promise.resolve();
        },
        delete: (k: string) => {
          secrets.delete(k);
          secretsChanged.fire({ key: k });
          return Promise.resolve();
        },
        onDidChange: secretsChanged.event,
      },
    }),
  };
}

const STUB = '\0vscode-stub';
type ResolveFn = (request: string, ...rest: unknown[]) => string;

/** Makes `require('vscode')` return `fake.module` until the returned function is called. */
export function installFakeVscode(fake: Pick<FakeVscode, 'module'>): () => void {
  const M = Module as unknown as { _resolveFilename: ResolveFn };
  const original = M._resolveFilename;
  M._resolveFilename = function (request: string, ...rest: unknown[]) {
    return request === 'vscode' ? STUB : original.call(this, request, ...rest);
  };
  require.cache[STUB] = { id: STUB, filename: STUB, loaded: true, exports: fake.module } as unknown as NodeJS.Module;
  return () => {
    M._resolveFilename = original;
    delete require.cache[STUB];
  };
}
