// A refusal is an answer, on every path: an ACL user denied writes gets `refused` with the
// server's words (exit 1) from acquire, extend, release and force-release, never an
// outage (exit 3); a node that cannot serve for now (BUSY) is unreachable; a node that
// lost the script cache (NOSCRIPT) is served by the EVAL fallback.
import assert from 'node:assert/strict';
import { Redlock } from '../../../src/core';
import { classifyFailure, DeadlineError, nodeOutcome } from '../../../src/core/connection/replies';
import { runCli } from '../../cli/runCli';
import { RedisServer, startNodes, withClient } from '../../../src/dev/redisServer';
import { waitFor } from '../../support/wait';

interface Doc {
  nodes: Array<{ node: string; outcome: string; reason?: string }>;
}

describe('refusals are answers', function () {
  this.timeout(60_000);
  let servers: RedisServer[];
  let admin: string[];
  let viewer: string[];

  before(async () => {
    servers = await startNodes(3, { args: ['--lua-time-limit', '100'] });
    admin = servers.map((s) => s.url);
    viewer = servers.map((s) => `redis://viewer:view-pw-31@127.0.0.1:${s.port}`);
    for (const s of servers) {
      await withClient(s, (c) => c.call('ACL', 'SETUSER', 'viewer', 'on', '>view-pw-31', '~*', '&*', '+@all', '-@write', '-@dangerous', '+info'));
    }
  });
  after(async () => {
    for (const s of servers) s.resume();
    await Promise.all(servers.map((s) => s.dispose()));
  });
  afterEach(async () => {
    await Promise.all(servers.map((s) => withClient(s, (c) => c.flushall())));
  });

  const setAll = (key: string, token: string): Promise<unknown> => Promise.all(servers.map((s) => withClient(s, (c) => c.set(key, token, 'PX', 60_000))));
  const nodeArgs = (urls: string[]): string[] => urls.flatMap((u) => ['--node', u]);

  it('release and force-release by a user denied writes: every node refused, with the reason, exit 1, nothing deleted', async () => {
    await setAll('lock:acl', 'tok-1');
    const rel = await runCli(['release', 'lock:acl', '--token', 'tok-1', '--json', ...nodeArgs(viewer)]);
    assert.equal(rel.code, 1, rel.stderr);
    const doc = JSON.parse(rel.stdout) as Doc;
    assert.deepEqual(doc.nodes.map((n) => n.outcome), ['refused', 'refused', 'refused']);
    for (const n of doc.nodes) assert.match(n.reason ?? '', /can't run this command|NOPERM/);
    assert.match(rel.stderr, /refused by/);
    assert.doesNotMatch(rel.stderr, /fewer than|unreachable/);

    const f = await runCli(['force-release', 'lock:acl', '--yes', '--json', ...nodeArgs(viewer)]);
    assert.equal(f.code, 1, f.stderr);
    const fdoc = JSON.parse(f.stdout) as Doc;
    assert.deepEqual(fdoc.nodes.map((n) => n.outcome), ['refused', 'refused', 'refused']);
    for (const n of fdoc.nodes) assert.ok(n.reason, 'a refusal carries the reason');
    assert.doesNotMatch(rel.stdout + rel.stderr + f.stdout + f.stderr, /view-pw-31/);

    // acquire and extend: refused too (exit 1), with the server's words.
    const a = await runCli(['acquire', 'lock:acl2', '--ttl', '5000', '--json', ...nodeArgs(viewer)]);
    assert.equal(a.code, 1, a.stderr);
    assert.match(a.stderr, /NOPERM/);
    const e = await runCli(['extend', 'lock:acl', '--token', 'tok-1', '--ttl', '5000', ...nodeArgs(viewer)]);
    assert.equal(e.code, 1, e.stderr);
    assert.match(e.stderr, /can't run this command|NOPERM/);
    for (const s of servers) assert.equal(await withClient(s, (c) => c.get('lock:acl')), 'tok-1');

    // The core says the same.
    const rl = new Redlock(viewer, { commandTimeoutMs: 500 });
    try {
      const r = await rl.release(rl.lockFor('lock:acl', 'tok-1'));
      assert.deepEqual((await r.settled).map((n) => n.outcome), ['refused', 'refused', 'refused']);
      const fr = await rl.forceRelease('lock:acl', servers.map((s) => ({ node: `127.0.0.1:${s.port}`, token: 'tok-1' })));
      assert.deepEqual(fr.nodes.map((n) => n.outcome), ['refused', 'refused', 'refused']);
    } finally {
      await rl.quit();
    }
  });

  it('a BUSY node is unreachable, not a refusal; the others release', async () => {
    await setAll('lock:busy', 'tok-2');
    // A script that spins past lua-time-limit: the node answers BUSY to everyone else.
    const spinner = servers[0].client();
    const spinning = spinner.eval('local i = 0 while true do i = i + 1 end', 0).catch(() => undefined);
    // No ready check on this probe: ioredis' own INFO would be answered BUSY too.
    const probe = servers[0].client({ enableReadyCheck: false });
    const rl = new Redlock(admin, { commandTimeoutMs: 1000 });
    try {
      await waitFor(() => probe.ping().then(() => false, (e: Error) => /BUSY/.test(e.message)), 10_000, 'BUSY');
      const r = await rl.release(rl.lockFor('lock:busy', 'tok-2'));
      const final = await r.settled;
      assert.equal(final[0].outcome, 'unreachable', JSON.stringify(final[0]));
      assert.match(final[0].reason ?? '', /BUSY/);
      assert.deepEqual(final.slice(1).map((n) => n.outcome), ['released', 'released']);
    } finally {
      await probe.call('SCRIPT', 'KILL').catch(() => undefined);
      await spinning;
      probe.disconnect();
      spinner.disconnect();
      await rl.quit();
    }
  });

  it('NOSCRIPT after SCRIPT FLUSH: release and extend are resent, never a refusal; a grant fails that attempt and its retry succeeds', async () => {
    const rl = new Redlock(admin, { commandTimeoutMs: 1000 });
    try {
      // Each script once first, so the connections send their SHA, not their text, below.
      await rl.release(await rl.extend(await rl.acquire(['lock:warm-a', 'lock:warm-b'], 10_000), 10_000));
      const lock = await rl.acquire('lock:noscript', 10_000);
      await Promise.all(servers.map((s) => withClient(s, (c) => c.call('SCRIPT', 'FLUSH'))));
      const longer = await rl.extend(lock, 20_000);
      await Promise.all(servers.map((s) => withClient(s, (c) => c.call('SCRIPT', 'FLUSH'))));
      const r = await rl.release(longer);
      assert.deepEqual((await r.settled).map((n) => n.outcome), ['released', 'released', 'released']);
      // A grant is not resent behind later commands: that attempt fails, the retry sends the text.
      await Promise.all(servers.map((s) => withClient(s, (c) => c.call('SCRIPT', 'FLUSH'))));
      const first: string[] = [];
      const pair = await rl.acquire(['lock:noscript-a', 'lock:noscript-b'], 10_000, { retryCount: 1, onAttempt: (a) => first.push(...a.nodes.map((n) => n.reason ?? n.outcome)) });
      assert.equal(first.length, 3);
      for (const reason of first) assert.match(reason, /NOSCRIPT/);
      assert.ok((await rl.release(pair)).nodes.filter((n) => n.outcome === 'released').length >= 2);
    } finally {
      await rl.quit();
    }
  });

  it('a refused extend puts back the expiries it changed (PEXPIREAT, or PERSIST for none), nowhere else', async () => {
    // A leftover copy with a 3 s TTL on node 0 (another token on node 2), and a leftover
    // without TTL of another key on node 1: each extend fails its quorum.
    await withClient(servers[0], (c) => c.set('lock:left', 'tok-3', 'PX', 3000));
    await withClient(servers[2], (c) => c.set('lock:left', 'other', 'PX', 60_000));
    await withClient(servers[1], (c) => c.set('lock:left2', 'tok-3'));
    const before0 = Number(await withClient(servers[0], (c) => c.call('PEXPIRETIME', 'lock:left')));
    for (const key of ['lock:left', 'lock:left2']) {
      const e = await runCli(['extend', key, '--token', 'tok-3', '--ttl', '2000000000', ...nodeArgs(admin)]);
      assert.equal(e.code, 1, e.stderr);
    }
    assert.equal(Number(await withClient(servers[0], (c) => c.call('PEXPIRETIME', 'lock:left'))), before0, 'the old absolute expiry');
    assert.equal(await withClient(servers[1], (c) => c.pttl('lock:left2')), -1, 'no expiry, as before');
    const p2 = await withClient(servers[2], (c) => c.pttl('lock:left'));
    assert.ok(p2 > 0 && p2 <= 60_000, 'the other token untouched');

    // The guard: a copy whose expiry moved since (a real holder extended it) or whose token
    // changed is left alone.
    const rl = new Redlock(admin);
    try {
      const { lockCommands } = await import('../../../src/core/lock/writeScripts');
      const c0 = rl.nodes[0].client;
      await withClient(servers[0], (c) => c.set('lock:guard', 'tok-4', 'PX', 50_000));
      const at = Number(await withClient(servers[0], (c) => c.call('PEXPIRETIME', 'lock:guard')));
      assert.equal(await lockCommands(c0).rliRestoreExpiry(1, 'lock:guard', 'tok-4', '-1', String(at - 1)), 0, 'expiry moved: kept');
      assert.equal(await lockCommands(c0).rliRestoreExpiry(1, 'lock:guard', 'tok-x', '-1', String(at)), 0, 'token changed: kept');
      assert.equal(await withClient(servers[0], (c) => c.call('PEXPIRETIME', 'lock:guard')), at);
      assert.equal(await lockCommands(c0).rliRestoreExpiry(1, 'lock:guard', 'tok-4', '-1', String(at)), 1);
      assert.equal(await withClient(servers[0], (c) => c.pttl('lock:guard')), -1);
    } finally {
      await rl.quit();
    }
  });

  it('one classifier: replies, deadlines and connection failures', () => {
    const { ReplyError } = require('ioredis') as typeof import('ioredis');
    const reply = (m: string): Error => new ReplyError(m);
    assert.deepEqual(classifyFailure(reply("NOPERM this user has no permissions to run the 'set' command")).answered, true);
    assert.equal(classifyFailure(reply('READONLY You can\'t write against a read only replica.')).answered, true);
    assert.equal(classifyFailure(reply('MOVED 3999 127.0.0.1:6381')).answered, true);
    assert.equal(classifyFailure(reply('WRONGTYPE Operation against a key holding the wrong kind of value')).outcome, 'wrong-type');
    for (const m of ['BUSY Redis is busy running a script.', 'LOADING Redis is loading the dataset in memory', 'MASTERDOWN Link with MASTER is down', 'NOSCRIPT No matching script.']) {
      assert.equal(classifyFailure(reply(m)).answered, false, m);
    }
    assert.equal(classifyFailure(new DeadlineError(50)).outcome, 'timeout');
    assert.equal(classifyFailure(new Error('connect ECONNREFUSED 127.0.0.1:1')).answered, false);
    assert.equal(classifyFailure(reply('WRONGPASS invalid username-password pair')).outcome, 'auth');
  });

  it("a node status' outcome comes from the same reading", () => {
    const { ReplyError } = require('ioredis') as typeof import('ioredis');
    const outcome = (e: unknown): string => nodeOutcome(classifyFailure(e));
    assert.equal(outcome(new ReplyError('WRONGPASS invalid username-password pair')), 'auth');
    assert.equal(outcome(new ReplyError('NOAUTH Authentication required.')), 'auth');
    assert.equal(outcome(new ReplyError("NOPERM this user has no permissions to run the 'scan' command")), 'refused');
    assert.equal(outcome(new ReplyError('MOVED 3999 127.0.0.1:6381')), 'refused');
    assert.equal(outcome(new ReplyError('LOADING Redis is loading the dataset in memory')), 'unreachable');
    assert.equal(outcome(new Error('connect ECONNREFUSED 127.0.0.1:1')), 'unreachable');
    assert.equal(outcome(new DeadlineError(50)), 'timeout');
  });
});
