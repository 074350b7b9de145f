// The deployment doctor on real redis-server processes configured each way: every
// finding shows up on the node configured to cause it, and not on a clean node.
import assert from 'node:assert/strict';
import type { Cluster } from 'ioredis';
import { DeploymentFacts, diagnose, DiagnoseInput, DoctorReport, Finding, FindingCode, Redlock } from '../../../src/core';
import { clusterMembers } from '../../../src/core/connection/clusterMembers';
import { RedisServer, startCluster, withClient } from '../../../src/dev/redisServer';
import { waitFor } from '../../support/wait';
import { PROFILES, profileUrl, startProfile } from '../../support/serverProfiles';

/** A node configured safely for Redlock: AOF fsynced on every write, never evicting. */
const SAFE = ['--appendonly', 'yes', '--appendfsync', 'always'];

function find(report: DoctorReport, code: FindingCode, node?: string | null): Finding[] {
  return report.findings.filter((f) => f.code === code && (node === undefined || f.node === node));
}

function idOf(s: RedisServer): string {
  return `127.0.0.1:${s.port}`;
}

async function doctor(urls: string[], options: { patterns?: string[] } = {}): Promise<DoctorReport> {
  const rl = new Redlock(urls, { readTimeoutMs: 2000 });
  try {
    return await rl.doctor(options);
  } finally {
    await rl.quit();
  }
}

async function digest(s: RedisServer): Promise<string> {
  return withClient(s, async (c) => `${String(await c.call('DEBUG', 'DIGEST'))} ${await c.dbsize()}`);
}

