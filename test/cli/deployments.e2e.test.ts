// Cluster and Sentinel under faults, through the built CLI as an operator runs it: fresh
// processes, a paused seed, a paused master, a hung sentinel.
import assert from 'node:assert/strict';
import { seedOf, useCluster } from '../support/clusterFixture';
import { clusterOwner, RedisServer, startSentinels, withClient } from '../../src/dev/redisServer';
import { waitFor } from '../support/wait';
import { CliResult, runCli, startCli } from './runCli';

interface StatusDoc {
  quorum: number;
  nodes: Array<{ node: string; reachable: boolean; error: string | null }>;
  locks: Array<{ key: string; nodes: Array<{ node: string; token: string | null }> }>;
  skipped: Array<{ key: string; reason: string }>;
  truncated: boolean;
}

interface LockDoc {
  token: string | null;
  nodes: Array<{ node: string; outcome: string }>;
}

function json<T>(r: CliResult): T {
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    assert.fail(`stdout is not one JSON document: ${JSON.stringify(r.stdout)} (stderr ${JSON.stringify(r.stderr)})`);
  }
}

/** Runs `jobs` with at most `limit` at a time: the machine is shared. */
async function limited<T>(jobs: Array<() => Promise<T>>, limit: number): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < jobs.length) {
      const i = next++;
      out[i] = await jobs[i]();
    }
  }));
  return out;
}

/** A key `lock:{tag}:f` whose slot lives on the master listening on `port`. */
async function keyOn(seed: RedisServer, port: number, label: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const key = `lock:{${label}${i}}:f`;
    if ((await clusterOwner(seed, key)) === port) return key;
  }
  throw new Error(`no key found for port ${port}`);
}

async function clusterOk(masters: RedisServer[]): Promise<void> {
  for (const m of masters) {
    await waitFor(() => withClient(m, async (c) => String(await c.call('CLUSTER', 'INFO')).includes('cluster_state:ok')), 20_000, `cluster ok on ${m.port}`);
  }
}

