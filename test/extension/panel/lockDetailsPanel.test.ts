// The lock detail panel's extension side, driven without VS Code: a minimal stand-in for
// the `vscode` module (the shared src/dev/fakeVscode.ts) is resolved while this file runs.
// It checks one panel per key, the handshake, history from consecutive snapshots, the
// message handler (validation, read-only, actions, copy, export) and the serializer.
import * as assert from 'node:assert/strict';
import type { LockEntry, Observation } from '../../../src/core/vocabulary/types';
import { lockEntry } from '../../support/entries';
import { createFakeVscode, EventEmitter, installFakeVscode } from '../../../src/dev/fakeVscode';
import type * as PanelModule from '../../../src/extension/panel/lockDetailsPanel';
import { PROTOCOL_VERSION, type HostMessage } from '../../../src/shared/protocol';

interface FakePanel {
  title: string;
  iconPath: unknown;
  viewType: string;
  webview: { html: string; options: unknown; cspSource: string; posted: HostMessage[]; asWebviewUri(u: { path: string }): { toString(): string }; postMessage(m: HostMessage): Promise<boolean>; onDidReceiveMessage: EventEmitter<unknown>['event']; receive: EventEmitter<unknown> };
  revealed: number;
  disposed: boolean;
  reveal(): void;
  dispose(): void;
  onDidDispose: EventEmitter<void>['event'];
}

const calls = { commands: [] as unknown[][], clipboard: [] as string[], warnings: [] as string[], written: [] as Array<[string, string]>, serializers: [] as string[] };
function fakePanel(viewType: string): FakePanel {
  const receive = new EventEmitter<unknown>();
  const disposeE = new EventEmitter<void>();
  const p: FakePanel = {
    title: '', iconPath: undefined, viewType, revealed: 0, disposed: false,
    webview: {
      html: '', options: undefined, cspSource: 'https://webview.test', posted: [],
      asWebviewUri: (u) => ({ toString: () => `https://webview.test${u.path}` }),
      postMessage(m) {
        this.posted.push(JSON.parse(JSON.stringify(m)) as HostMessage);
        return Promise.resolve(true);
      },
      onDidReceiveMessage: receive.event, receive,
    },
    reveal() { this.revealed++; },
    dispose() {
      if (this.disposed) return;
      this.disposed = true;
      disposeE.fire();
    },
    onDidDispose: disposeE.event,
  };
  return p;
}
const created: FakePanel[] = [];
// The shared stand-in (src/dev/fakeVscode.ts), with the webview calls this suite records.
const base = createFakeVscode().module as { window: object; workspace: object };
const vscodeStub = {
  ...base,
  window: {
    ...base.window,
    registerWebviewPanelSerializer: (viewType: string) => {
      calls.serializers.push(viewType);
      return { dispose() {} };
    },
    createWebviewPanel: (viewType: string, title: string) => {
      const p = fakePanel(viewType);
      p.title = title;
      created.push(p);
      return p;
    },
    showWarningMessage: (m: string) => {
      calls.warnings.push(m);
      return Promise.resolve(undefined);
    },
    showSaveDialog: () => Promise.resolve({ path: '/tmp/export.json' }),
  },
  workspace: {
    ...base.workspace,
    workspaceFolders: undefined,
    fs: { writeFile: (u: { path: string }, data: Uint8Array) => { calls.written.push([u.path, new TextDecoder().decode(data)]); return Promise.resolve(); } },
  },
  env: { clipboard: { writeText: (t: string) => { calls.clipboard.push(t); return Promise.resolve(); } } },
  commands: { executeCommand: (...args: unknown[]) => { calls.commands.push(args); return Promise.resolve('ran'); } },
};

const T1 = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const T2 = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
function o(node: string, token: string | null, pttlMs = 10_000): Observation {
  return token === null
    ? { node, state: 'absent', token: null, pttlMs: null, type: null, format: null, holdCount: null, reason: null }
    : { node, state: 'present', token, pttlMs, type: 'string', format: 'string', holdCount: null, reason: null };
}
function entry(key: string, tokens: Array<string | null>): LockEntry {
  return lockEntry(key, tokens.map((t, i) => o(`n${i + 1}`, t)), { validityMs: 9000 });
}