describe('deployment doctor on real nodes', function () {
  this.timeout(60_000);
  let clean: RedisServer[];
  const extra: RedisServer[] = [];

  async function start(args: string[] = []): Promise<RedisServer> {
    const s = await RedisServer.start({ args });
    extra.push(s);
    return s;
  }

  before(async () => {
    clean = await Promise.all([0, 1, 2].map(() => RedisServer.start({ args: SAFE })));
  });
  afterEach(async () => {
    await Promise.all(extra.splice(0).map((s) => s.dispose()));
    await Promise.all(clean.map((s) => withClient(s, (c) => c.flushall())));
  });
  after(async () => {
    await Promise.all(clean.map((s) => s.dispose()));
  });

  it('a clean set of three safe masters has no error or warning', async () => {
    const report = await doctor(clean.map((s) => s.url));
    assert.deepEqual(report.findings.filter((f) => f.severity !== 'info'), []);
    assert.equal(report.answered, 3);
    assert.equal(report.quorum, 3 - 1);
    // The one info: fsync always is the safe persistence, said per node.
    assert.deepEqual(report.findings.map((f) => f.code), ['persistence', 'persistence', 'persistence']);
    for (const code of ['same-server', 'replica', 'not-independent', 'has-replicas', 'eviction', 'restart-risk', 'unknown', 'permissions', 'quorum-size', 'unreachable'] as const) {
      assert.deepEqual(find(report, code), [], code);
    }
  });

  it('replica: a configured node that replicates from a master outside the set', async () => {
    const master = await start(SAFE);
    const replica = await start([...SAFE, '--replicaof', '127.0.0.1', String(master.port)]);
    const report = await doctor([clean[0].url, clean[1].url, replica.url]);
    const [f] = find(report, 'replica', idOf(replica));
    assert.equal(f?.severity, 'error');
    assert.match(f.message, new RegExp(`replica of 127\\.0\\.0\\.1:${master.port}`));
    assert.ok(f.fix.length > 0);
    // Only one entry of that replication group is configured: nothing shares a vote.
    assert.deepEqual(find(report, 'not-independent'), []);
    assert.deepEqual(find(report, 'replica', idOf(clean[0])), []);
  });

  it('not-independent: two configured masters where one replicates the other', async () => {
    const master = await start(SAFE);
    const replica = await start([...SAFE, '--replicaof', '127.0.0.1', String(master.port)]);
    await withClient(replica, (c) => waitFor(async () => /master_link_status:up/.test(await c.info('replication')), 10_000, 'replica in sync'));
    const report = await doctor([clean[0].url, master.url, replica.url]);
    const [f] = find(report, 'not-independent');
    assert.equal(f?.severity, 'error');
    assert.equal(f.node, idOf(replica));
    assert.match(f.message, new RegExp(`${idOf(master)}.*${idOf(replica)}`));
    assert.equal(find(report, 'replica', idOf(replica))[0]?.severity, 'error');
    // The master has a replica: a failover could promote it.
    const [h] = find(report, 'has-replicas', idOf(master));
    assert.equal(h?.severity, 'warning');
    assert.match(h.message, /asynchronous/);
    assert.deepEqual(find(report, 'has-replicas', idOf(clean[0])), []);
  });

  it('eviction: allkeys-lru with maxmemory is an error, volatile-lru a warning, noeviction nothing', async () => {
    const lru = await start([...SAFE, '--maxmemory', '64mb', '--maxmemory-policy', 'allkeys-lru']);
    const volatile = await start([...SAFE, '--maxmemory', '64mb', '--maxmemory-policy', 'volatile-lru']);
    const report = await doctor([clean[0].url, lru.url, volatile.url]);
    const [e] = find(report, 'eviction', idOf(lru));
    assert.equal(e?.severity, 'error');
    assert.match(e.message, /allkeys-lru with maxmemory 64\.0 MiB/);
    assert.match(e.fix, /noeviction/);
    assert.equal(find(report, 'eviction', idOf(volatile))[0]?.severity, 'warning');
    assert.deepEqual(find(report, 'eviction', idOf(clean[0])), []);
  });

  it('persistence: AOF everysec is a warning, AOF always an info', async () => {
    const everysec = await start(['--appendonly', 'yes', '--appendfsync', 'everysec']);
    const report = await doctor([clean[0].url, everysec.url, clean[1].url]);
    const [w] = find(report, 'persistence', idOf(everysec));
    assert.equal(w?.severity, 'warning');
    assert.match(w.message, /everysec.*about the last second/);
    const [ok] = find(report, 'persistence', idOf(clean[0]));
    assert.equal(ok?.severity, 'info');
    assert.match(ok.message, /always/);
  });

  it("save '' on a fresh start: no persistence, and a restart risk while a longer lock lives", async () => {
    const bare = await start(); // the harness default: --save '' --appendonly no
    const urls = [clean[0].url, clean[1].url, bare.url];
    const before = await doctor(urls);
    assert.equal(find(before, 'persistence', idOf(bare))[0]?.severity, 'warning');
    assert.match(find(before, 'persistence', idOf(bare))[0].message, /no persistence/);
    // No lock lives yet: nothing for a restart to forget.
    assert.deepEqual(find(before, 'restart-risk'), []);

    const rl = new Redlock(urls);
    try {
      await rl.acquire('lock:doctor', 120_000);
    } finally {
      await rl.quit();
    }
    const after = await doctor(urls);
    const [r] = find(after, 'restart-risk', idOf(bare));
    assert.equal(r?.severity, 'error');
    assert.match(r.message, /started \d+ s ago/);
    // The clean nodes started as recently, but remember their grants.
    assert.deepEqual(find(after, 'restart-risk', idOf(clean[0])), []);
  });

  // Uptime and persistence come from INFO, and the locks are read with plain commands
  // where no script runs: a live lock longer than the uptime is the risk, as anywhere.
  it('restart risk without scripting: a no-script service and a scriptless read role, their locks read without a write', async () => {
    const [noscript] = await startProfile(PROFILES.noscript, 1);
    const [role] = await startProfile(PROFILES.scriptlessRole, 1);
    extra.push(noscript, role);
    await Promise.all([noscript, role].map((s) => withClient(s, (c) => c.set('lock:long', 'tok-long', 'PX', 120_000))));
    const before = await Promise.all([digest(noscript), digest(role)]);

    const service = await doctor([profileUrl(noscript, PROFILES.noscript)]);
    const [risk] = find(service, 'restart-risk', idOf(noscript));
    assert.equal(risk?.severity, 'error', JSON.stringify(service.findings));
    assert.match(risk.message, /started \d+ s ago, less than the longest live lock/);
    assert.match(find(service, 'capability', idOf(noscript)).map((f) => f.message).join('\n'), /runs no scripts .* read its locks with plain commands/);
    assert.doesNotMatch(find(service, 'capability', idOf(noscript)).map((f) => f.message).join('\n'), /shebang flags/);

    // CONFIG GET is denied to the role: AOF off is known, the RDB schedule is not, so the
    // restart is named as a risk of unknown size, never guessed away.
    const looker = await doctor([profileUrl(role, PROFILES.scriptlessRole)]);
    const restart = find(looker, 'unknown', idOf(role)).filter((f) => /started \d+ s ago/.test(f.message));
    assert.equal(restart.length, 1, JSON.stringify(looker.findings));
    assert.match(restart[0].message, /whether it restarted without persistence is unknown/);

    assert.deepEqual(await Promise.all([digest(noscript), digest(role)]), before, 'the datasets are untouched');
  });

  it('an ACL user without CONFIG: persistence is unknown, saying what is needed, never guessed', async () => {
    const node = await start();
    await withClient(node, (c) => c.call('ACL', 'SETUSER', 'noconfig', 'on', '>pw-noconfig', '~*', '&*', '+@all', '-config'));
    const url = `redis://noconfig:pw-noconfig@127.0.0.1:${node.port}`;
    const report = await doctor([clean[0].url, clean[1].url, url]);
    const unknown = find(report, 'unknown', idOf(node));
    assert.equal(unknown.length, 1, JSON.stringify(report.findings));
    assert.match(unknown[0].message, /CONFIG GET/);
    assert.match(unknown[0].fix, /config\|get/);
    assert.deepEqual(find(report, 'persistence', idOf(node)), [], 'no guess about persistence');
    // CONFIG is no command the locks or the read paths need.
    assert.deepEqual(find(report, 'permissions'), []);
    assert.deepEqual(find(report, 'unknown', idOf(clean[0])), []);
    assert.doesNotMatch(JSON.stringify(report), /pw-noconfig/);
  });

  it('permissions: a user denied SET gets a warning naming it; a read-only account is read without a write', async () => {
    const node = await start(SAFE);
    await withClient(node, async (c) => {
      await c.call('ACL', 'SETUSER', 'noset', 'on', '>pw-noset', '~*', '&*', '+@all', '-set');
      await c.call('ACL', 'SETUSER', 'viewer', 'on', '>pw-viewer', '~*', '&*', '+@all', '-@write', '-@dangerous', '+info');
      await c.set('lock:seen', 'someone', 'PX', 60_000);
    });
    const noset = await doctor([`redis://noset:pw-noset@127.0.0.1:${node.port}`]);
    const [p] = find(noset, 'permissions');
    assert.equal(p?.severity, 'warning');
    assert.match(p.message, /may not run SET,? .*acquire/);
    assert.match(p.fix, /\+set/);

    const before = await digest(node);
    const viewer = await doctor([`redis://viewer:pw-viewer@127.0.0.1:${node.port}`]);
    assert.equal(await digest(node), before, 'the dataset is untouched');
    assert.equal(viewer.answered, 1);
    // ACL DRYRUN is off limits to such an account: write permissions are unknown, said as info.
    const [u] = find(viewer, 'unknown').filter((f) => /lock writes could not be checked/.test(f.message));
    assert.equal(u?.severity, 'info');
    assert.deepEqual(find(viewer, 'permissions'), []);
    // CONFIG is denied too: persistence unknown; AOF is on, so only its fsync policy is.
    assert.ok(find(viewer, 'unknown').some((f) => /appendfsync|fsync policy/.test(f.message)));
    assert.deepEqual(find(await doctor([clean[0].url]), 'permissions'), []);
  });

  it('same-server: two entries that reach one server (by run_id)', async () => {
    const node = await start([...SAFE, '--bind', '127.0.0.1 ::1']);
    const report = await doctor([`redis://127.0.0.1:${node.port}`, `redis://[::1]:${node.port}`, clean[0].url]);
    const [f] = find(report, 'same-server');
    assert.equal(f?.severity, 'error');
    assert.equal(f.node, `[::1]:${node.port}`);
    assert.match(f.message, new RegExp(`127\\.0\\.0\\.1:${node.port} and \\[::1\\]:${node.port} reach the same Redis server`));
    // Not reported a second time as a replication problem.
    assert.deepEqual(find(report, 'not-independent'), []);
  });

  it('unreachable nodes are named, and the report says fewer than a quorum answered', async () => {
    const a = await start(SAFE);
    const b = await start(SAFE);
    await a.stop();
    await b.stop();
    const report = await doctor([clean[0].url, a.url, b.url]);
    assert.equal(report.answered, 1);
    assert.equal(report.quorum, 2);
    assert.deepEqual(find(report, 'unreachable').map((f) => f.node), [idOf(a), idOf(b)]);
  });

  it('the eviction trap for real: the doctor flags allkeys-lru, then filler writes evict a held lock', async () => {
    const node = await start(['--maxmemory', '3mb', '--maxmemory-policy', 'allkeys-lru']);
    const rl = new Redlock([node.url]);
    try {
      const report = await rl.doctor();
      assert.equal(find(report, 'eviction', idOf(node))[0]?.severity, 'error');
      const lock = await rl.acquire('lock:evicted', 120_000);
      assert.ok(lock.validityMs > 100_000);
      const filler = 'x'.repeat(16 * 1024);
      // Each batch writes 1.6 MB of cache entries; the lock is still valid the whole time.
      const evicted = await withClient(node, async (c) => {
        for (let batch = 0; batch < 200; batch++) {
          const p = c.pipeline();
          for (let i = 0; i < 100; i++) p.set(`cache:${batch}:${i}`, filler);
          await p.exec();
          if ((await c.exists('lock:evicted')) === 0) return true;
        }
        return false;
      });
      assert.ok(evicted, 'the lock key was evicted while its TTL had minutes left');
      assert.ok(lock.remainingMs > 60_000);
      // Another client now takes the "held" lock.
      const second = await rl.acquire('lock:evicted', 10_000);
      assert.notEqual(second.token, lock.token);
    } finally {
      await rl.quit();
    }
  });

  it('a Redis Cluster: every master is read, and N = 1 per key is said as an info', async () => {
    const masters = await startCluster(3);
    extra.push(...masters);
    const rl = new Redlock([`redis+cluster://127.0.0.1:${masters[0].port}`], { readTimeoutMs: 2000 });
    let report: DoctorReport;
    try {
      // A fresh cluster client learns the masters from its first slot map.
      await waitFor(() => clusterMembers(rl.nodes[0].client as Cluster).length === 3, 10_000, 'slot map');
      report = await rl.doctor();
    } finally {
      await rl.quit();
    }
    assert.equal(report.quorum, 1);
    assert.equal(report.answered, 3);
    const [q] = find(report, 'quorum-size');
    assert.equal(q?.severity, 'info');
    assert.match(q.message, /Redis Cluster/);
    // The harness runs them without persistence: one finding per master, by its own id.
    assert.deepEqual(find(report, 'persistence').map((f) => f.node).sort(), masters.map(idOf).sort());
    assert.deepEqual(find(report, 'not-independent'), []);
    assert.deepEqual(find(report, 'same-server'), []);
  });
});

