// Lasting history on real nodes: what a using() holder records, as the built CLI's
// `history` prints it; garbage and oversized logs read within their bounds.
import assert from 'node:assert/strict';
import Redis from 'ioredis';
import { Redlock, type LockEvent } from '../../../src/core';
import { READ_EVENTS } from '../../../src/core/bookkeeping/events';
import { runCli } from '../../cli/runCli';
import { RedisServer, startNodes } from '../../../src/dev/redisServer';
import { waitFor } from '../../support/wait';

describe('event history (real nodes, built CLI)', function () {
  this.timeout(30_000);
  let servers: RedisServer[];
  let clients: Redis[];
  let nodeArgs: string[];

  before(async () => {
    servers = await startNodes(3);
    clients = servers.map((s) => s.client());
    nodeArgs = servers.flatMap((s) => ['--node', s.url]);
  });
  after(async () => {
    clients.forEach((c) => c.disconnect());
    await Promise.all(servers.map((s) => s.dispose()));
  });

  const history = async (resource: string): Promise<{ code: number | null; doc: { resource: string; events: LockEvent[] }; stderr: string }> => {
    const r = await runCli(['history', resource, '--json', ...nodeArgs]);
    return { code: r.code, doc: JSON.parse(r.stdout) as { resource: string; events: LockEvent[] }, stderr: r.stderr };
  };

  it('shows acquired, extended, released, then lost after a using() lease was taken away', async () => {
    const redlock = new Redlock(servers.map((s) => s.url), { events: true, holderName: 'history-test' });
    const reader = new Redlock(servers.map((s) => s.url));
    try {
      await redlock.using('lock:hist', 400, async () => {
        await waitFor(async () => (await reader.history('lock:hist')).events.some((e) => e.type === 'extended'), 10_000, 'an extension');
      });
      const lost = await redlock
        .using('lock:hist', 400, async (signal) => {
          // The lease is taken away: every copy deleted behind the holder's back.
          await Promise.all(clients.map((c) => c.del('lock:hist')));
          await waitFor(() => signal.aborted, 10_000, 'the abort');
          throw new Error('the callback fails after losing its lease');
        })
        .then(() => null, (e: unknown) => e);
      assert.ok(lost instanceof Error);
    } finally {
      await redlock.quit();
      await reader.quit();
    }
    const { code, doc } = await history('lock:hist');
    assert.equal(code, 0);
    assert.equal(doc.resource, 'lock:hist');
    assert.deepEqual(Object.keys(doc), ['resource', 'events']);
    // Newest first, by the client's clock, one entry per event whatever the node count.
    const ats = doc.events.map((e) => e.at!);
    assert.deepEqual(ats, [...ats].sort((a, b) => b - a));
    const types = doc.events.map((e) => e.type).reverse();
    const firstExtended = types.indexOf('extended');
    assert.equal(types[0], 'acquired');
    assert.ok(firstExtended > 0);
    const released = types.indexOf('released');
    assert.ok(released > firstExtended);
    assert.equal(types[released + 1], 'acquired');
    assert.equal(types[types.length - 2], 'lost');
    // The release after the loss found no copy: recorded too, as the audit's evidence.
    assert.equal(types[types.length - 1], 'released');
    assert.equal(doc.events[0].held, false);
    assert.equal(types.filter((t) => t === 'released').length, 2, types.join());
    for (const e of doc.events) {
      assert.deepEqual(Object.keys(e).slice(0, 4), ['at', 'type', 'holder', 'token']);
      assert.equal(e.holder!.name, 'history-test');
      assert.equal(e.holder!.pid, process.pid);
    }
    const human = await runCli(['history', 'lock:hist', ...nodeArgs]);
    assert.match(human.stdout, /lost\s+history-test \(pid \d+ on [^)]+\)/);
  });

  it('records a failed acquire with its reason', async () => {
    const redlock = new Redlock(servers.map((s) => s.url), { events: true, holderName: 'loser' });
    await Promise.all(clients.map((c) => c.set('lock:failed', 'someone-else', 'PX', 30_000)));
    try {
      await assert.rejects(redlock.acquire('lock:failed', 1000));
    } finally {
      await redlock.quit();
    }
    const { doc } = await history('lock:failed');
    assert.equal(doc.events.length, 1);
    assert.equal(doc.events[0].type, 'failed');
    assert.equal(doc.events[0].holder!.name, 'loser');
    assert.match(doc.events[0].reason!, /held by/);
  });

  it('shows garbage entries as unreadable and reads an oversized log within its bound', async () => {
    const key = '__rli:events:{lock:junk}';
    await clients[0].lpush(key, 'not json', '{"at":"soon","type":"acquired","token":"x"}', '{"at":1,"type":"exploded","token":"x"}', 'x'.repeat(10_000));
    await clients[1].set(key, 'a string, not a list');
    let r = await history('lock:junk');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.doc.events.length, 4);
    assert.ok(r.doc.events.every((e) => e.type === 'unreadable' && e.at === null && e.token === null));
    assert.ok(r.doc.events.some((e) => e.reason === 'too-large'));

    const big = '__rli:events:{lock:big}';
    const entries = Array.from({ length: 5000 }, (_, i) => JSON.stringify({ at: 1_700_000_000_000 + i, type: 'extended', token: `t${i}` }));
    for (let i = 0; i < entries.length; i += 1000) await clients[2].rpush(big, ...entries.slice(i, i + 1000));
    r = await history('lock:big');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.doc.events.length, READ_EVENTS);
    await Promise.all(clients.map((c) => c.del(key, big)));
  });

  it('exits 3 with what it has when fewer than a quorum of nodes answer', async () => {
    const redlock = new Redlock(servers.map((s) => s.url), { events: true });
    const lock = await redlock.acquire('lock:partialhist', 10_000);
    await redlock.release(lock);
    await redlock.quit();
    const dead = ['--node', 'redis://127.0.0.1:1', '--node', 'redis://127.0.0.1:2'];
    const r = await runCli(['history', 'lock:partialhist', '--json', '--node', servers[0].url, ...dead]);
    assert.equal(r.code, 3, r.stderr);
    const doc = JSON.parse(r.stdout) as { events: LockEvent[] };
    assert.deepEqual(doc.events.map((e) => e.type), ['released', 'acquired']);
    assert.match(r.stderr, /only 1 of 3 nodes answered/);
  });
});
