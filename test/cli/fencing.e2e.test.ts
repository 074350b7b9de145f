import assert from 'node:assert/strict';
import { RedisServer, startNodes, withClient } from '../../src/dev/redisServer';
import { runCli } from './runCli';

describe('cli: fencing on 3 real nodes', function () {
  this.timeout(60_000);
  let servers: RedisServer[];
  let nodeArgs: string[];

  before(async () => {
    servers = await startNodes(3);
    nodeArgs = servers.flatMap((s) => ['--node', s.url]);
  });
  afterEach(async () => {
    await Promise.all(servers.map((s) => withClient(s, (c) => c.flushall())));
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.dispose()));
  });

  it('acquire --fencing --json adds "fence": N, growing with each acquisition; status shows it', async () => {
    const first = await runCli(['acquire', 'lock:cf', '--ttl', '10000', '--fencing', '--json', ...nodeArgs]);
    assert.equal(first.code, 0, first.stderr);
    const a = JSON.parse(first.stdout) as { fence: number; token: string };
    assert.ok(Number.isSafeInteger(a.fence) && a.fence >= 1, first.stdout);
    const rel = await runCli(['release', 'lock:cf', '--token', a.token, ...nodeArgs]);
    assert.equal(rel.code, 0, rel.stderr);

    const second = await runCli(['acquire', 'lock:cf', '--ttl', '10000', '--fencing', '--json', ...nodeArgs]);
    assert.equal(second.code, 0, second.stderr);
    const b = JSON.parse(second.stdout) as { fence: number };
    assert.ok(b.fence > a.fence);

    const status = await runCli(['status', '--json', ...nodeArgs]);
    const snap = JSON.parse(status.stdout) as { locks: Array<{ key: string; fence: number | null; fenceRisk: boolean }>; skipped: unknown[] };
    assert.deepEqual(snap.locks.map((l) => [l.key, l.fence, l.fenceRisk]), [['lock:cf', b.fence, false]]);
    assert.deepEqual(snap.skipped, []);
    const human = await runCli(['status', ...nodeArgs]);
    assert.match(human.stdout, new RegExp(`fence ${b.fence}`));
  });

  it('acquire --fencing prints the fence; without --fencing there is none', async () => {
    const r = await runCli(['acquire', 'lock:cp', '--ttl', '10000', '--fencing', ...nodeArgs]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^fence \d+$/m);
    const plain = await runCli(['acquire', 'lock:cq', '--ttl', '10000', '--json', ...nodeArgs]);
    assert.equal('fence' in (JSON.parse(plain.stdout) as object), false);
  });

  it('status flags a fencing risk when fewer than a quorum hold the highest counter', async () => {
    const r = await runCli(['acquire', 'lock:cr', '--ttl', '10000', '--fencing', '--json', ...nodeArgs]);
    const fence = (JSON.parse(r.stdout) as { fence: number }).fence;
    await Promise.all(servers.slice(0, 2).map((s) => withClient(s, (c) => c.del('__rli:fence:{lock:cr}'))));
    const status = await runCli(['status', '--json', ...nodeArgs]);
    const entry = (JSON.parse(status.stdout) as { locks: Array<{ fence: number; fenceRisk: boolean }> }).locks[0];
    assert.deepEqual([entry.fence, entry.fenceRisk], [fence, true]);
    const human = await runCli(['status', ...nodeArgs]);
    assert.match(human.stdout, /fencing risk/);
    assert.equal(human.code, 0);
  });
});