// The doctor's rules on facts no local redis-server can produce: a far-off clock, a slow
// round trip, an old Redis, even set sizes.
function node(i: number, over: Partial<DeploymentFacts> = {}): DeploymentFacts {
  return {
    node: `n${i}:6379`, address: `n${i}:6379`, viaSentinel: false, reachable: true, error: null, latencyMs: 1, clockOffsetMs: 0,
    infoError: null, runId: `run${i}`, version: '7.2.4', mode: 'standalone', role: 'master', masterAddress: null,
    masterLinkUp: null, replId: `repl${i}`, replicas: [], connectedReplicas: 0, uptimeS: 86_400, maxmemory: 0,
    maxmemoryPolicy: 'noeviction', aofEnabled: true, appendfsync: 'always', save: '', configError: null,
    denied: [], permissionsError: null, user: 'default', ...over,
  };
}

function input(facts: DeploymentFacts[], over: Partial<DiagnoseInput> = {}): DiagnoseInput {
  return {
    facts, configured: facts.length, cluster: false, quorum: Math.floor(facts.length / 2) + 1, driftFactor: 0.01,
    ttlMs: 10_000, longestTtlMs: 0, liveLocks: 0, deadlineMs: 500, readErrors: new Map(), ...over,
  };
}

const codes = (i: DiagnoseInput): string[] => diagnose(i).filter((f) => f.severity !== 'info' || f.code === 'quorum-size').map((f) => `${f.severity} ${f.code} ${f.node}`);

