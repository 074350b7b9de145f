// The extension's costs that docs/decisions.md fixes, checked on the stand-in `vscode`
// (src/dev/fakeVscode.ts) with the real model and tree modules: the watch slows down
// while nobody looks, and the countdown re-renders only the rows a user can be looking at.
import assert from 'node:assert/strict';
import { createFakeVscode, installFakeVscode, type FakeVscode } from '../../src/dev/fakeVscode';
import type * as ModelModule from '../../src/extension/lockModel';
import type * as TreeModule from '../../src/extension/locksTree';
import type { LockEntry } from '../../src/core/types';
import { lockEntry, present } from '../support/entries';

describe('extension costs (stand-in vscode)', () => {
  let fake: FakeVscode;
  let uninstall: () => void;
  let model: typeof ModelModule;
  let tree: typeof TreeModule;
  const modules = ['../../src/extension/lockModel', '../../src/extension/locksTree'];

  before(() => {
    fake = createFakeVscode();
    uninstall = installFakeVscode(fake);
    model = require(modules[0]) as typeof ModelModule;
    tree = require(modules[1]) as typeof TreeModule;
  });
  after(() => {
    uninstall();
    for (const m of modules) delete require.cache[require.resolve(m)];
  });

  const log = { info() {}, debug() {}, warn() {}, error() {} };
  const passwords = { onDidChange: () => ({ dispose() {} }), get: () => Promise.resolve(undefined), passphrase: () => Promise.resolve(undefined) };

  it('watches at the configured interval while someone looks, ten times slower (at least 10 s) otherwise', async () => {
    const m = new model.LockModel(passwords as never, log as never);
    try {
      fake.settings.set('refreshIntervalMs', 1000);
      assert.equal(m.pollIntervalMs, 10_000, 'nobody looking at activation');
      m.setVisible(true);
      assert.equal(m.pollIntervalMs, 1000);
      fake.settings.set('refreshIntervalMs', 5000);
      m.setVisible(false);
      assert.equal(m.pollIntervalMs, 50_000);
    } finally {
      fake.settings.clear();
      await m.dispose();
    }
  });

  it('counts down the top rows, open and selected rows every second, and the rest every 10 s', () => {
    const entries = new Map<string, LockEntry>();
    const now = Date.now();
    for (let i = 0; i < 500; i++) {
      const key = `lock:${String(i).padStart(3, '0')}`;
      // Longest TTL last, so the tree's order (soonest expiry first) is the key order.
      entries.set(key, lockEntry(key, [present('a', 't', 10_000 + i * 1000), present('b', 't', 10_000 + i * 1000), present('c', 't', 10_000 + i * 1000)], {}, { nowMs: now }));
    }
    const events = { on: () => ({ dispose() {} }) };
    const fakeModel = {
      onDidChange: events.on, onDidChangeState: events.on,
      snapshot: { quorum: 2, nodes: [], locks: [...entries.values()], skipped: [], truncated: false },
      settings: { expiringThresholdMs: 2000 },
      truncated: false,
      entry: (k: string) => entries.get(k),
      // Read 150 ms ago: the countdown has something to age every tick.
      takenAtOf: () => now - 150,
    };
    const mine = { onDidChange: events.on, has: () => false };
    const t = new tree.LocksTreeProvider(fakeModel as never, mine as never);
    try {
      t.setFilter('');
      const rows = t.getChildren() as TreeModule.LockElement[];
      assert.equal(rows.length, 500);
      // The first render reads the same frozen clock as the ticks: on the real one, the
      // milliseconds spent rendering 500 rows could put a row's first render and its first
      // tick in the same whole second.
      const fired: TreeModule.LockElement[][] = [];
      const realNow = Date.now;
      let clock = now;
      Date.now = () => clock;
      try {
        for (const r of rows) t.getTreeItem(r);
        t.setWatched([rows[400]], true);
        t.onDidChangeTreeData((e) => fired.push(e as TreeModule.LockElement[]));
        for (let second = 1; second <= tree.COUNTDOWN_FAR_EVERY; second++) {
          clock = now + second * 1000;
          t.tick();
          for (const r of fired.at(-1) ?? []) t.getTreeItem(r);
        }
      } finally {
        Date.now = realNow;
      }
      const perTick = fired.map((f) => new Set(f.map((e) => e.key)));
      // Seconds 1..9: the top rows and the open one; second 10: every row.
      for (const s of perTick.slice(0, -1)) {
        assert.equal(s.size, tree.COUNTDOWN_NEAR_ROWS + 1);
        assert.ok(s.has(rows[0].key) && s.has(rows[400].key) && !s.has(rows[300].key));
      }
      assert.equal(perTick.at(-1)!.size, 500);
      // No tooltip is built for a row until the pointer rests on it.
      assert.equal(t.getTreeItem(rows[0]).tooltip, undefined);
      assert.match(String((t.resolveTreeItem(t.getTreeItem(rows[0]), rows[0]).tooltip as { value: string }).value), /held 3\\\/3 · /);
    } finally {
      t.dispose();
    }
  });
});
