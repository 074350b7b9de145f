// `status --stats` on real nodes: hold and wait times from recorded events, only when
// asked, added to each lock entry of the JSON document.
import assert from 'node:assert/strict';
import { Redlock, type LockStats } from '../../src/core';
import { RedisServer, startNodes } from '../../src/dev/redisServer';
import { runCli } from './runCli';

describe('status --stats (real nodes, built CLI)', function () {
  this.timeout(30_000);
  let servers: RedisServer[];
  let nodeArgs: string[];

  before(async () => {
    servers = await startNodes(3);
    nodeArgs = servers.flatMap((s) => ['--node', s.url]);
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.dispose()));
  });

  it('counts three holds, a fourth released to a waiter, and that waiter\'s wait; absent without --stats', async () => {
    const key = 'lock:stats:orders';
    const a = new Redlock(servers.map((s) => s.url), { events: true });
    const b = new Redlock(servers.map((s) => s.url), { events: true, retryDelayMs: 20, retryJitterMs: 5 });
    try {
      for (let i = 0; i < 3; i++) await a.release(await a.acquire(key, 5000));
      const held = await a.acquire(key, 5000);
      // The holder lets go as soon as the waiter has been refused once: a wait of one retry.
      let released: Promise<unknown> | undefined;
      await b.acquire(key, 30_000, { retryCount: 100, onAttempt: () => (released ??= a.release(held)) });
      await released;
    } finally {
      await Promise.all([a.quit(), b.quit()]);
    }

    const plain = await runCli(['status', '--json', '--pattern', key, ...nodeArgs]);
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal('stats' in JSON.parse(plain.stdout).locks[0], false);

    const r = await runCli(['status', '--json', '--stats', '--pattern', key, ...nodeArgs]);
    assert.equal(r.code, 0, r.stderr);
    const stats = JSON.parse(r.stdout).locks[0].stats as LockStats;
    assert.deepEqual(Object.keys(stats), ['windowMs', 'holdMs', 'waitMs', 'acquisitionsPerMin', 'failuresPerMin']);
    assert.equal(stats.windowMs, 3_600_000);
    assert.equal(stats.holdMs.count, 4);
    assert.ok(stats.holdMs.max! >= stats.holdMs.p50!);
    assert.equal(stats.waitMs.count, 1);
    assert.ok(stats.waitMs.max! >= 0 && stats.waitMs.max! < 30_000);
    assert.equal(stats.acquisitionsPerMin, Math.round((5 / 60) * 100) / 100);
    assert.equal(stats.failuresPerMin, 0);

    const human = await runCli(['status', '--stats', '--stats-window', '10m', '--pattern', key, ...nodeArgs]);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /Hold and wait times over the last 10 min 0 s \(recorded events\):\n {2}lock:stats:orders {2}hold p50 .* \(4\) · wait p50 .* \(1\) · 0\.5\/min acquired, 0\/min failed/);
  });
});
