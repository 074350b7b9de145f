// The Locks tree's shape and what it fires, on the stand-in `vscode` (src/dev/fakeVscode.ts)
// with the real tree module over a model of plain entries: what a person can see change is
// fired, nothing else (docs/decisions.md, "A tree for 10,000 locks").
import assert from 'node:assert/strict';
import { useStandInVscode } from '../../support/standInVscode';
import type * as TreeModule from '../../../src/extension/views/locksTree';
import type { LockEntry } from '../../../src/core/vocabulary/types';
import { lockEntry, present } from '../../support/entries';

type El = TreeModule.LocksTreeElement;

describe('Locks tree (stand-in vscode)', () => {
  const standIn = useStandInVscode(['../../src/extension/views/locksTree']);
  let tree: typeof TreeModule;
  before(() => {
    [tree] = standIn.loaded as [typeof TreeModule];
  });

  // Read "now" at each call: the suite may run minutes after this file loads, and rough
  // wording moves when the time left crosses a step.
  const healthy = (key: string, ttlMs = 600_000, token = 't'): LockEntry => lockEntry(key, [present('a', token, ttlMs), present('b', token, ttlMs), present('c', token, ttlMs)], {}, { nowMs: Date.now() });
  const split = (key: string): LockEntry => lockEntry(key, [present('a', 't', 600_000), present('b', 'u', 600_000)], {}, { nowMs: Date.now() });

  /** A model of plain entries that tells the tree what changed, as LockModel does. */
  function setup(entries: LockEntry[]) {
    const byKey = new Map(entries.map((e) => [e.key, e]));
    const listeners: Array<(c: unknown) => void> = [];
    let takenAt = Date.now();
    const model = {
      onDidChange: (l: (c: unknown) => void) => (listeners.push(l), { dispose() {} }),
      onDidChangeState: () => ({ dispose() {} }),
      get snapshot() {
        return { quorum: 2, nodes: [], locks: [...byKey.values()].sort((a, b) => (a.key < b.key ? -1 : 1)), skipped: [], truncated: false };
      },
      hasSnapshot: true,
      get lockCount() {
        return byKey.size;
      },
      settings: { expiringThresholdMs: 2000 },
      truncated: false,
      entry: (k: string) => byKey.get(k),
      takenAtOf: () => takenAt,
    };
    const t = new tree.LocksTreeProvider(model as never, { onDidChange: () => ({ dispose() {} }), has: () => false, all: () => [] } as never);
    t.setFilter('');
    const fired: Array<El[] | undefined> = [];
    t.onDidChangeTreeData((e) => {
      fired.push(e === undefined ? undefined : Array.isArray(e) ? e : [e]);
      // VS Code asks for the items of what was fired.
      for (const el of Array.isArray(e) ? e : e ? [e] : []) t.getTreeItem(el);
    });
    /** The watch read again: `next` replaces entries, `gone` keys went. */
    const read = (next: LockEntry[], gone: string[] = []): Array<El[] | undefined> => {
      fired.length = 0;
      const added: string[] = [];
      const changed: string[] = [];
      const before = new Map<string, LockEntry>();
      for (const e of next) {
        const was = byKey.get(e.key);
        if (was) {
          before.set(e.key, was);
          changed.push(e.key);
        } else added.push(e.key);
        byKey.set(e.key, e);
      }
      for (const k of gone) {
        before.set(k, byKey.get(k)!);
        byKey.delete(k);
      }
      takenAt = Date.now();
      for (const l of listeners) l({ added, changed, removed: gone, before });
      return [...fired];
    };
    const tick = (): Array<El[] | undefined> => {
      fired.length = 0;
      t.tick();
      return [...fired];
    };
    /** What VS Code does when the view shows: the root, then every open element's children, each item built. */
    const render = (parent?: El): El[] => {
      const kids = t.getChildren(parent);
      for (const k of kids) t.getTreeItem(k);
      return kids;
    };
    /** The root shown, the group open, and the `jobs:nightly:` folder (the second row) opened with its rows. */
    const openJobs = (): { root: El[]; jobs: TreeModule.FolderElement; rows: El[] } => {
      const root = render();
      render(root[0]);
      const jobs = root[1] as TreeModule.FolderElement;
      t.setExpanded(jobs, true);
      return { root, jobs, rows: render(jobs) };
    };
    return { t, read, tick, render, fired, openJobs };
  }

  const labelOf = (t: TreeModule.LocksTreeProvider, el: El): string => {
    const l = t.getTreeItem(el).label;
    return typeof l === 'string' ? l : (l?.label ?? '');
  };
  const keysOf = (els: El[] | undefined): string[] => (els ?? []).map((e) => ('key' in e ? e.key : 'prefix' in e ? `[${e.prefix}]` : e.kind));

  /** 300 orders:NNN (orders:150 split), 200 jobs:nightly:NNN, one key without a folder. */
  function bigDeployment(): LockEntry[] {
    const entries: LockEntry[] = [];
    for (let i = 0; i < 300; i++) {
      const key = `orders:${String(i).padStart(3, '0')}`;
      entries.push(i === 150 ? split(key) : healthy(key));
    }
    for (let i = 0; i < 200; i++) entries.push(healthy(`jobs:nightly:${String(i).padStart(3, '0')}`));
    entries.push(healthy('standalone'));
    return entries;
  }

  it('lists a short deployment flat, anomalies first, with no group', () => {
    const { t, render } = setup([healthy('lock:b'), split('lock:a:x'), healthy('lock:c')]);
    try {
      const root = render();
      assert.equal(t.isGrouped, false);
      assert.deepEqual(keysOf(root), ['lock:a:x', 'lock:b', 'lock:c']);
      assert.ok(root.every((e) => e instanceof tree.LockElement));
    } finally {
      t.dispose();
    }
  });

  it('a root of 130,000 keys without a folder: every row, no RangeError', function () {
    this.timeout(60_000);
    // Rows used to be pushed as push(...rows): every row an argument on the stack.
    const base = healthy('lock0');
    const n = 130_000;
    const entries = Array.from({ length: n }, (_, i) => ({ ...base, key: `lock${i}` }));
    const { t } = setup(entries);
    try {
      assert.equal(t.isGrouped, true);
      assert.equal(t.getChildren().length, n);
    } finally {
      t.dispose();
    }
  });

  it('opens a long one with "Needs attention", then folders with their count and worst verdict', () => {
    const entries = bigDeployment();
    const { t, render } = setup(entries);
    try {
      const root = render();
      assert.equal(t.isGrouped, true);
      assert.deepEqual(keysOf(root), ['attentionGroup', '[jobs:nightly:]', '[orders:]', 'standalone']);
      const group = t.getTreeItem(root[0]);
      assert.equal(group.label, 'Needs attention');
      assert.equal(group.collapsibleState, 2, 'open: an anomaly is never hidden in a closed folder');
      // The split sits in a closed folder, and in the group.
      assert.deepEqual(keysOf(render(root[0])), ['orders:150']);
      assert.match(labelOf(t, render(root[0])[0]), /^split 1\+1\/2 — orders:150$/);
      const orders = t.getTreeItem(root[2]);
      assert.equal(orders.collapsibleState, 1, 'folders load on demand');
      assert.equal(orders.label, 'orders:');
      assert.equal(orders.description, '300 locks · 1 needs attention: split');
      assert.equal(t.getTreeItem(root[1]).description, '200 locks');
      // Two rows for one key: ids differ, parents are the group and the folder.
      const inFolder = t.getChildren(root[2]).find((e) => 'key' in e && e.key === 'orders:150')!;
      const inGroup = t.getChildren(root[0])[0];
      assert.notEqual(t.getTreeItem(inFolder).id, t.getTreeItem(inGroup).id);
      assert.equal(t.getParent(inFolder), root[2]);
      assert.equal(t.getParent(inGroup), root[0]);
      assert.equal(t.getParent(root[2]), undefined);
      assert.equal(t.listed('orders:150'), inFolder, 'reveal goes to the row in its folder');
    } finally {
      t.dispose();
    }
  });

  it('memoizes elements: the same objects on every call, so a fired element is the row VS Code holds', () => {
    const { t, render } = setup(bigDeployment());
    try {
      const root = render();
      assert.deepEqual(t.getChildren(), root);
      const rows = t.getChildren(root[2]);
      assert.ok(t.getChildren(root[2]).every((e, i) => e === rows[i]));
    } finally {
      t.dispose();
    }
  });

  it('words time far from expiry roughly, so renewals and ticks fire nothing; near expiry it counts live', () => {
    const entries = bigDeployment();
    const { t, render, read, tick } = setup(entries);
    try {
      const root = render();
      const orders = root[2];
      t.setExpanded(orders, true);
      const rows = render(orders);
      const row = rows.find((e) => 'key' in e && e.key === 'orders:007')!;
      assert.equal(t.getTreeItem(row).description, '> 5 min');
      assert.deepEqual(tick(), [], 'nothing on screen reads differently a second later');
      // Every lock renewed (TTL back up), one handed over to a new token: only that row is fired.
      const next = entries.filter((e) => e.key.startsWith('orders:') && e.verdict === 'held').map((e) => healthy(e.key, e.key === 'orders:009' ? 599_000 : 600_000, e.key === 'orders:009' ? 'v' : 't'));
      assert.deepEqual(read(next), [], 'a renewal or a new holder far from expiry reads the same: nothing fired');
      // Near expiry the row counts down live and its changes show.
      const near = read([healthy('orders:007', 8_000)]);
      assert.deepEqual(near.map(keysOf), [['orders:007']]);
      assert.match(String(t.getTreeItem(row).description), /^\d\.\d s$/);
      // A user selects a far row: it counts down live too.
      const far = rows.find((e) => 'key' in e && e.key === 'orders:011')!;
      t.setWatched([far], true);
      assert.match(String(t.getTreeItem(far).description), /^\d+ min \d+ s$/);
    } finally {
      t.dispose();
    }
  });

  it('never fires the rows of a closed folder, nor the root, for changes inside it', () => {
    const entries = bigDeployment();
    const { t, render, read, tick, openJobs } = setup(entries);
    try {
      // Opened once, then closed: VS Code keeps its rows, the tree no longer fires them.
      const { jobs, rows } = openJobs();
      t.setExpanded(jobs, false);
      const near = entries.filter((e) => e.key.startsWith('jobs:')).map((e) => healthy(e.key, 7_000));
      assert.deepEqual(read(near), [], 'near expiry, but nobody can see them');
      assert.deepEqual(tick(), []);
      // A key comes: the folder's count moves, so the folder row (only) is fired.
      const added = read([healthy('jobs:nightly:999', 7_000)]);
      assert.deepEqual(added.map(keysOf), [['[jobs:nightly:]']]);
      assert.equal(t.getTreeItem(jobs).description, '201 locks');
      // Opening it again refreshes it: it went stale while closed.
      let refreshed: El[] | undefined;
      t.onDidChangeTreeData((e) => (refreshed = Array.isArray(e) ? e : e ? [e] : undefined));
      t.setExpanded(jobs, true);
      assert.deepEqual(keysOf(refreshed), ['[jobs:nightly:]']);
      assert.equal(render(jobs).length, rows.length + 1);
      // Open, its rows near expiry count down and are fired; the root never is.
      const fired = tick().concat(read([healthy('jobs:nightly:001', 6_000)]));
      assert.ok(fired.every((f) => f !== undefined), 'no root refresh');
    } finally {
      t.dispose();
    }
  });

  it('refreshes the group, not the root, when a lock starts or stops needing attention', () => {
    const entries = bigDeployment();
    const { t, render, read } = setup(entries);
    try {
      const root = render();
      render(root[0]);
      const fired = read([split('orders:020')]);
      assert.ok(fired.every((f) => f !== undefined), 'no root refresh');
      const els = fired.flatMap((f) => f ?? []);
      assert.ok(els.includes(root[0]), 'the group gains a row');
      assert.ok(els.includes(root[2]), 'the folder\'s wording moves: 2 need attention');
      assert.deepEqual(keysOf(render(root[0])), ['orders:020', 'orders:150']);
      assert.equal(t.getTreeItem(root[2]).description, '300 locks · 2 need attention, worst: split');
      // The group empties: it goes from the root, the one case that refreshes the root.
      const back = read([healthy('orders:020'), healthy('orders:150')]);
      assert.deepEqual(back, [undefined]);
      assert.deepEqual(keysOf(render()), ['[jobs:nightly:]', '[orders:]', 'standalone']);
    } finally {
      t.dispose();
    }
  });

  it('a refresh that would re-render the row being read waits until its hold ends (tooltips that stay)', () => {
    const entries = bigDeployment();
    const { t, read, tick, openJobs } = setup(entries);
    try {
      const { root, jobs, rows } = openJobs();
      const row = rows[3] as TreeModule.LockElement;
      // The pointer rests on a row of the folder: VS Code resolves its tooltip.
      t.resolveTreeItem(t.getTreeItem(row), row);
      // Another of its locks splits: the folder's own words move ("1 needs attention"), but
      // refreshing it would re-render the row being read. The group gains the row at once.
      const fired = read([split('jobs:nightly:010')]).flatMap((f) => f ?? []);
      assert.ok(fired.includes(root[0]), 'the group shows the split at once');
      assert.ok(!fired.includes(jobs), 'the folder waits');
      assert.deepEqual(tick(), []);
      // The hold is over: the folder goes out with the next tick.
      row.hoveredAt -= tree.HOVER_HOLD_MS;
      assert.deepEqual(tick().map(keysOf), [['[jobs:nightly:]']]);
      assert.equal(t.getTreeItem(jobs).description, '200 locks · 1 needs attention: split');
      // Rows that come are shown at once, a tooltip open or not.
      t.resolveTreeItem(t.getTreeItem(row), row);
      assert.ok(read([healthy('jobs:nightly:999')]).flatMap((f) => f ?? []).includes(jobs), 'the folder with a new row');
    } finally {
      t.dispose();
    }
  });
});

