// Wires the model, the views and the commands; activate() returns a small API for tests.
import { finishStartup, mark } from './startupTrace';
import { discoverPatterns, forgetDiscovered, lastDiscovered, quickDiscover } from './commands/discoverPatterns';
import * as vscode from 'vscode';
import { parseKeyArg, type Snapshot } from '../core';
import { acquire } from './commands/acquire';
import { forceRelease } from './commands/forceRelease';
import { showHeld, stopExtending } from './commands/heldCommands';
import { extend, release } from './commands/mineCommands';
import * as nodeCommands from './commands/nodeCommands';
import * as viewCommands from './commands/viewCommands';
import { DeploymentDoctor } from './model/deployment';
import { registerLmTools } from './lmTools';
import { LockModel } from './model/lockModel';
import { LocksTreeProvider, type LocksTreeElement } from './views/locksTree';
import { Log } from './log';
import type { MineLocks } from './model/mineLocks';
import { NodesTreeProvider } from './views/nodesTree';
import { anyEvent, LockDetailsPanels } from './panel/lockDetailsPanel';
import { AllLocksPanels } from './panel/allLocksPanel';
import { Notifier } from './views/notifier';
import { printable } from './words/markdown';
import { PasswordStore } from './model/passwords';
import type { Services } from './services';
import { HeldStatusBar } from './views/heldStatusBar';
import { LockStatusBar } from './views/statusBar';
import { ConnectionStatusBar } from './views/connectionStatusBar';
import { WriteGuard } from './model/writeGuard';
import { pickConnection } from './commands/pickConnection';

export interface RedlockInspectorApi {
  readonly version: string;
  snapshot(): Snapshot | undefined;
  refresh(): Promise<Snapshot | undefined>;
  readonly locksProvider: LocksTreeProvider;
  /** The Locks view: its selection, its title's description. */
  readonly locksView: vscode.TreeView<LocksTreeElement>;
  readonly nodesProvider: NodesTreeProvider;
  readonly model: LockModel;
  readonly mine: MineLocks;
  readonly statusBar: LockStatusBar;
  /** "holding N locks": shown while this window holds one. */
  readonly heldStatusBar: HeldStatusBar;
  /** The active named connection, coloured while it is production. */
  readonly connectionStatusBar: ConnectionStatusBar;
  readonly notifier: Notifier;
  readonly doctor: DeploymentDoctor;
  /** The all-locks timeline (its open panel, for tests). */
  readonly allLocks: AllLocksPanels;
  /** Recent log lines (what the log channel shows), to prove what is never logged. */
  logLines(): string[];
}

let teardown: (() => Promise<void>) | undefined;

/** A window whose Locks view is not open starts its first read this much later, no more. */
const FIRST_READ_WAIT_MS = 300;

