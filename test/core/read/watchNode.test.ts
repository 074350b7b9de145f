// A watch tick reads a page by its chunks (watchNode.ts): what it keeps of a page whose
// checksum moved must list the keys there are now, whatever moved beside them.
import assert from 'node:assert/strict';
import type { WatchChange, Watcher } from '../../../src/core';
import { useNodes } from '../../support/nodesFixture';
import { withClient } from '../../../src/dev/redisServer';
import { waitFor } from '../../support/wait';

const summary = (changes: readonly WatchChange[]): { added: string[]; removed: string[]; changed: string[] } => ({
  added: changes.flatMap((ch) => ch.added.map((l) => l.key)),
  removed: changes.flatMap((ch) => ch.removed),
  changed: changes.flatMap((ch) => ch.changed.map((l) => l.key)),
});

describe('watch: a page read by its chunks', function () {
  const fx = useNodes(1, { commandTimeoutMs: 300, readTimeoutMs: 300 });

  /** A watch ticking only when asked, past its first snapshot and two quiet ticks: every page has a last listing. */
  async function quietWatch(changes: WatchChange[]): Promise<Watcher> {
    let snapshots = 0;
    const w = fx.rl.watch({ intervalMs: 3_600_000 }, { snapshot: () => snapshots++, change: (ch) => changes.push(ch) });
    await waitFor(() => snapshots === 1, 5000, 'first snapshot');
    // The second tick lists every chunk; the third has a last listing of every page.
    await w.refresh();
    await w.refresh();
    assert.deepEqual(changes, [], 'quiet ticks');
    return w;
  }

  /** The tick after a change emits nothing, and the watch still knows `locks` locks. */
  async function quietAgain(w: Watcher, changes: WatchChange[], locks: number): Promise<void> {
    changes.length = 0;
    await w.refresh();
    assert.deepEqual(changes, [], 'the tick after is quiet again');
    assert.equal(w.snapshot()!.locks.length, locks);
  }

  it('a key gone and another come in one tick, on a page of the same size: one removed, one added, nothing else', async () => {
    await withClient(fx.servers[0], async (c) => {
      const p = c.pipeline();
      for (let i = 0; i < 300; i++) p.set(`lock:chunked:${i}`, `token-${i}`, 'PX', 600_000);
      await p.exec();
    });
    const changes: WatchChange[] = [];
    const w = await quietWatch(changes);
    try {
      await withClient(fx.servers[0], async (c) => {
        await c.del('lock:chunked:17');
        await c.set('lock:chunked:new', 'token-new', 'PX', 600_000);
        await c.pexpire('lock:chunked:200', 900_000);
      });
      await w.refresh();
      assert.deepEqual(summary(changes), { added: ['lock:chunked:new'], removed: ['lock:chunked:17'], changed: ['lock:chunked:200'] });
      await quietAgain(w, changes, 300);
    } finally {
      await w.stop();
    }
  });

  it('binary key names: a key swapped for one that differs in a byte above 0x7f is one removed and one added, and its unchanged neighbours stay quiet', async () => {
    const name = (b: number, i: number): Buffer => Buffer.concat([Buffer.from('lock:'), Buffer.from([b, 0xfe]), Buffer.from(`:${i}`)]);
    await withClient(fx.servers[0], async (c) => {
      const p = c.pipeline();
      for (let i = 0; i < 200; i++) p.set(name(0xff, i), `token-${i}`, 'PX', 600_000);
      await p.exec();
    });
    const changes: WatchChange[] = [];
    const w = await quietWatch(changes);
    try {
      // Names that are not UTF-8 are shown by their bytes in hex (docs/formats.md).
      const shown = (b: number, i: number): string => w.snapshot()!.locks.find((l) => l.key.includes(name(b, i).toString('hex')))?.key ?? `no key ${b.toString(16)}:${i}`;
      const gone = shown(0xff, 42);
      await withClient(fx.servers[0], async (c) => {
        await c.del(name(0xff, 42));
        await c.set(name(0xfe, 42), 'token-42', 'PX', 600_000);
      });
      await w.refresh();
      const s = summary(changes);
      assert.deepEqual(s.removed, [gone]);
      assert.equal(s.added.length, 1);
      assert.equal(s.added[0], shown(0xfe, 42));
      assert.notEqual(s.added[0], gone);
      assert.deepEqual(s.changed, []);
      await quietAgain(w, changes, 200);
    } finally {
      await w.stop();
    }
  });
});
