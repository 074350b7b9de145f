// Notifications that respect attention, on the stand-in `vscode` (src/dev/fakeVscode.ts)
// with the real notifier: news of one refresh is one toast naming the count and the worst
// lock, and a kind toasts at most once per interval; every lock state is still logged.
import assert from 'node:assert/strict';
import { useStandInVscode } from '../../support/standInVscode';
import type * as NotifierModule from '../../../src/extension/views/notifier';
import type { LockEntry } from '../../../src/core/vocabulary/types';
import { lockEntry, present } from '../../support/entries';
import { waitFor } from '../../support/wait';

describe('notifications (stand-in vscode)', () => {
  const standIn = useStandInVscode(['../../src/extension/views/notifier']);
  const notifier = (): typeof NotifierModule => standIn.loaded[0] as typeof NotifierModule;

  const log = { info() {}, debug() {}, warn() {}, error() {} };
  const split = (key: string, tokens: string[]): LockEntry => lockEntry(key, tokens.map((t, i) => present(`n${i}`, t)));

  it('tells the splits of one refresh in one toast, and later ones once the interval is over', async () => {
    const entries = new Map<string, LockEntry>();
    const model = { onDidChange: () => ({ dispose() {} }), onDidChangeNodes: () => ({ dispose() {} }), entry: (k: string) => entries.get(k) };
    let remembered: string[] = [];
    const memory = { get: <T>(_k: string, d: T) => remembered as unknown as T ?? d, update: (_k: string, v: string[]) => { remembered = v; return Promise.resolve(); }, keys: () => [] };
    const intervalMs = 300;
    // When each split toast was shown, as the stand-in receives it: a poll sees it later.
    const toastAt: number[] = [];
    const messages = standIn.fake.messages;
    const push = messages.push.bind(messages);
    messages.push = (...m: string[]): number => {
      for (const x of m) if (x.includes('split')) toastAt.push(Date.now());
      return push(...m);
    };
    const n = new (notifier().Notifier)(model as never, log as never, memory as never, intervalMs);
    try {
      const first = ['orders:1', 'orders:2', 'orders:42'];
      for (const k of first) entries.set(k, split(k, k === 'orders:42' ? ['a', 'b', 'c'] : ['a', 'b', 'b']));
      n.review(first, ['split']);
      await waitFor(() => n.toasts.length === 1, 5000, 'the first toast');
      // The worst lock (most holders) is named, with the count.
      assert.deepEqual(n.toasts, ['3 locks split: orders:42, …']);
      assert.deepEqual(standIn.fake.messages.filter((m) => m.includes('split')), ['Redlock: 3 locks split: orders:42, …']);
      assert.deepEqual(n.sent, first.map((k) => `split: ${k}`));

      const later = ['jobs:7', 'jobs:8'];
      for (const k of later) entries.set(k, split(k, ['x', 'y', 'y']));
      n.review([later[0]], ['split']);
      n.review([later[1]], ['split']);
      await waitFor(() => n.toasts.length === 2, 5000, 'the second toast');
      assert.equal(toastAt.length, 2);
      assert.ok(toastAt[1] - toastAt[0] >= intervalMs - 20, `second toast ${toastAt[1] - toastAt[0]} ms after the first`);
      assert.deepEqual(n.toasts[1], '2 locks split: jobs:7, …');
      assert.equal(n.sent.length, 5);
      // A state already told is not news again.
      n.review([...first, ...later], ['split']);
      assert.equal(n.sent.length, 5);
    } finally {
      n.dispose();
    }
  });
});
