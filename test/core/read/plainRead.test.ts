// The read path without scripts (src/core/read/plainRead.ts): on a role that may not run
// EVAL or EVAL_RO and on a service with scripting renamed away, inspect() gives the
// document the script path gives over the same states, watch follows changes, history
// and doctor answer, and no command that writes is ever sent.
import assert from 'node:assert/strict';
import type IORedis from 'ioredis';
import { Redlock, Snapshot, WatchChange } from '../../../src/core';
import { RedisServer, startNodes, withClient } from '../../../src/dev/redisServer';
import { PROFILES, profileUrl, ServerProfile, startProfile } from '../../support/serverProfiles';
import { waitFor } from '../../support/wait';
import { commandCalls } from '../../support/commandCounts';
import { readObservationsPlain } from '../../../src/core/read/plainRead';
import { absentOn } from '../../../src/core/read/readScripts';

const REDISSON_FIELD = '8d3f4c2a-9b1e-4f6a-8c7d-000000000001:1';

/** The same states on every set of three nodes: split, partial, no TTL, TTL skew, Redisson, semaphore, too large, wrong type. */
async function seed(servers: RedisServer[]): Promise<void> {
  await Promise.all(servers.map((s, i) => withClient(s, async (c: IORedis) => {
    await c.set('lock:split', i === 0 ? 'tok-a' : i === 1 ? 'tok-b' : 'tok-c', 'PX', 60_000);
    if (i === 0) await c.set('lock:partial', 'tok-p', 'PX', 60_000);
    await c.set('lock:nottl', 'tok-n');
    await c.set('lock:skew', 'tok-s', 'PX', [60_000, 30_000, 5_000][i]);
    await c.hset('lock:redisson', REDISSON_FIELD, '1');
    await c.pexpire('lock:redisson', 60_000);
    await c.zadd('lock:sem', 1, 'permit-1', 2, 'permit-2');
    await c.pexpire('lock:sem', 60_000);
    await c.set('lock:big', 'x'.repeat(4096), 'PX', 60_000);
    await c.rpush('lock:list', 'a', 'b');
  })));
}

/** A document with node names out and times by kind: what both paths must agree on. */
function shape(doc: Snapshot): unknown {
  const ids = new Map(doc.nodes.map((n, i) => [n.node, `node${i}`]));
  const walk = (v: unknown, key = ''): unknown => {
    // The roles differ in CLIENT LIST, not in the verdict (docs/liveness.md).
    if (key === 'liveness') return (v as { verdict: string }).verdict;
    if (typeof v === 'string') return ids.get(v) ?? v;
    if (typeof v === 'number' && /Ms$|At$|^since$|^at$/.test(key)) return v < 0 ? v : 'time';
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    return v;
  };
  return { locks: walk(doc.locks), skipped: walk(doc.skipped), truncated: doc.truncated, nodes: doc.nodes.map((n) => [n.reachable, n.outcome]) };
}

/** Commands each server ran, by INFO commandstats: name -> calls. */
function commandCounts(servers: RedisServer[]): Promise<Array<Map<string, number>>> {
  return Promise.all(servers.map((s) => commandCalls(s)));
}

/** Commands run since `before` that the server flags as writes, or that run scripts. */
async function writesSince(servers: RedisServer[], before: Array<Map<string, number>>): Promise<string[]> {
  const after = await commandCounts(servers);
  const ran = new Set<string>();
  after.forEach((m, i) => m.forEach((n, name) => { if (n > (before[i].get(name) ?? 0)) ran.add(name.split('|')[0]); }));
  const writes: string[] = [];
  await withClient(servers[0], async (c: IORedis) => {
    for (const name of ran) {
      const [info] = (await c.call('COMMAND', 'INFO', name)) as Array<[string, number, string[]]>;
      if (/^(eval|fcall|function|script)/.test(name) || (info && info[2].includes('write'))) writes.push(name);
    }
  });
  return writes;
}

async function inspectWith(urls: string[]): Promise<Snapshot> {
  const rl = new Redlock(urls, { readTimeoutMs: 2000 });
  try {
    return await rl.inspect({ patterns: ['lock:*'] });
  } finally {
    await rl.quit();
  }
}

