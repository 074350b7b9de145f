// The extension's costs that docs/decisions.md fixes, checked on the stand-in `vscode`
// (src/dev/fakeVscode.ts) with the real model and tree modules: the watch slows down
// while nobody looks, and a hovered row holds still (what the tree fires: locksTree.test.ts).
import assert from 'node:assert/strict';
import type { FakeVscode } from '../../../src/dev/fakeVscode';
import { useStandInVscode } from '../../support/standInVscode';
import type * as ModelModule from '../../../src/extension/model/lockModel';
import type * as TreeModule from '../../../src/extension/views/locksTree';
import type { LockEntry } from '../../../src/core/vocabulary/types';
import { lockEntry, present } from '../../support/entries';
import { needsAttention } from '../../../src/shared/lockOrder';

describe('extension costs (stand-in vscode)', () => {
  const standIn = useStandInVscode(['../../src/extension/model/lockModel', '../../src/extension/views/locksTree']);
  let fake: FakeVscode;
  let model: typeof ModelModule;
  let tree: typeof TreeModule;
  before(() => {
    fake = standIn.fake;
    [model, tree] = standIn.loaded as [typeof ModelModule, typeof TreeModule];
  });

  const log = { info() {}, debug() {}, warn() {}, error() {} };
  const passwords = { onDidChange: () => ({ dispose() {} }), get: () => Promise.resolve(undefined), passphrase: () => Promise.resolve(undefined), recheck: () => false };

  it('reads the settings once per configuration change, not once per row', async () => {
    const m = new model.LockModel(passwords as never, log as never);
    const workspace = fake.module.workspace as { getConfiguration: (...a: unknown[]) => unknown };
    const real = workspace.getConfiguration;
    let reads = 0;
    workspace.getConfiguration = (...a: unknown[]) => {
      reads++;
      return real(...a);
    };
    try {
      let sum = 0;
      for (let row = 0; row < 1000; row++) sum += m.settings.expiringThresholdMs;
      assert.equal(sum, 1000 * 2000);
      assert.equal(reads, 1);
      // A change is read at once, and once.
      await (real('redlock') as { update(k: string, v: unknown): Promise<void> }).update('expiringThresholdMs', 500);
      for (let row = 0; row < 1000; row++) assert.equal(m.settings.expiringThresholdMs, 500);
      assert.equal(reads, 2);
    } finally {
      workspace.getConfiguration = real;
      fake.settings.clear();
      await m.dispose();
    }
  });

  it('a status where several nodes refused for want of a password rechecks each of them, in one rebuild', async () => {
    const asked: string[] = [];
    const store = { ...passwords, recheck: (node: string) => (asked.push(node), true) };
    const m = new model.LockModel(store as never, log as never);
    try {
      const node = (id: string, outcome: 'auth' | 'ok') => ({ node: id, reachable: outcome === 'ok', latencyMs: null, error: outcome === 'auth' ? 'NOAUTH' : null, outcome });
      const before = m['passwordVersion'];
      m['applyStatus']({ quorum: 2, truncated: false, nodes: [node('a:1', 'auth'), node('b:2', 'ok'), node('c:3', 'auth')] });
      assert.deepEqual(asked, ['a:1', 'c:3']);
      assert.equal(m['passwordVersion'], before + 1);
    } finally {
      await m.dispose();
    }
  });

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

  it('reads a large watch less often: 1 s per 2,000 locks, at most 10 s apart while someone looks, 1 s per 100 locks (at most 5 min apart) while nobody does', async () => {
    const m = new model.LockModel(passwords as never, log as never);
    try {
      fake.settings.set('refreshIntervalMs', 1000);
      m.setVisible(true);
      const byKey = m['byKey'];
      const fill = (n: number): void => {
        byKey.clear();
        for (let i = 0; i < n; i++) byKey.set(`lock:${i}`, {} as LockEntry);
      };
      fill(100);
      assert.equal(m.pollIntervalMs, 1000, 'a small deployment keeps the setting');
      fill(model.LOCKS_PER_INTERVAL_SECOND * 5);
      assert.equal(m.pollIntervalMs, 5000);
      fill(model.LOCKS_PER_INTERVAL_SECOND * 5 + 1);
      assert.equal(m.pollIntervalMs, 6000);
      fill(100_000);
      assert.equal(m.pollIntervalMs, 10_000, 'never slower than nobody looking');
      fake.settings.set('refreshIntervalMs', 8000);
      fill(model.LOCKS_PER_INTERVAL_SECOND * 5);
      assert.equal(m.pollIntervalMs, 8000, 'a slower setting wins');
      // Nobody looking (never opened, or hidden): 1 s per 100 locks, at least 10 s and at most 5 min apart.
      m.setVisible(false);
      fake.settings.set('refreshIntervalMs', 1000);
      fill(100);
      assert.equal(m.pollIntervalMs, 10_000);
      fill(10_000);
      assert.equal(m.pollIntervalMs, 100_000, '10,000 locks nobody looks at: every 100 s');
      fill(100_000);
      assert.equal(m.pollIntervalMs, 300_000);
      fill(100);
      fake.settings.set('refreshIntervalMs', 8000);
      assert.equal(m.pollIntervalMs, 80_000, 'a slower setting still wins');
    } finally {
      fake.settings.clear();
      await m.dispose();
    }
  });

  it('keeps the count of locks that need attention through snapshots, changes and removals, as a recount gives it', async () => {
    const m = new model.LockModel(passwords as never, log as never);
    try {
      const nodes = ['a:1', 'b:2', 'c:3'];
      const held = (key: string): LockEntry => lockEntry(key, nodes.map((n) => present(n, 't1')));
      const split = (key: string): LockEntry => lockEntry(key, [present('a:1', 't1'), present('b:2', 't2'), present('c:3', 't3')]);
      const status = { quorum: 2, truncated: false, nodes: [] };
      const recount = (): number => m.snapshot!.locks.filter(needsAttention).length;
      assert.ok(needsAttention(split('x')) && !needsAttention(held('x')), 'the two builders stand on either side of the line');
      m['applySnapshot']({ ...status, locks: [held('a'), split('b'), split('c')], skipped: [] }, 0);
      assert.equal(m.attentionCount, 2);
      assert.equal(m.lockCount, 3);
      const steps: Array<{ added?: LockEntry[]; changed?: LockEntry[]; removed?: string[] }> = [
        { changed: [held('b')] },
        { changed: [split('a')], added: [split('d'), held('e')] },
        { removed: ['c', 'e', 'never-seen'] },
        { changed: [split('a')] },
        { added: [held('c')], removed: ['d'] },
      ];
      for (const [i, step] of steps.entries()) {
        m['applyChange']({ added: step.added ?? [], changed: step.changed ?? [], removed: step.removed ?? [] } as never, 0);
        assert.equal(m.attentionCount, recount(), `after step ${i}`);
        assert.equal(m.lockCount, m.snapshot!.locks.length, `after step ${i}`);
      }
      assert.equal(m.attentionCount, 1);
    } finally {
      await m.dispose();
    }
  });

  it('holds a hovered row still through countdown ticks and renewals, not through a change of what it says', () => {
    const now = Date.now();
    // Under 10 s left, where the tree counts every second (src/shared/countdown.ts).
    const entryOf = (key: string, at: number, tokenC = 't') => lockEntry(key, [present('a', 't', 9_000), present('b', 't', 9_000), present('c', tokenC, 9_000)], {}, { nowMs: at });
    const entries = new Map<string, LockEntry>(['lock:hovered', 'lock:other'].map((k) => [k, entryOf(k, now)]));
    let takenAt = now;
    const listeners: Array<(c: unknown) => void> = [];
    const fakeModel = {
      onDidChange: (l: (c: unknown) => void) => (listeners.push(l), { dispose() {} }),
      onDidChangeState: () => ({ dispose() {} }),
      get snapshot() {
        return { quorum: 2, nodes: [], locks: [...entries.values()], skipped: [], truncated: false };
      },
      settings: { expiringThresholdMs: 2000 },
      truncated: false,
      entry: (k: string) => entries.get(k),
      takenAtOf: () => takenAt,
    };
    const t = new tree.LocksTreeProvider(fakeModel as never, { onDidChange: () => ({ dispose() {} }), has: () => false, all: () => [] } as never);
    const realNow = Date.now;
    let clock = now;
    Date.now = () => clock;
    try {
      t.setFilter('');
      const rows = t.getChildren() as TreeModule.LockElement[];
      const hovered = rows.find((r) => r.key === 'lock:hovered')!;
      for (const r of rows) t.getTreeItem(r);
      const fired: string[][] = [];
      t.onDidChangeTreeData((e) => {
        const els = (e ?? []) as TreeModule.LockElement[];
        fired.push(els.map((r) => r.key));
        for (const r of els) t.getTreeItem(r);
      });
      const second = (n: number): string[] => {
        clock = now + n * 1000;
        fired.length = 0;
        t.tick();
        return fired.flat().sort();
      };
      // The watch reads both locks again: renewed (same tokens, TTL back up) or not.
      const read = (tokenC = 't'): string[] => {
        takenAt = clock;
        entries.set('lock:hovered', entryOf('lock:hovered', clock, tokenC));
        entries.set('lock:other', entryOf('lock:other', clock));
        fired.length = 0;
        for (const l of listeners) l({ added: [], changed: ['lock:hovered', 'lock:other'], removed: [], before: new Map() });
        return fired.flat().sort();
      };
      assert.deepEqual(second(1), ['lock:hovered', 'lock:other'], 'both rows count down');
      // The pointer rests on the row: VS Code resolves its tooltip.
      assert.ok(t.resolveTreeItem(t.getTreeItem(hovered), hovered).tooltip);
      assert.deepEqual(second(2), ['lock:other'], 'the hovered row holds still');
      assert.deepEqual(read(), ['lock:other'], 'a renewal does not re-render the hovered row');
      assert.deepEqual(second(3), ['lock:other']);
      assert.deepEqual(read(), ['lock:other']);
      // The other row counts on and a renewal puts it back up: each reads differently and is
      // shown; the hovered row, saying the same, holds still.
      assert.deepEqual(second(9), ['lock:other']);
      clock = now + 14_000;
      assert.deepEqual(read(), ['lock:other'], 'still held 13 s after the hover');
      // The hold ends: the row shows the time it has now.
      assert.deepEqual(second(1 + tree.HOVER_HOLD_MS / 1000 + 0.5), ['lock:hovered', 'lock:other']);
      // Hovered again, then one node answers with another token: what the row says changed
      // (held 3/3 becomes held 2/3), so it re-renders at once.
      const labelOf = (): string => (t.getTreeItem(hovered).label as { label: string }).label;
      const before = labelOf();
      t.resolveTreeItem(t.getTreeItem(hovered), hovered);
      assert.deepEqual(read('v'), ['lock:hovered', 'lock:other'], 'a new holder is shown at once');
      assert.notEqual(labelOf(), before);
    } finally {
      Date.now = realNow;
      t.dispose();
    }
  });
});
