// The Locks and Nodes views on five real redis-server nodes seeded with the demo states.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { needsAttention } from '../../../src/shared/lockOrder';
import type { RedlockInspectorApi } from '../../../src/extension/extension';
// Types only: the extension runs from its bundle, so its classes are not these modules' classes.
import type { LockElement, LocksTreeElement } from '../../../src/extension/views/locksTree';
import type { NodeElement } from '../../../src/extension/views/nodesTree';
import { seedDemoStates, type DemoStates } from '../../../src/dev/demoStates';
import { startNodes, type RedisServer } from '../../../src/dev/redisServer';
import { FLAT_MAX } from '../../../src/extension/views/lockGroups';
import { configure, getApi, hoverRow, lockRows, onEvery, resetSettings, rowOf, waitFor } from './helpers';

describe('Locks and Nodes views', function () {
  this.timeout(30_000);
  let servers: RedisServer[];
  let demo: DemoStates;
  let api: RedlockInspectorApi;
  const ids = (): string[] => servers.map((s) => `127.0.0.1:${s.port}`);

  before(async () => {
    servers = await startNodes(5);
    demo = await seedDemoStates(servers);
    api = await getApi();
    await configure({ nodes: servers.map((s) => s.url), refreshIntervalMs: 60_000 });
    await api.refresh();
  });

  after(async () => {
    await demo?.stop();
    await resetSettings();
    await api.refresh();
    await Promise.all(servers.map((s) => s.dispose()));
  });

  it('shows one item per key with the core description, anomalies first', async () => {
    const rows = await lockRows(api);
    const byKey = new Map(rows.map((r) => [(r.el as LockElement).key, r]));
    assert.equal(byKey.get(demo.keys.split)?.summary, 'split 2+2/5');
    assert.equal(byKey.get(demo.keys.partial)?.summary, 'partial 2/5');
    assert.equal(byKey.get(demo.keys.noTtl)?.summary, 'held 3/5 · no TTL');
    // The verdict and the flags that change what to do lead the label; the key follows.
    assert.equal(byKey.get(demo.keys.noTtl)?.label, `held 3/5 · no TTL — ${demo.keys.noTtl}`);
    assert.equal(byKey.get(demo.keys.split)?.label, `split 2+2/5 — ${demo.keys.split}`);
    assert.match(byKey.get(demo.keys.ttlSkew)?.verdict ?? '', /^held 5\/5 · TTL skew/);
    const highlighted = (r: { item: vscode.TreeItem }): string[] => {
      const l = r.item.label as vscode.TreeItemLabel;
      return (l.highlights ?? []).map(([a, b]) => l.label.slice(a, b));
    };
    assert.deepEqual(highlighted(byKey.get(demo.keys.noTtl)!), ['no TTL']);
    assert.deepEqual(highlighted(byKey.get(demo.keys.split)!), ['split 2+2/5']);
    // The demo holds this one through our core: its holder follows (name, pid, age).
    assert.match(byKey.get(demo.keys.healthy)?.summary ?? '', /^held 5\/5 · \d+\.\d s · .+ \(pid \d+\) for \d+ (s|min)$/);
    assert.match(byKey.get(demo.keys.healthy)?.description ?? '', /^\d+\.\d s · /);
    assert.ok(!byKey.has(demo.keys.list), 'a list is skipped, not a lock');
    // split, partial, then no-TTL, then the rest.
    assert.deepEqual(rows.slice(0, 3).map((r) => (r.el as LockElement).key), [demo.keys.split, demo.keys.partial, demo.keys.noTtl]);
    assert.equal(rows[0].item.contextValue, 'lock;split;token;');
    assert.ok(rows[0].item.iconPath instanceof vscode.ThemeIcon);
  });

  it('gives every item a stable, unique id and a parent', async () => {
    const rows = await lockRows(api);
    const idsSeen = new Set<string>();
    for (const r of rows) {
      assert.ok(r.item.id && !idsSeen.has(r.item.id));
      idsSeen.add(r.item.id);
      for (const c of await lockRows(api, r.el)) {
        assert.ok(c.item.id && !idsSeen.has(c.item.id), `duplicate id ${c.item.id}`);
        idsSeen.add(c.item.id);
        assert.equal(api.locksProvider.getParent(c.el), r.el);
      }
    }
    const again = await lockRows(api);
    assert.equal(again[0].el, rows[0].el, 'elements are memoized per key');
    assert.equal(again[0].item.id, JSON.stringify(['lock', (rows[0].el as LockElement).key]));
  });

  it('lists one child per configured node with token, TTL or absence', async () => {
    const split = await rowOf(api, demo.keys.split);
    const children = await lockRows(api, split.el);
    // Two holders: the CLI's letters lead the node ids, coloured as the panel colours them.
    assert.deepEqual(children.map((c) => c.label.replace(/^[AB] · /, '')), ids());
    const letters = children.map((c) => /^([AB]) · /.exec(c.label)?.[1] ?? '-');
    assert.deepEqual([...new Set(letters.filter((l) => l !== '-'))].sort(), ['A', 'B']);
    for (const c of children.filter((x) => /^[AB] · /.test(x.label))) {
      const icon = c.item.iconPath as vscode.ThemeIcon;
      assert.equal(icon.color?.id, c.label.startsWith('A') ? 'charts.blue' : 'charts.orange');
    }
    // The split's copies have ten minutes left: one duration format on every surface (src/core/vocabulary/describe.ts).
    assert.match(children[0].description, /^[0-9a-f]{13}… · \d+ min \d+ s$/);
    assert.equal(children[4].description, 'absent');
    assert.equal(children[0].item.contextValue, 'copy;present;token;');
  });

  it('escapes hostile keys and tokens in the tooltip table', async () => {
    // A key with a control byte is shown in its hex: form (it round-trips as an argument);
    // one with only Markdown and HTML metacharacters is shown as is, and escaped.
    const key = 'lock:hostile|`x` <img src=x onerror=alert(1)>';
    const controlKey = 'lock:hostile\n<img>';
    const token = 'a|b\n| c | d |`<script>`';
    await Promise.all(servers.slice(0, 3).map((s) => Promise.all([s.client().set(key, token, 'PX', 60_000), s.client().set(controlKey, token, 'PX', 60_000)])));
    await api.refresh();
    const controlRow = await rowOf(api, 'hex:' + Buffer.from(controlKey).toString('hex'));
    assert.equal(controlRow.key, 'hex:' + Buffer.from(controlKey).toString('hex'));
    const row = await rowOf(api, key);
    assert.equal(row.key, key, 'the key, one line, after the verdict');
    assert.ok(!row.label.includes('\n'));
    const md = (await hoverRow(api, row)) as vscode.MarkdownString;
    assert.ok(md instanceof vscode.MarkdownString);
    assert.equal(md.isTrusted, false);
    assert.equal(md.supportHtml, false);
    const tableRows = md.value.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| ---') && !l.startsWith('| node'));
    assert.equal(tableRows.length, 5, 'one table row per node, no row injected');
    for (const line of tableRows) assert.equal(line.match(/(?<!\\)\|/g)?.length, 6, `a row keeps 5 cells: ${line}`);
    assert.doesNotMatch(md.value, /(?<!\\)</, 'every < is escaped: no raw HTML');
    await Promise.all(servers.map((s) => s.client().del(key, controlKey)));
  });

  it('counts TTLs down without a Redis round trip, firing only changed elements', async () => {
    // The countdown runs while the view is visible.
    await vscode.commands.executeCommand('redlock.locks.focus');
    await waitFor('the Locks view to show', () => api.locksProvider.isVisible());
    const key = 'lock:countdown';
    // Under 10 s left the tree counts every second (src/shared/countdown.ts).
    await Promise.all(servers.map((s) => s.client().set(key, 'tok-countdown', 'PX', 9_500)));
    await api.refresh();
    const before = await rowOf(api, key);
    const snapshot = api.snapshot();
    const fired: Array<LocksTreeElement | LocksTreeElement[] | undefined | null | void> = [];
    const sub = api.locksProvider.onDidChangeTreeData((e) => fired.push(e));
    try {
      await waitFor('two countdown ticks of the row', () => fired.filter((e) => Array.isArray(e) && e.includes(before.el)).length >= 2);
    } finally {
      sub.dispose();
    }
    const after = await rowOf(api, key);
    assert.equal(api.snapshot(), snapshot, 'no read of the nodes in between');
    const secs = (d: string): number => Number(/· (\d+\.\d) s$/.exec(d)?.[1]);
    assert.ok(secs(after.summary) <= secs(before.summary) - 1, `${before.summary} -> ${after.summary}`);
    for (const e of fired) {
      assert.ok(Array.isArray(e), 'a tick fires elements, not the root');
      for (const x of e) assert.equal(x.kind, 'lock');
    }
    await Promise.all(servers.map((s) => s.client().del(key)));
  });

  it('filters keys by glob', async () => {
    await vscode.commands.executeCommand('redlock.filter', { glob: 'lock:split:*' });
    assert.deepEqual((await lockRows(api)).map((r) => r.key), [demo.keys.split]);
    await vscode.commands.executeCommand('redlock.filter', 'no-ttl');
    assert.deepEqual((await lockRows(api)).map((r) => r.key), [demo.keys.noTtl]);
    await vscode.commands.executeCommand('redlock.filter', '');
    assert.ok((await lockRows(api)).length > 5);
  });

  it('groups a long list: "Needs attention" first and open, then folders on `:` that load on demand', async () => {
    const many = Array.from({ length: FLAT_MAX + 10 }, (_, i) => `lock:many:${String(i).padStart(2, '0')}`);
    await onEvery(servers, async (c) => {
      const p = c.pipeline();
      for (const k of many) p.set(k, 'tok-many', 'PX', 600_000);
      return p.exec();
    });
    try {
      await api.refresh();
      const root = await lockRows(api);
      assert.equal(root[0].el.kind, 'attentionGroup');
      assert.equal(root[0].label, 'Needs attention');
      assert.equal(root[0].item.collapsibleState, vscode.TreeItemCollapsibleState.Expanded);
      // Every lock the status bar counts is in the group, anomalies first, though its folder is closed.
      const attention = api.snapshot()!.locks.filter(needsAttention).map((e) => e.key);
      const inGroup = (await lockRows(api, root[0].el)).map((r) => (r.el as LockElement).key);
      assert.deepEqual([...inGroup].sort(), [...attention].sort());
      assert.deepEqual(inGroup.slice(0, 3), [demo.keys.split, demo.keys.partial, demo.keys.noTtl]);
      const lockFolder = root.find((r) => r.el.kind === 'folder' && r.label === 'lock:')!;
      assert.ok(lockFolder, `no folder lock: at the top; have ${root.map((r) => r.label).join(', ')}`);
      assert.equal(lockFolder.item.collapsibleState, vscode.TreeItemCollapsibleState.Collapsed);
      assert.match(lockFolder.description, /^\d+ locks · \d+ need attention, worst: split$/);
      const inside = await lockRows(api, lockFolder.el);
      const manyFolder = inside.find((r) => r.el.kind === 'folder')!;
      assert.equal(manyFolder.label, 'many:');
      assert.equal(manyFolder.description, `${many.length} locks`);
      const manyRows = await lockRows(api, manyFolder.el);
      assert.deepEqual(manyRows.map((r) => (r.el as LockElement).key), many);
      // Far from expiry a row's time reads roughly: it does not change every second.
      assert.match(manyRows[7].description, /^> \d+ min$/);
      assert.equal(api.locksProvider.getParent(manyRows[7].el), manyFolder.el);
      assert.equal(api.locksProvider.getParent(manyFolder.el), lockFolder.el);
      // VS Code finds the row through its parents: reveal opens the folders on the way.
      await vscode.commands.executeCommand('redlock.locks.focus');
      await api.locksView.reveal(manyRows[7].el, { select: true, focus: false, expand: false });
      await waitFor('the revealed row selected', () => api.locksView.selection[0] === manyRows[7].el);
    } finally {
      await onEvery(servers, (c) => c.del(...many));
      await api.refresh();
    }
    assert.equal((await lockRows(api))[0].el.kind, 'lock', 'a short list is flat again');
  });

  it('offers "Load more" when the scan was cut and merges the next page', async () => {
    const bulk = servers[0].client();
    const pipe = bulk.pipeline();
    for (let i = 0; i < 2500; i++) pipe.set(`lock:bulk:${i}`, `t${i}`, 'PX', 120_000);
    await pipe.exec();
    try {
      await configure({ maxKeys: 1 });
      await api.refresh();
      const rows = await lockRows(api);
      const more = rows.at(-1)!;
      assert.equal(more.label, 'Load more…');
      assert.equal(more.item.command?.command, 'redlock.loadMore');
      const firstCount = api.snapshot()!.locks.length;
      await vscode.commands.executeCommand('redlock.loadMore');
      assert.ok(api.snapshot()!.locks.length > firstCount, 'more keys after load more');
      // Later polls keep reading as far as the user loaded.
      const loaded = api.snapshot()!.locks.length;
      await api.refresh();
      assert.ok(api.snapshot()!.locks.length >= loaded);
    } finally {
      await configure({ maxKeys: undefined });
      const keys = await bulk.keys('lock:bulk:*');
      for (let i = 0; i < keys.length; i += 500) await bulk.del(...keys.slice(i, i + 500));
      bulk.disconnect();
      await api.refresh();
    }
    assert.notEqual((await lockRows(api)).at(-1)?.label, 'Load more…');
  });

  it('shows health, latency, version, role and clock offset per node', async () => {
    const nodes = ((await api.nodesProvider.getChildren()) ?? []).filter((n): n is NodeElement => n.kind === 'node');
    assert.deepEqual(nodes.map((n) => n.id), ids());
    const item = await api.nodesProvider.getTreeItem(nodes[0]);
    // Fresh nodes without persistence, holding locks longer than their uptime: the restart rule bites.
    assert.match(String(item.description), /^[\d.]+ ms · v\d+\.\d+\.\d+ · master · clock [+-]\d+ ms · restart risk$/);
    assert.equal(item.contextValue, 'node;reachable;risk;');
    assert.equal(item.id, JSON.stringify(['node', ids()[0]]));
  });

  it('puts the lock count and the locks that need attention in words in the status bar, with a warning background', async () => {
    await waitFor('status bar', () => api.statusBar.text.includes('need attention'));
    const snap = api.snapshot()!;
    const attention = snap.locks.filter(needsAttention).length;
    assert.ok(api.statusBar.text.startsWith(`$(lock) ${snap.locks.length} locks, ${attention} need attention`), api.statusBar.text);
    assert.ok(api.statusBar.warning);
  });

  it('notifies when a split or a lock without TTL appears (redlock.notifyOn)', () => {
    assert.ok(api.notifier.sent.includes(`split: ${demo.keys.split}`), api.notifier.sent.join(', '));
    assert.ok(api.notifier.sent.includes(`no-ttl: ${demo.keys.noTtl}`));
  });

  it('notifies each lock state once per workspace, and again when the state changes', async () => {
    const key = 'lock:notify-once';
    const count = (): number => api.notifier.sent.filter((x) => x === `split: ${key}`).length;
    await Promise.all(servers.map((s, i) => s.client().set(key, i < 2 ? 'tok-a' : 'tok-b', 'PX', 60_000)));
    await api.refresh();
    await waitFor('a split notification', () => count() === 1);
    // What the workspace remembers (api.notifier.memory is the extension's workspaceState).
    assert.ok(api.notifier.memory.get<string[]>('redlock.notified', []).some((x) => x.includes(key)));
    // A new window, or a changed node list, looks at every key afresh: nothing new to say.
    api.notifier.review([key]);
    await Promise.all(servers.map((s) => s.client().pexpire(key, 50_000)));
    await api.refresh();
    assert.equal(count(), 1, api.notifier.sent.join(', '));
    // Another holder on one node: a different state, told again.
    await servers[4].client().set(key, 'tok-c', 'PX', 60_000);
    await api.refresh();
    await waitFor('a second split notification', () => count() === 2);
    await Promise.all(servers.map((s) => s.client().del(key)));
    await api.refresh();
  });

  it('shows anomalies only from the view title, remembered per workspace', async () => {
    try {
      await vscode.commands.executeCommand('redlock.showAnomaliesOnly');
      const keys = (await lockRows(api)).map((r) => r.key);
      for (const k of [demo.keys.split, demo.keys.partial, demo.keys.noTtl, demo.keys.ttlSkew]) assert.ok(keys.includes(k), `${k} in ${keys.join(', ')}`);
      assert.ok(!keys.includes(demo.keys.healthy), 'a healthy lock is hidden');
      assert.equal(api.locksView.description, 'anomalies only');
      assert.equal(api.notifier.memory.get('redlock.anomaliesOnly'), true);
    } finally {
      await vscode.commands.executeCommand('redlock.showAllLocks');
    }
    assert.ok((await lockRows(api)).some((r) => r.key === demo.keys.healthy));
    assert.equal(api.locksView.description, undefined);
    assert.equal(api.notifier.memory.get('redlock.anomaliesOnly'), false);
  });

  it('reveals and selects the row of a lock just acquired', async () => {
    await vscode.commands.executeCommand('redlock.locks.focus');
    // Sorted after every demo key: off-screen in a short view.
    const key = 'lock:zz-reveal:payments-settlement-batch-eu-west';
    await vscode.commands.executeCommand('redlock.acquire', { resource: key, ttlMs: 30_000 });
    try {
      await waitFor('the new row selected', () => api.locksView.selection.some((e) => e.kind === 'lock' && e.key === key));
    } finally {
      await vscode.commands.executeCommand('redlock.release', { key });
    }
  });
});
