// Our locks and node-redlock's on the same key exclude each other, both ways.
import assert from 'node:assert/strict';
import Redis from 'ioredis';
import { Redlock, RedlockError } from '../../../src/core';
import { RedisServer, startNodes } from '../../../src/dev/redisServer';

const NodeRedlockV4 = require('redlock');
const NodeRedlockV5 = require('redlock5').default;

describe('interop with node-redlock (npm redlock)', () => {
  let servers: RedisServer[];
  let clients: Redis[];
  let ours: Redlock;

  before(async () => {
    servers = await startNodes(3);
    clients = servers.map((s) => s.client());
    ours = new Redlock(servers.map((s) => s.url), { commandTimeoutMs: 300 });
  });
  after(async () => {
    await ours.quit();
    clients.forEach((c) => c.disconnect());
    await Promise.all(servers.map((s) => s.dispose()));
  });

  it('v4: its lock refuses ours, and ours refuses its', async () => {
    const theirs = new NodeRedlockV4(clients, { retryCount: 0 });
    const held = await theirs.lock('lock:interop4', 10_000);
    const err = await ours.acquire('lock:interop4', 10_000).then(() => null, (e: unknown) => e);
    assert.ok(err instanceof RedlockError);
    assert.ok(err.nodes.every((n) => n.outcome === 'held-by-other' && n.heldBy === held.value));
    await held.unlock();

    const mine = await ours.acquire('lock:interop4', 10_000);
    await assert.rejects(theirs.lock('lock:interop4', 10_000));
    await ours.release(mine);
    const again = await theirs.lock('lock:interop4', 10_000);
    await again.unlock();
  });

  it('v5: its lock refuses ours, and ours refuses its', async () => {
    const theirs = new NodeRedlockV5(clients, { retryCount: 0 });
    const held = await theirs.acquire(['lock:interop5'], 10_000);
    // v5 resolves once a quorum granted; its last node may still be writing (its first
    // EVALSHA on a fresh node draws NOSCRIPT, then EVAL): wait until every node voted.
    await Promise.all(held.attempts);
    const err = await ours.acquire('lock:interop5', 10_000).then(() => null, (e: unknown) => e);
    assert.ok(err instanceof RedlockError);
    assert.ok(err.nodes.every((n) => n.outcome === 'held-by-other' && n.heldBy === held.value));
    await held.release();

    const mine = await ours.acquire('lock:interop5', 10_000);
    await assert.rejects(theirs.acquire(['lock:interop5'], 10_000));
    await ours.release(mine);
    const again = await theirs.acquire(['lock:interop5'], 10_000);
    await again.release();
  });
});