/** Reads as `p`'s client on `servers`: same document as `reference`, watch, history, doctor; nothing written. */
async function readsWithoutScripts(p: ServerProfile, servers: RedisServer[], reference: Snapshot): Promise<void> {
  const urls = servers.map((s) => profileUrl(s, p));
  const before = await commandCounts(servers);
  const doc = await inspectWith(urls);
  for (const n of doc.nodes) {
    assert.equal(n.outcome, 'ok', JSON.stringify(n));
    assert.equal(n.readPath, 'commands');
  }
  assert.deepEqual(shape(doc), shape(reference));
  assert.ok(reference.nodes.every((n) => n.readPath === 'scripts'));

  const rl = new Redlock(urls, { readTimeoutMs: 2000 });
  try {
    const h = await rl.history('lock:split');
    assert.ok(h.nodes.every((n) => n.outcome === 'ok'), JSON.stringify(h.nodes));
    const d = await rl.doctor({ patterns: ['lock:*'] });
    assert.ok(d.findings.some((f) => /plain commands/.test(f.message)), JSON.stringify(d.findings));
    assert.deepEqual(await writesSince(servers, before), [], 'a read path wrote');

    const changes: WatchChange[] = [];
    let first = false;
    const w = rl.watch({ intervalMs: 50, patterns: ['lock:*'] }, { snapshot: () => (first = true), change: (c) => changes.push(c) });
    try {
      await waitFor(() => first, 10_000, 'first snapshot');
      const on = (fn: (c: IORedis) => Promise<unknown>): Promise<unknown> => Promise.all(servers.map((s) => withClient(s, fn)));
      await on((c) => c.set('lock:new', 'tok-new', 'PX', 60_000));
      await waitFor(() => changes.some((c) => c.added.some((l) => l.key === 'lock:new')), 10_000, 'added');
      // A handover moves the expiry by the time the lock was held; 30 s here, so a loaded
      // machine's read errors (tens of ms) cannot hide it (docs/architecture.md, the watch).
      await on((c) => c.set('lock:new', 'tok-other', 'PX', 90_000));
      await waitFor(() => changes.some((c) => c.changed.some((l) => l.key === 'lock:new' && l.holders['tok-other'] === servers.length)), 10_000, 'changed');
      await on((c) => c.del('lock:new'));
      await waitFor(() => changes.some((c) => c.removed.includes('lock:new')), 10_000, 'removed');
    } finally {
      await w.stop();
    }
  } finally {
    await rl.quit();
  }
}

describe('plain-command reads (no scripts)', function () {
  this.timeout(60_000);
  const started: RedisServer[] = [];
  after(async () => {
    await Promise.all(started.map((s) => s.dispose()));
  });

  it('a read role without EVAL or EVAL_RO: the script path\'s document over the same states, with fences and waiters', async () => {
    const servers = await startProfile(PROFILES.scriptlessRole, 3);
    started.push(...servers);
    await seed(servers);
    // Our core's own bookkeeping, written by a client that may run scripts: a fence counter and a waiter.
    const writer = new Redlock(servers.map((s) => s.url), { holderName: 'seed-holder', retryDelayMs: 50 });
    const waiter = new Redlock(servers.map((s) => s.url), { holderName: 'seed-waiter', retryDelayMs: 50 });
    try {
      const fenced = await writer.acquire('lock:fenced', 60_000, { fencing: true });
      await fenced.settled;
      const waiting = waiter.acquire('lock:fenced', 60_000, { retryCount: 2000 });
      const reference = await waitFor(async () => {
        const d = await inspectWith(servers.map((s) => s.url));
        return d.locks.find((l) => l.key === 'lock:fenced')?.waiters?.length === 1 ? d : undefined;
      }, 10_000, 'the waiter listed');
      assert.ok(typeof reference.locks.find((l) => l.key === 'lock:fenced')!.fence === 'number');
      const doc = await inspectWith(servers.map((s) => profileUrl(s, PROFILES.scriptlessRole)));
      assert.deepEqual(shape(doc), shape(reference));
      await writer.release(fenced);
      await writer.release(await waiting);
    } finally {
      await writer.quit();
      await waiter.quit();
    }
    await readsWithoutScripts(PROFILES.scriptlessRole, servers, await inspectWith(servers.map((s) => s.url)));
  });

  it('a service with scripting renamed away: the same document as a server that runs scripts', async () => {
    const plain = await startProfile(PROFILES.noscript, 3);
    started.push(...plain);
    const scripted = await startNodes(3);
    started.push(...scripted);
    await Promise.all([seed(plain), seed(scripted)]);
    await readsWithoutScripts(PROFILES.noscript, plain, await inspectWith(scripted.map((s) => s.url)));
  });

  it('a copy retyped or re-set between its commands is read again, never misjudged', async () => {
    const [s] = await startNodes(1);
    started.push(s);
    const reader = s.client();
    const writer = s.client();
    try {
      await reader.set('lock:flip', 'tok-flip', 'PX', 60_000);
      for (let i = 0; i < 100; i++) {
        // One atomic retype per read, landing somewhere among its commands.
        const flip = i % 2 === 0
          ? writer.multi().del('lock:flip').hset('lock:flip', REDISSON_FIELD, '1').pexpire('lock:flip', 60_000).exec()
          : writer.multi().del('lock:flip').set('lock:flip', 'tok-flip', 'PX', 60_000).exec();
        const [read] = await Promise.all([readObservationsPlain(reader, [Buffer.from('lock:flip')], 'n', absentOn('n')), flip]);
        const o = read.observations[0];
        assert.equal(o.state, 'present', JSON.stringify(o));
        assert.ok(o.type === 'string' ? o.token === 'tok-flip' && o.format === 'string' : o.type === 'hash' && o.format === 'redisson-lock', JSON.stringify(o));
        assert.ok(o.pttlMs! > 0, JSON.stringify(o));
      }
    } finally {
      reader.disconnect();
      writer.disconnect();
    }
  });
});