describe('Locks tree at startup: the folders last seen (stand-in vscode)', () => {
  const standIn = useStandInVscode(['../../src/extension/views/locksTree']);
  let tree: typeof TreeModule;
  before(() => {
    [tree] = standIn.loaded as [typeof TreeModule];
  });

  const entries = (): LockEntry[] => [
    ...Array.from({ length: 20 }, (_, i) => lockEntry(`orders:${i}`, [present('a', 't', 600_000), present('b', 't', 600_000)], {}, { nowMs: Date.now() })),
    ...Array.from({ length: 10 }, (_, i) => lockEntry(`jobs:${i}`, [present('a', 't', 600_000), present('b', 't', 600_000)], {}, { nowMs: Date.now() })),
    lockEntry('orders:split', [present('a', 't', 600_000), present('b', 'u', 600_000)], {}, { nowMs: Date.now() }),
  ];

  /** One window: a model whose first read has not answered until `answer()`. */
  function windowOn(memory: unknown, patterns = ['*']) {
    const state: Array<() => void> = [];
    let snapshot: unknown;
    let error: string | undefined;
    const locks = entries();
    const model = {
      onDidChange: () => ({ dispose() {} }),
      onDidChangeState: (l: () => void) => (state.push(l), { dispose() {} }),
      get snapshot() {
        return snapshot;
      },
      get hasSnapshot() {
        return snapshot !== undefined;
      },
      get lockCount() {
        return snapshot === undefined ? 0 : locks.length;
      },
      get error() {
        return error;
      },
      settings: { expiringThresholdMs: 2000, keyPatterns: patterns, nodes: ['redis://127.0.0.1:1'], connection: undefined },
      truncated: false,
      entry: (k: string) => locks.find((e) => e.key === k),
      takenAtOf: () => Date.now(),
    };
    const t = new tree.LocksTreeProvider(model as never, { onDidChange: () => ({ dispose() {} }), has: () => false, all: () => [] } as never, memory as never);
    const fired: unknown[] = [];
    t.onDidChangeTreeData((e) => fired.push(e));
    return {
      t, fired,
      answer: () => {
        snapshot = { quorum: 2, nodes: [], locks: [...locks].sort((a, b) => (a.key < b.key ? -1 : 1)), skipped: [], truncated: false };
        t.setFilter('');
        for (const l of state) l();
      },
      fail: (why: string) => {
        error = why;
        for (const l of state) l();
      },
    };
  }

  function memento() {
    const values = new Map<string, unknown>();
    return { get: (k: string) => values.get(k), update: (k: string, v: unknown) => (values.set(k, v), Promise.resolve()) };
  }

  it('shows the last read folders, counts only and marked not live, until the first read answers', () => {
    const memory = memento();
    const first = windowOn(memory);
    assert.deepEqual(first.t.getChildren(), [], 'the very first start has nothing to show');
    first.answer();
    const live = first.t.getChildren();
    assert.ok(live.some((e) => e instanceof tree.AttentionGroupElement));
    first.t.dispose();

    const next = windowOn(memory);
    const rows = next.t.getChildren();
    assert.deepEqual(rows.map((e) => (e as { prefix?: string }).prefix), ['jobs:', 'orders:']);
    const items = rows.map((e) => next.t.getTreeItem(e));
    assert.deepEqual(items.map((i) => i.description?.toString().replace(/ at \d\d:\d\d/, '')), ['10 locks · not live, reading…', '21 locks · not live, reading…']);
    // No verdict from the past: no attention group, no worst-verdict wording or colour.
    assert.ok(!rows.some((e) => e instanceof tree.AttentionGroupElement));
    assert.ok(items.every((i) => !/attention|split/.test(String(i.description)) && (i.iconPath as { id: string }).id === 'history'));
    next.answer();
    assert.ok(next.fired.includes(undefined), 'the first read refreshes the root');
    const after = next.t.getChildren();
    assert.ok(after.some((e) => e instanceof tree.AttentionGroupElement));
    assert.ok(after.every((e) => !(e instanceof tree.LastSeenElement)));
    next.t.dispose();
  });

  it('shows nothing last seen for other patterns, nor once the read failed', () => {
    const memory = memento();
    const first = windowOn(memory);
    first.answer();
    first.t.getChildren();
    first.t.dispose();
    const other = windowOn(memory, ['jobs:*']);
    assert.deepEqual(other.t.getChildren(), []);
    other.t.dispose();
    const failing = windowOn(memory);
    assert.equal(failing.t.getChildren().length, 2);
    failing.fail('no node answered');
    assert.deepEqual(failing.t.getChildren(), []);
    failing.t.dispose();
  });
});