describe('lock detail panel host (stand-in vscode)', () => {
  let panelMod: typeof PanelModule;
  let uninstall: () => void;

  before(() => {
    uninstall = installFakeVscode({ module: vscodeStub });
    panelMod = require('../../../src/extension/panel/lockDetailsPanel') as typeof PanelModule;
  });
  after(() => {
    uninstall();
    delete require.cache[require.resolve('../../../src/extension/panel/lockDetailsPanel')];
  });

  function setup(over: Partial<PanelModule.LockDetailsSource> = {}) {
    const state = { entries: new Map<string, LockEntry>(), takenAt: 1_000, mine: false, readOnly: false };
    const changes = new EventEmitter<unknown>();
    const actions: Array<[string, string]> = [];
    const source: PanelModule.LockDetailsSource = {
      entry: (k) => state.entries.get(k),
      takenAtOf: () => state.takenAt,
      nodeIds: () => ['n1', 'n2', 'n3'],
      isMine: () => state.mine,
      readOnly: () => state.readOnly,
      expiringThresholdMs: () => 2000,
      onDidChange: changes.event,
      runAction: (kind, key) => {
        actions.push([kind, key]);
        return Promise.resolve('done');
      },
      ...over,
    };
    const panels = new panelMod.LockDetailsPanels({ path: '/ext' } as never, source);
    return { state, changes, actions, panels };
  }

  it('opens one panel per key with the safe HTML, and shows it again when open', () => {
    const { panels } = setup();
    const before = created.length;
    const a = panels.show('lock:<img src=x onerror=alert(1)>');
    const again = panels.show('lock:<img src=x onerror=alert(1)>');
    assert.equal(a, again);
    assert.equal(created.length, before + 1);
    const fp = created.at(-1)!;
    assert.equal(fp.viewType, 'redlock.lockDetails');
    assert.equal(fp.revealed, 1);
    assert.equal(fp.title, 'Lock: lock:<img src=x onerror=alert(1)>');
    // The key never reaches the HTML: it arrives by postMessage.
    assert.doesNotMatch(fp.webview.html, /img src=x/);
    assert.match(fp.webview.html, /default-src 'none'; script-src 'nonce-[A-Za-z0-9]{32}'; style-src https:\/\/webview.test;/);
    assert.match(fp.webview.html, /<script type="module" nonce="[A-Za-z0-9]{32}" src="https:\/\/webview.test\/ext\/dist\/webview\/main.js">/);
    assert.deepEqual((fp.webview.options as { localResourceRoots: Array<{ path: string }> }).localResourceRoots.map((u) => u.path), ['/ext/dist/webview', '/ext/media']);
    assert.deepEqual(calls.serializers.at(-1), 'redlock.lockDetails');
    panels.dispose();
    assert.equal(fp.disposed, true);
    assert.equal(panels.get('lock:<img src=x onerror=alert(1)>'), undefined);
  });

  it('answers ready with init, then sends snapshots and history events', async () => {
    const { state, changes, panels } = setup();
    state.entries.set('k', entry('k', [T1, T1, null]));
    const p = panels.show('k');
    const fp = created.at(-1)!;
    changes.fire({ added: [], changed: ['k'], removed: [] });
    assert.equal(fp.webview.posted.length, 0, 'nothing is sent before the handshake');
    fp.webview.receive.fire({ type: 'ready', version: PROTOCOL_VERSION });
    const init = fp.webview.posted[0];
    assert.equal(init.type, 'init');
    assert.ok(init.type === 'init' && init.entry?.verdict === 'held' && init.key === 'k' && init.readOnly === false && init.history.length === 0);

    state.entries.set('k', entry('k', [T1, T2, T2]));
    changes.fire({ added: [], changed: ['k'], removed: [] });
    const [events, snap] = fp.webview.posted.slice(1);
    assert.equal(events.type, 'events');
    assert.deepEqual(events.type === 'events' && events.events.map((e) => [e.kind, e.nodes]), [['holder-changed', ['n2']], ['acquired', ['n3']], ['split-detected', []]]);
    assert.equal(snap.type === 'snapshot' && snap.entry?.verdict, 'split');
    assert.equal(p.history.length, 3);
    // A change to another key does not touch this panel.
    changes.fire({ added: ['other'], changed: [], removed: [] });
    assert.equal(fp.webview.posted.length, 3);
    // The key gone: expired/released events and a null entry.
    state.entries.delete('k');
    changes.fire({ added: [], changed: [], removed: ['k'] });
    const last = fp.webview.posted.at(-1)!;
    assert.ok(last.type === 'snapshot' && last.entry === null && last.nodes.join() === 'n1,n2,n3');
    panels.dispose();
  });

  it('validates messages, refuses actions in read-only mode, runs them otherwise', async () => {
    const { state, actions, panels } = setup();
    state.entries.set('k', entry('k', [T1, T1, null]));
    const p = panels.show('k');
    await p.handleMessage({ type: 'action', kind: 'rm -rf', key: 'k' });
    await p.handleMessage({ type: 'action', kind: 'extend', key: 'another-key' });
    assert.deepEqual(actions, []);
    state.readOnly = true;
    await p.handleMessage({ type: 'action', kind: 'forceRelease', key: 'k' });
    assert.deepEqual(actions, []);
    assert.match(calls.warnings.at(-1) ?? '', /read-only/);
    state.readOnly = false;
    assert.equal(await p.handleMessage({ type: 'action', kind: 'forceRelease', key: 'k' }), 'done');
    assert.deepEqual(actions, [['forceRelease', 'k']]);
    await p.handleMessage({ type: 'copyToken', key: 'k', node: 'n2' });
    assert.equal(calls.clipboard.at(-1), T1);
    // An unreachable node's error is copyable as the panel shows it; an absent copy copies nothing.
    const e = entry('k', [T1, T1, null]);
    state.entries.set('k', { ...e, nodes: [...e.nodes.slice(0, 2), { ...e.nodes[2], state: 'unreachable', reason: 'connect ECONNREFUSED 127.0.0.1:7003' }] });
    assert.equal(await p.handleMessage({ type: 'copyToken', key: 'k', node: 'n3' }), 'unreachable (connect ECONNREFUSED 127.0.0.1:7003)');
    assert.equal(calls.clipboard.at(-1), 'unreachable (connect ECONNREFUSED 127.0.0.1:7003)');
    state.entries.set('k', e);
    const copies = calls.clipboard.length;
    assert.equal(await p.handleMessage({ type: 'copyToken', key: 'k', node: 'n3' }), undefined);
    assert.equal(calls.clipboard.length, copies);
    const uri = await p.handleMessage({ type: 'exportHistory', key: 'k' });
    assert.deepEqual(uri, { path: '/tmp/export.json' });
    assert.equal(JSON.parse(calls.written.at(-1)![1]).key, 'k');
    panels.dispose();
  });

  it('runs the redlock command with { key } by default', async () => {
    const { state, panels } = setup({ runAction: undefined });
    state.entries.set('k', entry('k', [T1, T1, null]));
    const p = panels.show('k');
    await p.handleMessage({ type: 'action', kind: 'extend', key: 'k' });
    assert.deepEqual(calls.commands.at(-1), ['redlock.extend', { key: 'k' }]);
    panels.dispose();
  });

  it('restores a panel after reload from the saved state, and drops a bad one', async () => {
    const { state, panels } = setup();
    state.entries.set('k', entry('k', [T1, T1, null]));
    const restored = fakePanel('redlock.lockDetails');
    await panels.deserializeWebviewPanel(restored as never, { key: 'k', history: [{ at: 1, kind: 'acquired', nodes: ['n1'], token: T1, previousToken: null, from: null, to: null }, { bogus: true }] });
    const p = panels.get('k');
    assert.ok(p);
    assert.equal(p.history.length, 1);
    assert.match(restored.webview.html, /vscode-codicon-stylesheet/);
    const broken = fakePanel('redlock.lockDetails');
    await panels.deserializeWebviewPanel(broken as never, { nope: 1 });
    assert.equal(broken.disposed, true);
    panels.dispose();
  });

  it('restored before the first snapshot: the first read is a baseline, not an acquisition', async () => {
    let loaded = false;
    const { state, changes, panels } = setup({ hasSnapshot: () => loaded });
    const restored = fakePanel('redlock.lockDetails');
    await panels.deserializeWebviewPanel(restored as never, { key: 'k' });
    const p = panels.get('k')!;
    state.entries.set('k', entry('k', [T1, T1, T1]));
    loaded = true;
    changes.fire(undefined);
    assert.equal(p.history.length, 0, 'a lock held for minutes is not "acquired" at reload');
    state.entries.set('k', entry('k', [T2, T2, T2]));
    changes.fire(undefined);
    assert.ok(p.history.some((e) => e.kind === 'holder-changed'));
    panels.dispose();
  });

  it('merges what the locking clients recorded, from before the panel opened', async () => {
    const recorded = [
      { at: 5_000, type: 'released' as const, holder: { name: 'billing', host: 'h', pid: 7, since: 1_000 }, token: T1 },
      { at: 1_000, type: 'acquired' as const, holder: { name: 'billing', host: 'h', pid: 7, since: 1_000 }, token: T1 },
      { at: null, type: 'unreadable' as const, holder: null, token: null, reason: 'malformed' },
    ];
    const { state, panels } = setup({ recordedEvents: () => Promise.resolve(recorded) });
    state.entries.set('k', entry('k', [T1, T1, null]));
    const p = panels.show('k');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(p.history.map((e) => [e.at, e.kind, e.recordedBy]), [[1_000, 'acquired', 'billing (pid 7 on h)'], [5_000, 'released', 'billing (pid 7 on h)']]);
    panels.dispose();
  });

  it('audits the recorded history when new events arrive, and sends the findings where they happened', async () => {
    const recorded = [
      { at: 1_000, type: 'acquired' as const, holder: null, token: T1, validityMs: 9_000, fence: 7, waitMs: 40 },
      { at: 2_000, type: 'acquired' as const, holder: null, token: T2, validityMs: 9_000, fence: 8 },
    ];
    const audited: string[] = [];
    const finding = { kind: 'overlap' as const, resource: 'k', at: 2_000, holders: [], evidence: [], detail: 'a second holder was granted the lock' };
    const { state, panels } = setup({ recordedEvents: () => Promise.resolve(recorded), auditFindings: (key) => (audited.push(key), Promise.resolve([finding])) });
    state.entries.set('k', entry('k', [T1, T1, null]));
    const p = panels.show('k');
    const fp = created.at(-1)!;
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(audited, ['k']);
    assert.deepEqual(p.history.map((e) => [e.kind, e.fence, e.waitMs]), [['acquired', 7, 40], ['acquired', 8, undefined]]);
    fp.webview.receive.fire({ type: 'ready', version: PROTOCOL_VERSION });
    assert.deepEqual(fp.webview.posted.map((m) => m.type), ['init', 'findings']);
    assert.deepEqual(fp.webview.posted[1], { type: 'findings', key: 'k', findings: [{ at: 2_000, kind: 'overlap', detail: 'a second holder was granted the lock' }] });
    panels.dispose();
  });

  it('audits what it observed of a foreign lock too: copies left to run out, said to be observed', () => {
    const { state, changes, panels } = setup();
    state.entries.set('k', entry('k', [T1, T1, null]));
    const p = panels.show('k');
    const fp = created.at(-1)!;
    fp.webview.receive.fire({ type: 'ready', version: PROTOCOL_VERSION });
    // The watch reads again 11 s later: the copies (10 s left at the last read) are gone.
    state.entries.delete('k');
    state.takenAt = 12_000;
    changes.fire(undefined);
    assert.ok(p.history.some((e) => e.kind === 'expired' && e.token === T1), 'the panel saw the copies run out');
    const sent = fp.webview.posted.filter((m) => m.type === 'findings');
    assert.equal(sent.length, 1);
    assert.ok(sent[0].type === 'findings');
    assert.deepEqual(sent[0].findings.map((f) => [f.kind, f.observed]), [['expired-unreleased', true]]);
    assert.match(sent[0].findings[0].detail, /seen by a watch, not recorded by the holders/);
    // Nothing new: nothing sent again.
    changes.fire(undefined);
    assert.equal(fp.webview.posted.filter((m) => m.type === 'findings').length, 1);
    panels.dispose();
  });

  it('anyEvent merges events', () => {
    const a = new EventEmitter<unknown>();
    const b = new EventEmitter<unknown>();
    const seen: unknown[] = [];
    const sub = panelMod.anyEvent(a.event, b.event)((v) => seen.push(v));
    a.fire(1);
    b.fire('x');
    sub.dispose();
    a.fire(2);
    assert.deepEqual(seen, [1, 'x']);
  });
});
