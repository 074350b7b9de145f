import assert from 'node:assert/strict';
import { displayKey } from '../../src/core/vocabulary/tokens';
import type { Snapshot } from '../../src/core';
import { spawn, spawnSync } from 'node:child_process';
import { RedisServer, startNodes } from '../../src/dev/redisServer';
import { waitFor } from '../support/wait';
import { scanCalls } from '../support/commandCounts';
import { CLI, CliResult, runCli, startCli } from './runCli';

/** Exactly one line on stderr, no stack trace. */
function oneLine(r: CliResult): string {
  const lines = r.stderr.split('\n').filter((l) => l !== '');
  assert.equal(lines.length, 1, `expected one stderr line, got: ${JSON.stringify(r.stderr)}`);
  assert.doesNotMatch(r.stderr, /\n\s+at |Error:|node:internal/, 'no stack trace');
  assert.ok(lines[0].startsWith('redlock-inspector: '), lines[0]);
  return lines[0];
}

function json<T = Record<string, unknown>>(r: CliResult): T {
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    assert.fail(`stdout is not one JSON document: ${JSON.stringify(r.stdout)} (stderr ${JSON.stringify(r.stderr)})`);
  }
}

interface LockDoc {
  resources: string[];
  token: string | null;
  validityMs: number | null;
  nodes: Array<{ node: string; outcome: string }>;
}

async function each<T>(servers: RedisServer[], fn: (c: import('ioredis').default, i: number) => Promise<T>): Promise<T[]> {
  return Promise.all(servers.map(async (s, i) => {
    const c = s.client();
    try {
      return await fn(c, i);
    } finally {
      c.disconnect();
    }
  }));
}

const getAll = (servers: RedisServer[], key: string | Buffer): Promise<Array<Buffer | null>> => each(servers, (c) => c.getBuffer(key));
const str = (vs: Array<Buffer | null>): Array<string | null> => vs.map((v) => (v === null ? null : v.toString()));