describe('cli on a Redis Cluster under faults', function () {
  this.timeout(120_000);
  const fx = useCluster(['--cluster-require-full-coverage', 'no']);
  const id = seedOf;

  afterEach(async () => {
    for (const m of fx.masters) m.resume();
    await clusterOk(fx.masters);
  });

  it('50 fresh processes each of status, acquire and release fx.url succeed', async () => {
    const single = `redis+cluster://${id(fx.masters[0])}`;
    const statuses = await limited(Array.from({ length: 50 }, () => () => runCli(['status', '--json', '--node', single])), 4);
    for (const r of statuses) {
      assert.equal(r.code, 0, r.stderr);
      const doc = json<StatusDoc>(r);
      assert.deepEqual(doc.nodes.map((n) => n.node).sort(), fx.masters.map(id).sort());
      assert.ok(doc.nodes.every((n) => n.reachable), r.stdout);
    }
    const acquired = await limited(Array.from({ length: 50 }, (_, i) => () => runCli(['acquire', `lock:fresh:${i}`, '--ttl', '60000', '--json', '--node', single])), 4);
    const tokens = acquired.map((r, i) => {
      assert.equal(r.code, 0, `acquire ${i}: ${r.stderr}`);
      return json<LockDoc>(r).token!;
    });
    const released = await limited(tokens.map((t, i) => () => runCli(['release', `lock:fresh:${i}`, '--token', t, '--json', '--node', single])), 4);
    for (const [i, r] of released.entries()) {
      assert.equal(r.code, 0, `release ${i}: ${r.stderr}`);
      assert.equal(json<LockDoc>(r).nodes[0].outcome, 'released');
    }
  });

  it('acquire and release --json name the master that owns the key', async () => {
    const key = await keyOn(fx.masters[0], fx.masters[2].port, 'own');
    const a = await runCli(['acquire', key, '--ttl', '30000', '--json', '--node', fx.url]);
    assert.equal(a.code, 0, a.stderr);
    const doc = json<LockDoc>(a);
    assert.deepEqual(doc.nodes, [{ node: id(fx.masters[2]), outcome: 'granted' }]);
    const r = await runCli(['release', key, '--token', doc.token!, '--json', '--node', fx.url]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(json<LockDoc>(r).nodes, [{ node: id(fx.masters[2]), outcome: 'released' }]);
  });

  it('a paused first seed hides nothing: every master is listed, the silent one as unreachable, exit 3', async () => {
    const key = await keyOn(fx.masters[0], fx.masters[2].port, 'seed');
    const token = json<LockDoc>(await runCli(['acquire', key, '--ttl', '60000', '--json', '--node', fx.url])).token!;
    fx.masters[0].pause();
    // ioredis picks a seed at random: several runs meet the paused one first.
    for (let run = 0; run < 4; run++) {
      const r = await runCli(['status', '--json', '--node', `redis+cluster://${id(fx.masters[0])},${id(fx.masters[1])}`]);
      const doc = json<StatusDoc>(r);
      assert.deepEqual(doc.nodes.map((n) => n.node).sort(), fx.masters.map(id).sort(), r.stdout);
      const byId = new Map(doc.nodes.map((n) => [n.node, n]));
      assert.equal(byId.get(id(fx.masters[0]))!.reachable, false);
      assert.equal(byId.get(id(fx.masters[2]))!.reachable, true);
      assert.deepEqual(doc.locks.find((l) => l.key === key)?.nodes.map((n) => [n.node, n.token]), [[id(fx.masters[2]), token]]);
      assert.equal(r.code, 3, 'part of the keyspace was not read');
      assert.match(r.stderr, new RegExp(`part of the keyspace was not read: master ${id(fx.masters[0]).replace(/\./g, '\\.')} could not be read`));
    }
    fx.masters[0].resume();
    await runCli(['release', key, '--token', token, '--node', fx.url]);
  });

  it('a lock on a paused master is unknown, not absent: exit 3 for its key and its slot; other keys still exit 0', async () => {
    const paused = fx.masters[1];
    const key = await keyOn(fx.masters[0], paused.port, 'm');
    const elsewhere = await keyOn(fx.masters[0], fx.masters[2].port, 'e');
    const token = json<LockDoc>(await runCli(['acquire', key, '--ttl', '60000', '--json', '--node', fx.url])).token!;
    paused.pause();
    const exact = await runCli(['status', '--json', '--pattern', key, '--node', fx.url]);
    assert.equal(exact.code, 3, exact.stdout);
    const doc = json<StatusDoc>(exact);
    assert.deepEqual(doc.locks, []);
    assert.deepEqual(doc.skipped, [{ key, reason: 'unreachable' }]);
    assert.equal(doc.nodes.find((n) => n.node === id(paused))?.reachable, false);
    assert.match(exact.stderr, /part of the keyspace was not read/);

    // A glob fixed to the paused master's slot by its {tag}, and a glob over everything.
    const tagged = await runCli(['status', '--json', '--pattern', key.replace(/:f$/, ':*'), '--node', fx.url]);
    assert.equal(tagged.code, 3);
    const glob = await runCli(['status', '--json', '--pattern', 'lock:*', '--node', fx.url]);
    assert.equal(glob.code, 3);
    assert.equal(json<StatusDoc>(glob).nodes.length, 3);

    // A key whose master answered is fully known.
    const other = await runCli(['status', '--json', '--pattern', elsewhere, '--node', fx.url]);
    assert.equal(other.code, 0, other.stderr);
    assert.deepEqual(json<StatusDoc>(other).skipped, []);
    // watch says the same, and its exit code on Ctrl-C follows.
    const child = startCli(['watch', '--json', '--interval', '200', '--pattern', 'lock:*', '--node', fx.url]);
    child.stdin!.end();
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => (out += String(d)));
    child.stderr!.on('data', (d) => (err += String(d)));
    const exited = new Promise<number | null>((res) => child.once('close', (code) => res(code)));
    try {
      await waitFor(() => out.includes('\n') && err.includes('\n'), 20_000, 'first watch document');
    } finally {
      child.kill('SIGINT');
    }
    assert.equal(await exited, 3, err);
    assert.match(err, /part of the keyspace was not read/);
    paused.resume();
    const back = await runCli(['status', '--json', '--pattern', key, '--node', fx.url]);
    assert.equal(back.code, 0, back.stderr);
    assert.equal(json<StatusDoc>(back).locks[0].nodes[0].token, token);
    await runCli(['release', key, '--token', token, '--node', fx.url]);
  });
});

describe('cli through Sentinel with a hung sentinel', function () {
  this.timeout(60_000);
  let master: RedisServer;
  let sentinels: RedisServer[];
  before(async () => {
    master = await RedisServer.start();
    sentinels = await startSentinels(2, master);
  });
  after(async () => {
    for (const s of sentinels) s.resume();
    await Promise.all([master, ...sentinels].map((s) => s.dispose()));
  });

  it('a paused first sentinel falls through to the next one', async () => {
    sentinels[0].pause();
    try {
      const url = `redis+sentinel://${sentinels.map((s) => `127.0.0.1:${s.port}`).join(',')}/mymaster`;
      for (const cmd of [['status', '--json'], ['acquire', 'lock:sentinel:hung', '--ttl', '30000', '--json']]) {
        const r = await runCli([...cmd, '--node', url]);
        assert.equal(r.code, 0, r.stderr);
      }
      assert.ok(await withClient(master, (c) => c.get('lock:sentinel:hung')));
    } finally {
      sentinels[0].resume();
    }
  });
});
