// Page call sizes on a busy node (src/core/read/pageSizer.ts): a cut page sets the next to
// about what the call managed, pages read whole grow back fast while well under that and
// slowly near it, and a node's next walk starts where its last one settled.
import assert from 'node:assert/strict';
import { Redlock } from '../../../src/core';
import { PageSizer, pageSizerOf } from '../../../src/core/read/pageSizer';
import { RedisServer } from '../../../src/dev/redisServer';
import { waitFor } from '../../support/wait';

/** Feeds `pages` pages read whole; gives the COUNT the sizer asks for after each. */
function grow(s: PageSizer, pages: number): number[] {
  const seen: number[] = [];
  for (let i = 0; i < pages; i++) seen.push(s.next(s.count, s.count));
  return seen;
}

describe('pageSizer', () => {
  it('starts at 1,000, and a cut never takes it below 64', () => {
    const s = new PageSizer();
    assert.equal(s.count, 1000);
    s.next(1000, 64);
    assert.equal(s.count, 64, 'never below 64');
    s.next(64, 1);
    assert.equal(s.count, 64);
  });

  it('a cut page makes the next nine tenths of what its call read, scaled to the page', () => {
    const s = new PageSizer();
    // 300 of 500 listed keys read under a COUNT of 1,000: the call manages 600 per 1,000.
    assert.equal(s.next(500, 300), 540);
  });

  it('after a cut, grows by a quarter while well under what the call managed, then by a twentieth', () => {
    const s = new PageSizer();
    s.next(1000, 400);
    assert.equal(s.count, 360);
    // 360 is already near the 400 the call managed: a twentieth per page, the ceiling
    // following whole pages above it.
    assert.deepEqual(grow(s, 4), [378, 397, 417, 438]);
    // A cut at 438 keys (read 384): the ceiling is 384, the next page 345.
    assert.equal(s.next(438, 384), 345);
    const deep = new PageSizer();
    deep.next(1000, 500);
    deep.next(450, 64);
    assert.equal(deep.count, 64);
    // One call that managed 64 after one that managed 500: the ceiling only falls to 400,
    // so whole pages grow back by a quarter up to nine tenths of it, then by a twentieth.
    assert.deepEqual(grow(deep, 9), [80, 100, 125, 157, 197, 247, 309, 325, 342]);
  });

  it('an empty page is a whole one', () => {
    const s = new PageSizer();
    s.next(1000, 500);
    assert.equal(s.next(0, 0), 473);
  });

  it('a node\'s next walk starts at the size its last one settled on', async function () {
    this.timeout(30_000);
    const server = await RedisServer.start();
    const rl = new Redlock([server.url]);
    try {
      const c = server.client();
      const p = c.pipeline();
      for (let i = 0; i < 3000; i++) p.set(`lock:page:${i}`, `t${i}`, 'PX', 60_000);
      await p.exec();
      c.disconnect();
      const sizer = pageSizerOf(rl.nodes[0]);
      // Cut by hand, as a busy node's call would be: the next walk's first page asks for 90.
      sizer.next(1000, 100);
      assert.equal(sizer.count, 90);
      const counts: string[] = [];
      const admin = server.client();
      const monitor = await admin.monitor();
      // The page calls (EVAL or EVALSHA, _RO or not): COUNT follows the pattern.
      monitor.on('monitor', (_t: string, args: string[]) => {
        if (/^eval/i.test(args[0]) && args.includes('lock:*')) counts.push(args[args.indexOf('lock:*') + 1]);
      });
      const snap = await rl.inspect({ patterns: ['lock:*'], maxKeys: 10_000 });
      // MONITOR speaks on its own connection: its first line may trail the read's last reply.
      const first = await waitFor(() => counts[0], 5_000, 'the first page call on MONITOR');
      monitor.disconnect();
      admin.disconnect();
      assert.equal(snap.locks.length, 3000);
      assert.equal(first, '90');
      // Whole pages grow it back: well over what the first page asked for by the end.
      assert.ok(sizer.count > 90, `settled at ${sizer.count}`);
    } finally {
      await rl.quit();
      await server.dispose();
    }
  });
});
