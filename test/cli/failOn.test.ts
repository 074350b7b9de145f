// status --fail-on against real nodes, in process through main(): exit 4 on a match,
// 0 without the option whatever the anomalies, 3 (too few nodes) over 4, and the JSON
// document unchanged by the option.
import assert from 'node:assert/strict';
import { main } from '../../src/cli/main';
import { freePort, RedisServer, startNodes, withClient } from '../../src/dev/redisServer';
import { memoryIo } from './memoryIo';

interface Doc {
  quorum: number;
  locks: Array<{ key: string; verdict: string; flags: string[] }>;
}

describe('cli: status --fail-on (3 real nodes)', function () {
  let servers: RedisServer[];
  let nodes: string[];

  before(async () => {
    servers = await startNodes(3);
    nodes = servers.flatMap((s) => ['--node', s.url]);
    // A split (two tokens), a lock without TTL on every node, and a healthy held lock.
    await withClient(servers[0], (c) => c.set('lock:split', 'token-a', 'PX', 60_000));
    await withClient(servers[1], (c) => c.set('lock:split', 'token-b', 'PX', 60_000));
    for (const s of servers) {
      await withClient(s, async (c) => {
        await c.set('lock:forever', 'stuck');
        await c.set('lock:fine', 'healthy', 'PX', 60_000);
      });
    }
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.dispose()));
  });

  async function status(args: string[], env = {}): Promise<{ code: number; stdout: string; stderr: string[] }> {
    const io = memoryIo(env);
    const code = await main(['status', ...args], io);
    return { code, stdout: io.stdout.join('\n'), stderr: io.stderr };
  }

  it('without --fail-on, anomalies never change the exit code', async () => {
    const r = await status(['--json', ...nodes]);
    assert.equal(r.code, 0, r.stderr.join('\n'));
    const doc = JSON.parse(r.stdout) as Doc;
    const verdicts = Object.fromEntries(doc.locks.map((l) => [l.key, [l.verdict, ...l.flags].join(' ')]));
    assert.deepEqual(verdicts, { 'lock:split': 'split', 'lock:forever': 'held no-ttl', 'lock:fine': 'held' });
  });

  it('exits 4 when a lock has a named verdict or flag, printing the same document and one stderr line', async () => {
    const plain = JSON.parse((await status(['--json', ...nodes])).stdout) as Doc;
    const r = await status(['--json', '--fail-on', 'split', ...nodes]);
    assert.equal(r.code, 4);
    const doc = JSON.parse(r.stdout) as Doc;
    assert.deepEqual(Object.keys(doc), Object.keys(plain));
    assert.deepEqual(doc.locks.map((l) => l.key).sort(), plain.locks.map((l) => l.key).sort());
    assert.equal(r.stderr.length, 1);
    assert.match(r.stderr[0], /^redlock-inspector: 1 lock matches --fail-on split: lock:split \(split\)$/);

    assert.equal((await status(['--fail-on', 'no-ttl', ...nodes])).code, 4, 'a flag');
    assert.equal((await status(['--fail-on', 'partial,reentrant', '--fail-on', 'ttl-skew', ...nodes])).code, 0, 'no match');
    const both = await status(['--fail-on', 'split,no-ttl', ...nodes]);
    assert.equal(both.code, 4);
    assert.match(both.stderr[0], /2 locks match/);
  });

  it('too few nodes (exit 3) wins over a match (4)', async () => {
    const dead = await freePort();
    const dead2 = await freePort();
    const r = await status(['--json', '--fail-on', 'no-ttl', '--node', servers[0].url, '--node', `redis://127.0.0.1:${dead}`, '--node', `redis://127.0.0.1:${dead2}`]);
    assert.equal(r.code, 3, r.stderr.join('\n'));
    assert.match(r.stderr.join('\n'), /only 1 of 3 nodes answered/);
    const doc = JSON.parse(r.stdout) as Doc;
    assert.ok(doc.locks.some((l) => l.key === 'lock:forever' && l.flags.includes('no-ttl')), 'the document is printed either way');
  });
});