describe('cli end to end on 5 real nodes', function () {
  this.timeout(60_000);
  let servers: RedisServer[];
  let nodeArgs: string[];
  let ids: string[];

  before(async () => {
    servers = await startNodes(5);
    nodeArgs = servers.flatMap((s) => ['--node', s.url]);
    ids = servers.map((s) => `127.0.0.1:${s.port}`);
  });
  afterEach(async () => {
    for (const s of servers) {
      s.resume();
      if (!s.running) await s.restart();
    }
    await each(servers, (c) => c.flushall());
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.dispose()));
  });

  it('acquire -> extend -> release round trip with --json', async () => {
    const a = await runCli(['acquire', 'lock:rt', '--ttl', '10000', '--json', ...nodeArgs]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(a.stderr, '');
    const acq = json<LockDoc>(a);
    assert.deepEqual(Object.keys(acq), ['resources', 'token', 'validityMs', 'nodes']);
    assert.deepEqual(acq.resources, ['lock:rt']);
    assert.match(acq.token!, /^[0-9a-f]{32}\.[0-9a-z]+\.[A-Za-z0-9_-]+$/);
    assert.ok(acq.validityMs! > 9000 && acq.validityMs! <= 10_000);
    assert.deepEqual(acq.nodes, ids.map((node) => ({ node, outcome: 'granted' })));
    assert.deepEqual(str(await getAll(servers, 'lock:rt')), ids.map(() => acq.token));

    const e = await runCli(['extend', 'lock:rt', '--token', acq.token!, '--ttl', '60000', '--json', ...nodeArgs]);
    assert.equal(e.code, 0, e.stderr);
    const ext = json<LockDoc>(e);
    assert.equal(ext.token, acq.token);
    assert.ok(ext.validityMs! > 50_000);
    assert.deepEqual(ext.nodes.map((n) => n.outcome), ids.map(() => 'granted'));
    const pttls = await each(servers, (c) => c.pttl('lock:rt'));
    assert.ok(pttls.every((p) => p > 50_000), String(pttls));

    const r = await runCli(['release', 'lock:rt', '--token', acq.token!, '--json', ...nodeArgs]);
    assert.equal(r.code, 0, r.stderr);
    const rel = json<LockDoc>(r);
    assert.deepEqual(rel, { resources: ['lock:rt'], token: acq.token, validityMs: null, nodes: ids.map((node) => ({ node, outcome: 'released' })) });
    assert.deepEqual(str(await getAll(servers, 'lock:rt')), ids.map(() => null));
  });

  it('lists a lock it took outside the default key patterns through its event log, and records its own events in the history', async () => {
    const none = await runCli(['history', 'orders:42', ...nodeArgs]);
    assert.equal(none.code, 0, none.stderr);
    assert.equal(none.stdout.trim(), "No recorded events for orders:42. Events are recorded by this CLI's acquire, extend and release, and by applications that create new Redlock(nodes, { events: true }); history --watch observes any lock.");
    const a = await runCli(['acquire', 'orders:42', '--ttl', '30s', ...nodeArgs]);
    assert.equal(a.code, 0, a.stderr);
    const token = /^token (\S+)$/m.exec(a.stdout)![1];
    // No pattern of the user's: the default ones, plus our own locks through their event logs.
    const listed = JSON.parse((await runCli(['status', '--json', ...nodeArgs])).stdout) as Snapshot;
    assert.deepEqual(listed.locks.filter((l) => l.key === 'orders:42').map((l) => l.verdict), ['held']);
    // A user's own pattern is theirs: nothing is added to it.
    const own = JSON.parse((await runCli(['status', '--json', '--pattern', 'lock:*', ...nodeArgs])).stdout) as Snapshot;
    assert.ok(!own.locks.some((l) => l.key === 'orders:42'));
    assert.equal((await runCli(['extend', 'orders:42', '--token', token, '--ttl', '30s', ...nodeArgs])).code, 0);
    assert.equal((await runCli(['release', 'orders:42', '--token', token, ...nodeArgs])).code, 0);
    const h = await runCli(['history', 'orders:42', '--json', ...nodeArgs]);
    assert.equal(h.code, 0, h.stderr);
    const events = json<{ events: Array<{ type: string; token: string }> }>(h).events;
    assert.deepEqual(events.map((e) => [e.type, e.token]), [['released', token], ['extended', token], ['acquired', token]]);
  });

  it('human output: acquire prints the token; nodes may come from REDLOCK_NODES', async () => {
    const a = await runCli(['acquire', 'lock:h1', 'lock:h2', '--ttl', '5000'], { REDLOCK_NODES: servers.map((s) => s.url).join(',') });
    assert.equal(a.code, 0, a.stderr);
    const token = /^token (\S+)$/m.exec(a.stdout)?.[1];
    assert.ok(token && /^[0-9a-f]{32}\.[0-9a-z]+\.[A-Za-z0-9_-]+$/.test(token), a.stdout);
    assert.match(a.stdout, /acquired lock:h1, lock:h2: validity \d\.\d s, 5 of 5 nodes granted/);
    assert.deepEqual(str(await getAll(servers, 'lock:h2')), ids.map(() => token));
    assert.doesNotMatch(a.stdout, /\x1b/, 'no colour off a terminal');
  });

  it('acquire is refused (exit 1) while another token holds the lock; the holder is named', async () => {
    await each(servers, (c) => c.set('lock:held', 'other-token', 'PX', 60_000));
    const r = await runCli(['acquire', 'lock:held', '--ttl', '5000', '--json', ...nodeArgs]);
    assert.equal(r.code, 1);
    const line = oneLine(r);
    assert.match(line, /cannot acquire lock:held/);
    assert.match(line, /held by other-token/);
    const doc = json<LockDoc>(r);
    assert.deepEqual(doc, { resources: ['lock:held'], token: null, validityMs: null, nodes: ids.map((node) => ({ node, outcome: 'held-by-other' })) });
    assert.deepEqual(str(await getAll(servers, 'lock:held')), ids.map(() => 'other-token'));
    const retried = await runCli(['acquire', 'lock:held', '--ttl', '5000', '--retry', '2', ...nodeArgs]);
    assert.equal(retried.code, 1);
    assert.match(oneLine(retried), /after 3 attempts/);
  });

  it('release with the wrong token: exit 1, nothing deleted', async () => {
    await each(servers, (c) => c.set('lock:mine', 'right', 'PX', 60_000));
    const r = await runCli(['release', 'lock:mine', '--token', 'wrong', ...nodeArgs]);
    assert.equal(r.code, 1);
    assert.match(oneLine(r), /cannot release lock:mine with token wrong: none of the 5 nodes/);
    assert.deepEqual(str(await getAll(servers, 'lock:mine')), ids.map(() => 'right'));
    const x = await runCli(['extend', 'lock:mine', '--token', 'wrong', '--ttl', '1000', ...nodeArgs]);
    assert.equal(x.code, 1);
    assert.match(oneLine(x), /cannot extend lock:mine/);
    // The token given is the wrong one: said so, on every node, with who holds it.
    assert.equal(oneLine(x).match(/the token does not match \(held by right\)/g)?.length, 5, oneLine(x));
  });

  it('3 of 5 nodes stopped: acquire and release exit 3 naming the nodes; status exits 3 and still prints', async () => {
    await Promise.all([servers[0].stop(), servers[2].stop(), servers[4].stop()]);
    const a = await runCli(['acquire', 'lock:q', '--ttl', '5000', ...nodeArgs]);
    assert.equal(a.code, 3);
    const line = oneLine(a);
    assert.match(line, /only 2 of 5 nodes answered, 3 needed/);
    for (const i of [0, 2, 4]) assert.ok(line.includes(ids[i]), `${ids[i]} named in ${line}`);
    assert.deepEqual(str(await getAll([servers[1], servers[3]], 'lock:q')), [null, null], 'rolled back');

    const r = await runCli(['release', 'lock:q', '--token', 'abc', '--json', ...nodeArgs]);
    assert.equal(r.code, 3);
    assert.match(oneLine(r), /fewer than 3 of 5 nodes answered/);
    assert.deepEqual(json<LockDoc>(r).nodes.map((n) => n.outcome), ['unreachable', 'not-held', 'unreachable', 'not-held', 'unreachable']);

    const s = await runCli(['status', '--json', ...nodeArgs]);
    assert.equal(s.code, 3);
    const snap = json<{ nodes: Array<{ node: string; reachable: boolean }> }>(s);
    assert.deepEqual(snap.nodes.map((n) => n.reachable), [false, true, false, true, false]);
    assert.match(oneLine(s), /only 2 of 5 nodes answered/);

    const h = await runCli(['status', ...nodeArgs]);
    assert.equal(h.code, 3);
    assert.match(h.stdout, /Nodes: 2 of 5 reachable, quorum 3: NO QUORUM/);
  });

  it('2 of 5 nodes stopped: acquire still succeeds (exit 0)', async () => {
    await Promise.all([servers[3].stop(), servers[4].stop()]);
    const a = await runCli(['acquire', 'lock:q2', '--ttl', '5000', '--json', ...nodeArgs]);
    assert.equal(a.code, 0, a.stderr);
    assert.deepEqual(json<LockDoc>(a).nodes.map((n) => n.outcome), ['granted', 'granted', 'granted', 'refused', 'refused']);
    const s = await runCli(['status', '--json', ...nodeArgs]);
    assert.equal(s.code, 0, 'status exits 0 with a quorum of nodes answering');
  });

  it('bad TTLs exit 2 with one line and touch nothing', async () => {
    for (const ttl of ['0', '-1', 'abc', '2147483648', '1.5']) {
      const r = await runCli(['acquire', 'lock:ttl', '--ttl', ttl, ...nodeArgs]);
      assert.equal(r.code, 2, `--ttl ${ttl}`);
      assert.match(oneLine(r), /invalid --ttl/);
      assert.equal(r.stdout, '');
    }
    const e = await runCli(['extend', 'lock:ttl', '--token', 't', '--ttl', '0', ...nodeArgs]);
    assert.equal(e.code, 2);
    const empty = await runCli(['acquire', '', '--ttl', '100', ...nodeArgs]);
    assert.equal(empty.code, 2);
    assert.match(oneLine(empty), /empty resource/);
    assert.deepEqual(str(await getAll(servers, 'lock:ttl')), ids.map(() => null));
  });

  it('a bad URL exits 2 naming the scheme, never the password', async () => {
    const r = await runCli(['status', '--node', 'http://user:hunter2@127.0.0.1:1']);
    assert.equal(r.code, 2);
    const line = oneLine(r);
    assert.match(line, /unknown scheme "http:"/);
    assert.doesNotMatch(r.stdout + r.stderr, /hunter2/);
    const port = await runCli(['status', '--node', 'redis://:hunter2@127.0.0.1:99999']);
    assert.equal(port.code, 2);
    assert.match(oneLine(port), /invalid port/);
    assert.doesNotMatch(port.stderr, /hunter2/);
    const none = await runCli(['status']);
    assert.equal(none.code, 2);
    assert.match(oneLine(none), /no Redis node configured/);
  });

  it('an unreachable single node: one line naming it, exit 3', async () => {
    const dead = servers[0];
    await dead.stop();
    for (const args of [['acquire', 'lock:u', '--ttl', '1000'], ['status'], ['release', 'lock:u', '--token', 't'], ['force-release', 'lock:u', '--yes']]) {
      const r = await runCli([...args, '--node', dead.url]);
      assert.equal(r.code, 3, `${args[0]}: ${r.stderr}`);
      const line = oneLine(r);
      assert.ok(line.includes(ids[0]), line);
      assert.match(line, /ECONNREFUSED/);
    }
  });

  it('a wrong password is reported as such and never printed', async () => {
    const [secure] = await startNodes(1, { args: ['--requirepass', 'sesame-pw'] });
    try {
      const id = `127.0.0.1:${secure.port}`;
      const viaUrl = await runCli(['acquire', 'lock:pw', '--ttl', '1000', '--node', `redis://:wrong-secret@127.0.0.1:${secure.port}`]);
      assert.equal(viaUrl.code, 3);
      const line = oneLine(viaUrl);
      assert.ok(line.includes(id), line);
      assert.match(line, /auth|WRONGPASS|password/i);
      assert.doesNotMatch(viaUrl.stdout + viaUrl.stderr, /wrong-secret/);

      const viaEnv = await runCli(['status', '--json', '--node', secure.url], { REDLOCK_PASSWORD: 'env-secret-xyz' });
      assert.equal(viaEnv.code, 3);
      assert.match(oneLine(viaEnv), /WRONGPASS|NOAUTH|auth/i);
      assert.equal(json<{ nodes: Array<{ outcome: string }> }>(viaEnv).nodes[0].outcome, 'auth');
      assert.match(viaEnv.stderr, /check the password in the node URL or REDLOCK_PASSWORD/);
      assert.doesNotMatch(viaEnv.stdout + viaEnv.stderr, /env-secret-xyz/);

      const missing = await runCli(['release', 'lock:pw', '--token', 't', '--node', secure.url]);
      assert.equal(missing.code, 3);
      assert.match(oneLine(missing), /NOAUTH|auth/i);
      // The release's per-node failure says `auth`: the hint follows it, not the reply's words.
      assert.match(missing.stderr, /check the password in the node URL or REDLOCK_PASSWORD/);

      const ok = await runCli(['acquire', 'lock:pw', '--ttl', '5000', '--json', '--node', secure.url], { REDLOCK_PASSWORD: 'sesame-pw' });
      assert.equal(ok.code, 0, ok.stderr);
      assert.doesNotMatch(ok.stdout + ok.stderr, /sesame-pw/);
      const st = await runCli(['status', '--node', secure.url], { REDLOCK_PASSWORD: 'sesame-pw' });
      assert.equal(st.code, 0, st.stderr);
      assert.match(st.stdout, /lock:pw/);
      assert.doesNotMatch(st.stdout + st.stderr, /sesame-pw/);
    } finally {
      await secure.dispose();
    }
  });

  it('--read-only and REDLOCK_READ_ONLY refuse every write before connecting (exit 2, nothing written)', async () => {
    await each(servers, (c) => c.set('lock:ro', 'keep', 'PX', 60_000));
    const cmds = [
      ['acquire', 'lock:ro-new', '--ttl', '5000'],
      ['extend', 'lock:ro', '--token', 'keep', '--ttl', '999999'],
      ['release', 'lock:ro', '--token', 'keep'],
      ['force-release', 'lock:ro', '--yes'],
    ];
    for (const args of cmds) {
      for (const [extra, env] of [[['--read-only'], {}], [[], { REDLOCK_READ_ONLY: '1' }]] as Array<[string[], Record<string, string>]>) {
        const r = await runCli([...args, ...extra, '--json', ...nodeArgs], env);
        assert.equal(r.code, 2, `${args[0]} ${extra.join(' ')}`);
        assert.match(oneLine(r), /read-only/);
        assert.equal(r.stdout, '');
      }
    }
    // Refused before connecting: an unreachable node makes no difference.
    const fast = await runCli(['acquire', 'x', '--ttl', '5', '--read-only', '--node', 'redis://127.0.0.1:1']);
    assert.equal(fast.code, 2);
    assert.deepEqual(str(await getAll(servers, 'lock:ro')), ids.map(() => 'keep'));
    assert.deepEqual(str(await getAll(servers, 'lock:ro-new')), ids.map(() => null));
    const pttls = await each(servers, (c) => c.pttl('lock:ro'));
    assert.ok(pttls.every((p) => p <= 60_000 && p > 0), 'TTL not extended');
    // Reads still work in read-only mode.
    const s = await runCli(['status', '--json', '--read-only', ...nodeArgs]);
    assert.equal(s.code, 0, s.stderr);
  });

  it('force-release without --yes off a terminal: exit 2, nothing deleted', async () => {
    await each(servers, (c) => c.set('lock:fr', 'tok', 'PX', 60_000));
    const r = await runCli(['force-release', 'lock:fr', ...nodeArgs]);
    assert.equal(r.code, 2);
    assert.match(oneLine(r), /--yes/);
    assert.deepEqual(str(await getAll(servers, 'lock:fr')), ids.map(() => 'tok'));
  });

  it('force-release --yes deletes the observed copies only, and leaves an unreachable copy alone', async () => {
    // A split key: two tokens, one node without a copy, one paused node with a copy.
    await each(servers, (c, i) => (i === 2 ? Promise.resolve(null) : c.set('lock:fx', i < 2 ? 'tokA' : 'tokB', 'PX', 60_000)));
    await each(servers, (c) => c.set('lock:other', 'x', 'PX', 60_000));
    servers[4].pause();
    const r = await runCli(['force-release', 'lock:fx', '--yes', '--json', ...nodeArgs]);
    servers[4].resume();
    assert.equal(r.code, 0, r.stderr);
    const doc = json<{ resource: string; nodes: Array<{ node: string; outcome: string }> }>(r);
    assert.deepEqual(Object.keys(doc), ['resource', 'nodes']);
    assert.equal(doc.resource, 'lock:fx');
    assert.deepEqual(doc.nodes, [
      { node: ids[0], outcome: 'deleted' },
      { node: ids[1], outcome: 'deleted' },
      { node: ids[2], outcome: 'absent' },
      { node: ids[3], outcome: 'deleted' },
      { node: ids[4], outcome: 'unreachable' },
    ]);
    // The plan went to stderr (stdout stays one document) and names tokens.
    assert.match(r.stderr, /tokA/);
    assert.match(r.stderr, /tokB/);
    assert.deepEqual(str(await getAll(servers, 'lock:fx')), [null, null, null, null, 'tokB']);
    assert.deepEqual(str(await getAll(servers, 'lock:other')), ids.map(() => 'x'));
  });

  it('force-release of a key held nowhere: exit 0, every node absent, with or without --yes off a terminal', async () => {
    const r = await runCli(['force-release', 'lock:nothing', '--yes', '--json', ...nodeArgs]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(json(r), { resource: 'lock:nothing', nodes: ids.map((node) => ({ node, outcome: 'absent' })) });
    for (const yes of [['--yes'], []]) {
      const h = await runCli(['force-release', 'lock:nothing', ...yes, ...nodeArgs]);
      assert.equal(h.code, 0, h.stderr);
      assert.match(h.stdout, /Nothing to release/);
    }
  });

  it('force-release matches the exact key, glob characters included', async () => {
    await each(servers, (c) => c.set('lock:[a]*', 't1', 'PX', 60_000));
    await each(servers, (c) => c.set('lock:ab', 't2', 'PX', 60_000));
    const r = await runCli(['force-release', 'lock:[a]*', '--yes', '--json', ...nodeArgs]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(str(await getAll(servers, 'lock:[a]*')), ids.map(() => null));
    assert.deepEqual(str(await getAll(servers, 'lock:ab')), ids.map(() => 't2'));
  });

  it('hex: resources and tokens round trip', async () => {
    const key = Buffer.from([0x6c, 0x6f, 0x63, 0x6b, 0x3a, 0xff, 0x00]); // "lock:" + invalid UTF-8
    const keyArg = 'hex:' + key.toString('hex');
    const a = await runCli(['acquire', keyArg, '--ttl', '10000', '--json', ...nodeArgs]);
    assert.equal(a.code, 0, a.stderr);
    const acq = json<LockDoc>(a);
    assert.deepEqual(acq.resources, [keyArg]);
    assert.deepEqual(str(await getAll(servers, key)), ids.map(() => acq.token));
    const rel = await runCli(['release', keyArg, '--token', acq.token!, '--json', ...nodeArgs]);
    assert.equal(rel.code, 0, rel.stderr);
    assert.deepEqual(str(await getAll(servers, key)), ids.map(() => null));

    // A binary token written by another client shows as hex: and is accepted back.
    const token = Buffer.from([0x00, 0x01, 0xfe, 0x1b]);
    await each(servers, (c) => c.set('lock:bin', token, 'PX', 60_000));
    const s = await runCli(['status', '--json', '--pattern', 'lock:bin', ...nodeArgs]);
    assert.equal(s.code, 0, s.stderr);
    const snap = json<{ locks: Array<{ key: string; nodes: Array<{ token: string }> }> }>(s);
    assert.equal(snap.locks[0].nodes[0].token, 'hex:0001fe1b');
    const e = await runCli(['extend', 'lock:bin', '--token', 'hex:0001fe1b', '--ttl', '90000', '--json', ...nodeArgs]);
    assert.equal(e.code, 0, e.stderr);
    assert.equal(json<LockDoc>(e).token, 'hex:0001fe1b');
    const r = await runCli(['release', 'lock:bin', '--token', 'hex:0001fe1b', ...nodeArgs]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(str(await getAll(servers, 'lock:bin')), ids.map(() => null));
    // The same with force-release of a non-UTF-8 key.
    await each(servers, (c) => c.set(key, token, 'PX', 60_000));
    const f = await runCli(['force-release', keyArg, '--yes', '--json', ...nodeArgs]);
    assert.equal(f.code, 0, f.stderr);
    assert.deepEqual(json<{ nodes: Array<{ outcome: string }> }>(f).nodes.map((n) => n.outcome), ids.map(() => 'deleted'));
  });

  it('status --json prints exactly the snapshot document', async () => {
    const a = json<LockDoc>(await runCli(['acquire', 'lock:st', '--ttl', '30000', '--json', ...nodeArgs]));
    await each(servers, (c, i) => (i < 2 ? c.set('mutex:x', 'solo', 'PX', 30_000) : Promise.resolve(null)));
    await each(servers, (c) => c.rpush('lock:list', 'a'));
    const before = Date.now();
    const r = await runCli(['status', '--json', '--pattern', '*lock*', '--pattern', 'mutex:*', ...nodeArgs]);
    assert.equal(r.code, 0, r.stderr);
    const snap = json<{ quorum: number; nodes: Array<Record<string, unknown>>; locks: Array<Record<string, unknown> & { key: string; nodes: unknown[]; holders: Record<string, number> }>; skipped: Array<{ key: string; reason: string }>; truncated: boolean; at: number }>(r);
    // The snapshot's fields first, then the additions: the snapshot's time, node facts.
    assert.deepEqual(Object.keys(snap), ['quorum', 'nodes', 'locks', 'skipped', 'truncated', 'at']);
    assert.ok(Number.isInteger(snap.at) && snap.at >= before && snap.at <= Date.now(), String(snap.at));
    assert.equal(snap.quorum, 3);
    const factKeys = ['version', 'role', 'clockOffsetMs', 'uptimeS', 'persistence', 'restartRisk', 'libraries'];
    assert.deepEqual(snap.nodes.map((n) => Object.keys(n)), ids.map(() => ['node', 'reachable', 'latencyMs', 'error', 'outcome', ...factKeys, 'server', 'capabilities', 'readPath']));
    assert.ok(snap.nodes.every((n) => n.readPath === 'scripts'), JSON.stringify(snap.nodes));
    assert.deepEqual(snap.nodes.map((n) => n.node), ids);
    for (const n of snap.nodes) {
      assert.match(String(n.version), /^\d+\.\d+/);
      assert.equal(n.role, 'master');
      assert.equal(typeof n.clockOffsetMs, 'number');
      // Test nodes run with persistence off: the restart risk is then known either way.
      assert.equal(n.persistence, 'off');
      assert.equal(typeof n.uptimeS, 'number');
      assert.equal(typeof n.restartRisk, 'boolean');
      assert.ok(Array.isArray(n.libraries));
    }
    const st = snap.locks.find((l) => l.key === 'lock:st')!;
    assert.equal(st.verdict, 'held');
    assert.equal(st.holders[a.token!], 5);
    assert.equal(st.nodes.length, 5);
    // Its holder, the acquire process, has exited and closed its connections: gone, on two signals.
    const live = st.liveness as { verdict: string; evidence: Array<{ kind: string; says: string; pid?: number }>; suggestion: string };
    assert.equal(live.verdict, 'gone');
    assert.deepEqual(live.evidence.map((e) => e.kind), ['connection', 'process', 'renewal', 'history']);
    assert.equal(live.evidence[0].says, 'no connection on any of 5 nodes');
    assert.equal(live.evidence[1].says, `pid ${live.evidence[1].pid} on this host has exited`);
    assert.equal(live.evidence[2].says, 'no renewal seen (one read)');
    assert.equal(live.suggestion, 'safe to force-release (compare-and-delete on the token shown; connection and process agree)');
    const human = await runCli(['status', '--pattern', 'lock:st', ...nodeArgs]);
    assert.ok(human.stdout.includes(`    holder gone: no connection on any of 5 nodes; pid ${live.evidence[1].pid} on this host has exited; no renewal seen (one read); held `), human.stdout);
    assert.match(human.stdout, /^Locks: 1, 1 needs attention \(1 holder gone\)/m);
    const mx = snap.locks.find((l) => l.key === 'mutex:x')!;
    assert.equal(mx.verdict, 'partial');
    assert.equal(mx.liveness, undefined);
    assert.deepEqual(snap.skipped.find((s) => s.key === 'lock:list')?.reason, 'wrong-type');
    assert.equal(snap.truncated, false);
    assert.deepEqual(st.flags, []);
    const soon = json<typeof snap>(await runCli(['status', '--json', '--expiring-ms', '60000', ...nodeArgs]));
    assert.deepEqual(soon.locks.find((l) => l.key === 'lock:st')!.flags, ['expiring']);
    const only = json<typeof snap>(await runCli(['status', '--json', '--pattern', 'mutex:*', ...nodeArgs]));
    assert.deepEqual(only.locks.map((l) => l.key), ['mutex:x']);
  });

  it('status human output escapes hostile key names and tokens', async () => {
    const evil = 'lock:\x1b[31mred\x1b[0m\nFAKE LINE\u202egnp.exe\x07';
    await each(servers, (c) => c.set(evil, 'tok\u202e\x1b[2J', 'PX', 30_000));
    const r = await runCli(['status', ...nodeArgs]);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/);
    // A name with control or bidi characters is shown in its hex: form: unambiguous, and
    // it round-trips as an argument.
    assert.ok(r.stdout.includes(displayKey(Buffer.from(evil))), r.stdout);
    assert.ok(!r.stdout.split('\n').some((l) => l.startsWith('FAKE LINE')));
    assert.match(r.stdout, /held 5\/5/);
    assert.match(r.stdout, /Nodes: 5 of 5 reachable, quorum 3/);
    // The JSON document carries the exact key and stays inert too.
    const j = await runCli(['status', '--json', ...nodeArgs]);
    assert.doesNotMatch(j.stdout, /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/);
    assert.equal(json<{ locks: Array<{ key: string }> }>(j).locks[0].key, displayKey(Buffer.from(evil)));
  });

  it('watch --json: a full document first, then change lines; exits 0 on SIGINT', async () => {
    const child = startCli(['watch', '--json', '--interval', '150', ...nodeArgs]);
    child.stdin!.end();
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => (out += String(d)));
    child.stderr!.on('data', (d) => (err += String(d)));
    const exited = new Promise<number | null>((res) => child.once('close', (code) => res(code)));
    try {
      await waitFor(() => out.includes('\n'), 10_000, 'first document');
      const first = JSON.parse(out.split('\n')[0]) as { quorum: number; locks: unknown[] };
      assert.equal(first.quorum, 3);
      assert.deepEqual(first.locks, []);
      await each(servers, (c) => c.set('lock:w', 'wtok', 'PX', 30_000));
      await waitFor(() => out.split('\n').length > 2, 10_000, 'a change line');
      const change = JSON.parse(out.split('\n')[1]) as { at: string; added: Array<{ key: string }>; changed: unknown[]; removed: string[] };
      assert.deepEqual(Object.keys(change), ['at', 'added', 'changed', 'removed']);
      assert.ok(!Number.isNaN(Date.parse(change.at)));
      assert.deepEqual(change.added.map((l) => l.key), ['lock:w']);
      // A TTL counting down is not a change (three more ticks print nothing); a deletion is.
      const scans = await scanCalls(servers[0]);
      await waitFor(async () => (await scanCalls(servers[0])) >= scans + 3, 10_000, 'three more watch ticks');
      assert.equal(out.split('\n').filter(Boolean).length, 2, out);
      await each(servers, (c) => c.del('lock:w'));
      await waitFor(() => out.split('\n').filter(Boolean).length >= 3, 10_000, 'a removal line');
      assert.deepEqual((JSON.parse(out.split('\n')[2]) as { removed: string[] }).removed, ['lock:w']);
    } finally {
      child.kill('SIGINT');
    }
    assert.equal(await exited, 0, err);
    assert.equal(err, '');
  });

  it('watch (human): a table first, then what changed per node; a renewal is quiet', async () => {
    const child = startCli(['watch', '--interval', '150', ...nodeArgs]);
    child.stdin!.end();
    let out = '';
    child.stdout!.on('data', (d) => (out += String(d)));
    const exited = new Promise<number | null>((res) => child.once('close', (code) => res(code)));
    const changeLines = (): string[] => out.split('\n').filter((l) => / ~ /.test(l));
    try {
      await waitFor(() => out.includes('Nodes: 5 of 5 reachable'), 10_000, 'the first table');
      await each(servers, (c) => c.set('lock:hw', 'htok', 'PX', 30_000));
      // Each line is its own write: the legend may arrive in a later chunk than its line.
      await waitFor(() => /\d\d:\d\d:\d\d\.\d{3}  \+ lock:hw  held 5\/5/.test(out) && /\n\s+A = htok\n/.test(out), 10_000, 'an added line and its legend (A = htok)');
      // A renewal (same token, TTL back up) prints nothing. The marker lock is set after it,
      // so once the marker's line is out, the watch has read the renewal.
      await each(servers, (c) => c.pexpire('lock:hw', 60_000));
      await each(servers, (c) => c.set('lock:marker', 'm', 'PX', 30_000));
      await waitFor(() => /\+ lock:marker/.test(out), 10_000, 'the marker line');
      assert.deepEqual(changeLines(), []);
      await each([servers[0]], (c) => c.set('lock:hw', 'htok2', 'PX', 30_000, 'XX'));
      // The legend is written after its change line, so that line is whole once it is here.
      await waitFor(() => changeLines().length > 0 && /\n\s+B = htok2\n/.test(out), 10_000, 'a change line and its legend (B = htok2)');
      assert.match(changeLines()[0], /~ lock:hw split 4\+1\/5: verdict held 5\/5→split 4\+1\/5; 127\.0\.0\.1:\d+ token A→B$/);
      servers[4].pause();
      await waitFor(() => /node 127\.0\.0\.1:\d+ unreachable/.test(out), 10_000, 'a node line');
      assert.match(out, /~ lock:hw split 3\+1\/5: verdict split 4\+1\/5→split 3\+1\/5; flags \+degraded; 127\.0\.0\.1:\d+ copy A→\?/);
    } finally {
      servers[4].resume();
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0);
  });

  // A real terminal through util-linux `script`, which gives the CLI a pty as stdin.
  const hasScript = spawnSync('sh', ['-c', 'command -v script'], { encoding: 'utf8' }).stdout.trim() !== '';
  (hasScript ? it : it.skip)('force-release on a terminal asks first: "n" keeps the lock (exit 2), "y" deletes it', async () => {
    await each(servers, (c) => c.set('lock:tty', 'ttok', 'PX', 60_000));
    const onTerminal = (answer: string): Promise<{ code: number | null; out: string }> => new Promise((resolve) => {
      const cmd = [process.execPath, CLI, 'force-release', 'lock:tty', ...nodeArgs].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
      const child = spawn('script', ['-qec', cmd, '/dev/null'], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d) => {
        out += String(d);
        if (out.includes('[y/N]') && !child.stdin.writableEnded) child.stdin.end(answer + '\n');
      });
      child.once('close', (code) => resolve({ code, out }));
    });
    const no = await onTerminal('n');
    assert.equal(no.code, 2, no.out);
    assert.match(no.out, /127\.0\.0\.1:\d+\s+delete\s+token ttok/);
    assert.match(no.out, /cancelled; nothing deleted/);
    assert.deepEqual(str(await getAll(servers, 'lock:tty')), ids.map(() => 'ttok'));
    const yes = await onTerminal('y');
    assert.equal(yes.code, 0, yes.out);
    assert.match(yes.out, /deleted 5 copies of lock:tty/);
    assert.deepEqual(str(await getAll(servers, 'lock:tty')), ids.map(() => null));
  });

  it('status and watch work for a read-only ACL user and leave the dataset untouched', async () => {
    const [node] = await startNodes(1);
    try {
      const admin = node.client();
      await admin.call('ACL', 'SETUSER', 'viewer', 'on', '>viewer-pw', '~*', '&*', '+@all', '-@write', '-@dangerous', '+info');
      await admin.set('lock:acl', 'acl-token', 'PX', 60_000);
      await admin.rpush('lock:acl-list', 'x');
      await admin.config('RESETSTAT');
      const url = `redis://viewer:viewer-pw@127.0.0.1:${node.port}`;
      const j = await runCli(['status', '--json', '--node', url]);
      assert.equal(j.code, 0, j.stderr);
      assert.equal(json<{ locks: Array<{ key: string; verdict: string }> }>(j).locks[0].verdict, 'held');
      const h = await runCli(['status', '--node', url]);
      assert.equal(h.code, 0, h.stderr);
      assert.match(h.stdout, /lock:acl\s+held 1\/1/);
      assert.doesNotMatch(h.stdout + h.stderr + j.stdout + j.stderr, /viewer-pw/);
      const w = startCli(['watch', '--json', '--interval', '100', '--node', url]);
      w.stdin!.end();
      // SIGINT once the first document is out: before that, the signal handler may not be installed yet.
      let wOut = '';
      w.stdout!.on('data', (d) => (wOut += String(d)));
      await waitFor(() => wOut.includes('\n'), 10_000, 'the first watch document');
      const first = JSON.parse(wOut.split('\n')[0]) as { nodes: Array<{ version: unknown; persistence: unknown }> };
      // Facts this user may not read (CONFIG GET) show as unknown, never as a failure.
      assert.equal(typeof first.nodes[0].version, 'string');
      w.kill('SIGINT');
      assert.equal(await new Promise((r) => w.once('close', r)), 0);
      const stats = String(await admin.info('commandstats'));
      const called = [...stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)].filter((m) => Number(m[2]) > 0).map((m) => m[1]);
      const writes = called.filter((c) => /^(set|del|unlink|expire|pexpire|persist|rename|hset|hdel|zadd|zrem|rpush|lpush|flushall|flushdb|script\|load|script\|flush|function.*)$/.test(c));
      assert.deepEqual(writes, [], `write commands ran: ${called.join(', ')}`);
      assert.equal(await admin.dbsize(), 2);
      assert.equal(await admin.get('lock:acl'), 'acl-token');
      admin.disconnect();
    } finally {
      await node.dispose();
    }
  });

  it('the built binary on commander: durations, per-command help, suggestions, escaped errors, exit 2', async () => {
    const a = await runCli(['acquire', 'lock:dur', '--ttl', '2m', '--json', ...nodeArgs]);
    assert.equal(a.code, 0, a.stderr);
    const pttls = await each(servers, (c) => c.pttl('lock:dur'));
    assert.ok(pttls.every((p) => p > 60_000 && p <= 120_000), String(pttls));
    const e = await runCli(['extend', 'lock:dur', '--token', json<LockDoc>(a).token!, '--ttl', '10s', ...nodeArgs]);
    assert.equal(e.code, 0, e.stderr);
    assert.ok((await each(servers, (c) => c.pttl('lock:dur'))).every((p) => p > 0 && p <= 10_000));

    const help = await runCli(['acquire', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: redlock-inspector acquire /);
    assert.equal(help.stderr, '');

    const typo = await runCli(['stauts', ...nodeArgs]);
    assert.equal(typo.code, 2);
    assert.equal(oneLine(typo), "redlock-inspector: unknown command 'stauts' (did you mean status?)");

    const osc52 = '\x1b]52;c;aGVsbG8=\x07';
    for (const args of [['status', `--${osc52}`], [`${osc52}`], ['acquire', 'x', '--ttl', osc52]]) {
      const r = await runCli([...args, ...nodeArgs]);
      assert.equal(r.code, 2, JSON.stringify(args));
      assert.doesNotMatch(r.stdout + r.stderr, /[\x00-\x09\x0b-\x1f\x7f-\x9f]/, JSON.stringify(r.stderr));
      oneLine(r);
    }
    const version = await runCli(['--version']);
    assert.equal(version.code, 0);
    assert.match(version.stdout, /^\d+\.\d+\.\d+/);
  });
});