describe('doctor rules', () => {
  it('a safe set of three has only the persistence infos', () => {
    const out = diagnose(input([node(1), node(2), node(3)]));
    assert.deepEqual(out.map((f) => `${f.severity} ${f.code}`), ['info persistence', 'info persistence', 'info persistence']);
  });

  it('clock-offset: a node beyond the drift allowance, and a spread across the set', () => {
    // 10 s TTL x 0.01 + 2 ms = 102 ms allowance.
    assert.deepEqual(codes(input([node(1), node(2, { clockOffsetMs: 90 }), node(3)])), []);
    assert.deepEqual(codes(input([node(1), node(2, { clockOffsetMs: 400 }), node(3)])), ['warning clock-offset null', 'warning clock-offset n2:6379']);
    // A longer TTL widens the allowance (60 s -> 602 ms).
    assert.deepEqual(codes(input([node(1), node(2, { clockOffsetMs: 400 }), node(3)], { ttlMs: 60_000 })), []);
    // Spread only: each node within the allowance of this machine, apart from each other.
    assert.deepEqual(codes(input([node(1, { clockOffsetMs: -80 }), node(2, { clockOffsetMs: 80 }), node(3)])), ['warning clock-offset null']);
    const [f] = diagnose(input([node(1), node(2, { clockOffsetMs: -400 }), node(3)])).filter((x) => x.node === 'n2:6379');
    assert.match(f.message, /-400 ms off.*102 ms drift allowance of a 10 s lock/);
  });

  it('latency: a round trip beyond half the per-node deadline', () => {
    assert.deepEqual(codes(input([node(1, { latencyMs: 240 }), node(2), node(3)])), []);
    assert.deepEqual(codes(input([node(1, { latencyMs: 260 }), node(2), node(3)])), ['warning latency n1:6379']);
    assert.deepEqual(codes(input([node(1, { latencyMs: 30 }), node(2), node(3)], { deadlineMs: 50 })), ['warning latency n1:6379']);
  });

  it('version: Redis before 7.0 lacks read-only scripts', () => {
    assert.deepEqual(codes(input([node(1, { version: '6.2.14' }), node(2), node(3)])), ['warning version n1:6379']);
    assert.deepEqual(codes(input([node(1, { version: '7.0.0' }), node(2), node(3)])), []);
  });

  it('quorum-size: one node is info, two a warning, an even N an info naming what it tolerates', () => {
    assert.deepEqual(codes(input([node(1)])), ['info quorum-size null']);
    assert.deepEqual(codes(input([node(1), node(2)])), ['warning quorum-size null']);
    const four = diagnose(input([node(1), node(2), node(3), node(4)])).find((f) => f.code === 'quorum-size');
    assert.equal(four?.severity, 'info');
    assert.match(four!.message, /4 nodes: a quorum needs 3, so it tolerates 1 failure, no more than 3 nodes would/);
    assert.deepEqual(codes(input([node(1), node(2), node(3), node(4), node(5)])), []);
  });

  it('not-independent: two replicas of one master outside the set, found by replication id', () => {
    const out = codes(input([
      node(1),
      node(2, { role: 'replica', masterAddress: 'm:6379', masterLinkUp: true, replId: 'shared' }),
      node(3, { role: 'replica', masterAddress: 'other-name-of-m:6379', masterLinkUp: true, replId: 'shared' }),
    ]));
    assert.deepEqual(out, ['error replica n2:6379', 'error not-independent n3:6379', 'error replica n3:6379']);
  });

  it('unknown, never a guess: facts that could not be read say what is needed', () => {
    const out = diagnose(input([node(1, { aofEnabled: false, save: null, configError: 'NOPERM config|get', uptimeS: 5 }), node(2), node(3)], { longestTtlMs: 30_000 }));
    const n1 = out.filter((f) => f.node === 'n1:6379').map((f) => `${f.severity} ${f.code}`);
    assert.deepEqual(n1, ['warning unknown', 'warning unknown']);
    assert.ok(out.every((f) => f.code !== 'restart-risk' && !(f.code === 'persistence' && f.node === 'n1:6379')));
    const noInfo = diagnose(input([node(1, { infoError: 'NOPERM info' }), node(2), node(3)]));
    assert.match(noInfo.find((f) => f.node === 'n1:6379')!.message, /INFO was refused/);
  });

  it('errors come first, then warnings, then infos; nodes in configuration order', () => {
    const out = diagnose(input([
      node(1, { maxmemoryPolicy: 'volatile-ttl', maxmemory: 1 << 20 }),
      node(2, { maxmemoryPolicy: 'allkeys-lfu', maxmemory: 1 << 20 }),
      node(3, { aofEnabled: true, appendfsync: 'everysec' }),
    ]));
    assert.deepEqual(out.map((f) => `${f.severity} ${f.code} ${f.node}`), [
      'error eviction n2:6379',
      'warning eviction n1:6379',
      'warning persistence n3:6379',
      'info persistence n1:6379',
      'info persistence n2:6379',
    ]);
  });

  it('has-replicas says whether a failover is automatic for this node', () => {
    const plain = diagnose(input([node(1, { connectedReplicas: 1 }), node(2), node(3)])).find((f) => f.code === 'has-replicas');
    assert.equal(plain?.severity, 'warning');
    assert.match(plain!.message, /matters only with automatic failover/);
    const sentinel = diagnose(input([node(1, { connectedReplicas: 2, viaSentinel: true }), node(2), node(3)])).find((f) => f.code === 'has-replicas');
    assert.match(sentinel!.message, /2 replicas.*Sentinel manages this node, so a failover is automatic here/);
  });
});
