// The doctor's rules on facts no local redis-server can produce: a far-off clock, a slow
// round trip, an old Redis, even set sizes. The real-node cases are in doctor.test.ts.
import assert from 'node:assert/strict';
import { DeploymentFacts, diagnose, DiagnoseInput } from '../../../src/core';

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