export function activate(context: vscode.ExtensionContext): RedlockInspectorApi {
  mark('activate');
  const version = (context.extension.packageJSON as { version: string }).version;
  const log = new Log('Redlock Inspector');
  const passwords = new PasswordStore(context.secrets, context.globalState);
  const model = new LockModel(passwords, log);
  const mine = model.mine;
  const locks = new LocksTreeProvider(model, mine, context.workspaceState);
  const doctor = new DeploymentDoctor(model, log);
  const nodes = new NodesTreeProvider(model, doctor);
  const locksView = vscode.window.createTreeView<LocksTreeElement>('redlock.locks', { treeDataProvider: locks, showCollapseAll: true });
  const nodesView = vscode.window.createTreeView('redlock.nodes', { treeDataProvider: nodes });
  locks.isVisible = () => locksView.visible;
  locks.onFirstRows = () => finishStartup((line) => log.info(line));
  // Rows a user opened or selected count down every second wherever they are in the list.
  let selected: readonly LocksTreeElement[] = [];
  // Registered during activation: the serializer restores panels after a window reload.
  const detailPanels = new LockDetailsPanels(context.extensionUri, {
    entry: (key) => model.entry(key),
    takenAtOf: (key) => model.takenAtOf(key),
    nodeIds: () => model.configuredNodes.map((n) => n.id),
    isMine: (key) => mine.has(key),
    readOnly: () => model.settings.readOnly,
    expiringThresholdMs: () => model.settings.expiringThresholdMs,
    onDidChange: anyEvent(model.onDidChange, mine.onDidChange, vscode.workspace.onDidChangeConfiguration),
    warn: (m) => log.warn(m),
    hasSnapshot: () => model.hasSnapshot,
    recordedEvents: async (key) => {
      const redlock = await model.redlock();
      return redlock ? (await redlock.history(parseKeyArg(key))).events : [];
    },
    auditFindings: async (key) => {
      const redlock = await model.redlock();
      return redlock ? (await redlock.reader.audit({ resource: parseKeyArg(key) })).findings : [];
    },
    panelsChanged: () => watchRate(),
  });
  // Nobody looking (both views hidden, no detail panel): the watch slows down (docs/decisions.md).
  const watchRate = (): void => model.setVisible(locksView.visible || nodesView.visible || detailPanels.all().length > 0);
  context.subscriptions.push(detailPanels);
  const allLocks = new AllLocksPanels(context.extensionUri, {
    eventFeed: async () => (await model.redlock())?.reader.eventFeed(),
    patterns: () => model.settings.keyPatterns,
    current: () => model.snapshot?.locks ?? [],
    observed: (key) => detailPanels.get(key)?.history ?? [],
    openDetails: (key) => detailPanels.show(key),
    onDidChange: model.onDidChange,
    warn: (m) => log.warn(m),
  });
  context.subscriptions.push(allLocks);
  const statusBar = new LockStatusBar(model, doctor);
  const heldStatusBar = new HeldStatusBar(mine);
  const guard = new WriteGuard();
  const connectionStatusBar = new ConnectionStatusBar(guard);
  const notifier = new Notifier(model, log, context.workspaceState);
  const s: Services = { model, mine, locks, locksView: locksView as vscode.TreeView<unknown>, passwords, log, detailPanels, guard, workspaceState: context.workspaceState };

  const showState = (): void => {
    const error = model.error;
    const empty = !error && model.hasSnapshot && model.lockCount === 0;
    const found = empty ? lastDiscovered() : undefined;
    // Nothing matches: one short walk looks for lock-shaped keys elsewhere, then says where.
    if (empty && found === undefined) void quickDiscover(s).then(showState);
    else if (!empty && model.hasSnapshot) forgetDiscovered();
    const outside = found?.length ? ` ${vscode.l10n.t('Lock-shaped keys were seen under {0}: run Discover Lock Patterns to add them.', found.slice(0, 5).map((p) => p.pattern).join(', '))}` : '';
    locksView.message = error ? `⚠ ${error}` : empty ? vscode.l10n.t('No lock keys match {0}.', model.settings.keyPatterns.join(', ')) + outside : undefined;
    nodesView.message = model.configError ? `⚠ ${model.configError}` : undefined;
  };

  const commands: Record<string, (...args: unknown[]) => unknown> = {
    pickConnection: (a) => pickConnection(a),
    addNode: (a) => nodeCommands.addNode(s, a),
    removeNode: (a) => nodeCommands.removeNode(s, a),
    setPassword: (a) => nodeCommands.setPassword(s, a),
    setTlsPassphrase: (a) => nodeCommands.setTlsPassphrase(s, a),
    refresh: () => viewCommands.refresh(s),
    pause: () => viewCommands.pause(s),
    resume: () => viewCommands.resume(s),
    filter: (a) => viewCommands.filter(s, a),
    showAnomaliesOnly: () => viewCommands.setAnomaliesOnly(s, true),
    showAllLocks: () => viewCommands.setAnomaliesOnly(s, false),
    loadMore: () => viewCommands.loadMore(s),
    discoverPatterns: () => discoverPatterns(s),
    acquire: (a) => acquire(s, a),
    extend: (a) => extend(s, a),
    release: (a) => release(s, a),
    stopExtending: (a) => stopExtending(s, a),
    showHeld: () => showHeld(s),
    forceRelease: (a) => forceRelease(s, a),
    copyToken: (a) => viewCommands.copyToken(s, a),
    copyKey: (a) => viewCommands.copyKey(s, a),
    openDetails: (a) => viewCommands.openDetails(s, a),
    showAllLocksTimeline: () => allLocks.show(),
    showLog: () => viewCommands.showLog(s),
    doctor: () => viewCommands.runDoctor(doctor),
  };
  for (const [verb, run] of Object.entries(commands)) {
    context.subscriptions.push(vscode.commands.registerCommand(`redlock.${verb}`, run));
  }

  context.subscriptions.push(
    log, mine, locks, nodes, locksView, nodesView, statusBar, heldStatusBar, connectionStatusBar, guard, notifier, doctor,
    model.onDidChange(showState),
    locksView.onDidChangeVisibility((e) => {
      if (e.visible) {
        mark('view visible');
        // Shown (also restored open at startup): the rows are wanted now, VS Code's ask follows.
        start();
        locks.refreshAll();
      }
      watchRate();
    }),
    nodesView.onDidChangeVisibility(() => watchRate()),
    // What is open decides what is fired: a closed folder's rows never are (docs/decisions.md).
    locksView.onDidExpandElement((e) => locks.setExpanded(e.element, true)),
    locksView.onDidCollapseElement((e) => locks.setExpanded(e.element, false)),
    locksView.onDidChangeSelection((e) => {
      locks.setWatched(selected, false);
      selected = e.selection;
      locks.setWatched(selected, true);
    }),
    model.onDidChangeState(showState),
    mine.onDidLose(({ key, why }) => {
      log.warn(`auto-extended lock ${printable(key)} lost: ${why}`);
      void vscode.window.showWarningMessage(vscode.l10n.t('Redlock: lost the lock on {0}: {1}', printable(key), why));
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('redlock')) void model.refresh({ facts: true });
      if (e.affectsConfiguration('redlock.readOnly')) log.info(`read-only mode ${model.settings.readOnly ? 'on' : 'off'}`);
    }),
  );
  context.subscriptions.push(...registerLmTools(model));
  void vscode.commands.executeCommand('setContext', 'redlock.paused', false);
  void viewCommands.setAnomaliesOnly(s, context.workspaceState.get<boolean>(viewCommands.ANOMALIES_ONLY_STATE, false));
  log.info(`Redlock Inspector ${version} activated`);
  watchRate();
  mark('activated');
  // The first read runs after activate() returns: activation stays cheap (docs/decisions.md).
  // It waits for the Locks view to show or VS Code's first ask for its rows, at most
  // FIRST_READ_WAIT_MS: its decoding would otherwise hold that ask, and the rows last seen
  // with it (docs/extension.md, "Startup").
  let started = false;
  function start(): void {
    if (started) return;
    started = true;
    clearTimeout(startTimer);
    mark('watch starting');
    model.start();
  }
  const startTimer = setTimeout(start, FIRST_READ_WAIT_MS);
  locks.onRootAsked = start;
  // `npm run demo` opens the workbench on the Redlock view: code-server offers no
  // command-line way to choose the first view, so the demo asks through the environment.
  if (process.env.REDLOCK_REVEAL_VIEW === '1') void vscode.commands.executeCommand('workbench.view.extension.redlock');

  teardown = async () => {
    started = true;
    clearTimeout(startTimer);
    // Every lock this window holds is released, not left to expire (nor kept extending).
    const { released, failed } = await mine.releaseAll();
    if (released.length) log.info(`window closing: released ${released.map(printable).join(', ')}`);
    for (const f of failed) log.warn(`window closing: could not release ${printable(f.key)} (${f.why}); it expires at its TTL`);
    await model.dispose();
  };

  return {
    version,
    snapshot: () => model.snapshot,
    refresh: () => model.refresh({ facts: true }),
    locksProvider: locks,
    locksView,
    nodesProvider: nodes,
    model,
    mine,
    statusBar,
    heldStatusBar,
    connectionStatusBar,
    notifier,
    doctor,
    allLocks,
    logLines: () => log.lines(),
  };
}

export async function deactivate(): Promise<void> {
  await teardown?.();
  teardown = undefined;
}
