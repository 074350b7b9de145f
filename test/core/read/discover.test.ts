// Discovery over independent nodes: a key held on several of them is one lock, counted
// once; the walk crosses its chunks (src/core/read/discover.ts) without losing or
// repeating a key, on nodes that run our scripts and on nodes read with plain commands.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type IORedis from 'ioredis';
import { Redlock } from '../../../src/core';
import { useNodes } from '../../support/nodesFixture';
import { PROFILES, startProfile } from '../../support/serverProfiles';

const token = (): string => randomBytes(16).toString('hex');

/** Locks `job:0` to `job:<count - 1>` on one node, each with its own token, 5,000 a pipeline. */
async function setJobs(client: IORedis, count: number): Promise<void> {
  for (let i = 0; i < count; i += 5_000) {
    const p = client.pipeline();
    for (let j = i; j < Math.min(count, i + 5_000); j++) p.set(`job:${j}`, token(), 'PX', 60_000);
    await p.exec();
  }
}

describe('discover', () => {
  const fx = useNodes(3, { commandTimeoutMs: 2_000, readTimeoutMs: 2_000 });

  it('counts a key held on several nodes once, and every key held on one node', async () => {
    const [a, b, c] = fx.servers.map((s) => s.client());
    try {
      // orders:1 on all three, orders:2 on two, orders:3 and orders:4 on one each.
      for (const [client, keys] of [[a, ['orders:1', 'orders:2', 'orders:3']], [b, ['orders:1', 'orders:2']], [c, ['orders:1', 'orders:4']]] as const) {
        for (const k of keys) await client.set(k, token(), 'PX', 60_000);
      }
      const d = await fx.rl.discover();
      assert.equal(d.complete, true);
      assert.equal(d.scanned, 7);
      assert.deepEqual(d.patterns.map((p) => [p.pattern, p.count]), [['orders:*', 4]]);
    } finally {
      for (const x of [a, b, c]) x.disconnect();
    }
  });

  it('walks a keyspace larger than one chunk without losing or repeating a key', async () => {
    const [a, b, c] = fx.servers.map((s) => s.client());
    try {
      // 45,000 locks on the first node (more than two chunks), the first 1,000 also on the others.
      const keys = 45_000;
      await setJobs(a, keys);
      for (const x of [b, c]) await setJobs(x, 1_000);
      const d = await fx.rl.discover({ budgetKeys: 1_000_000, timeBudgetMs: 60_000 });
      assert.equal(d.complete, true);
      assert.equal(d.scanned, keys + 2_000);
      assert.deepEqual(d.patterns.map((p) => [p.pattern, p.count]), [['job:*', keys]]);
    } finally {
      for (const x of [a, b, c]) x.disconnect();
    }
  });

  it('groups every key of a node read with plain commands (scripting renamed away), across chunks', async () => {
    const [node] = await startProfile(PROFILES.noscript, 1);
    const rl = new Redlock([node.url], { commandTimeoutMs: 2_000, readTimeoutMs: 2_000 });
    const c = node.client();
    try {
      // Plain pages are read by name, a call per page: more keys than one chunk holds.
      const keys = 25_000;
      await setJobs(c, keys);
      await c.set('cache:page', 'not a token');
      const d = await rl.discover({ budgetKeys: 1_000_000, timeBudgetMs: 60_000 });
      assert.equal(d.complete, true);
      assert.equal(d.nodes[0].readPath, 'commands');
      assert.equal(d.scanned, keys + 1);
      assert.deepEqual(d.patterns.map((p) => [p.pattern, p.count]), [['job:*', keys]]);
    } finally {
      c.disconnect();
      await rl.quit();
      await node.dispose();
    }
  });
});
