// `discover`, the empty-pattern line of `status` and `history --watch`, through the built CLI against real nodes.
import assert from 'node:assert/strict';
import Redis from 'ioredis';
import { Redlock as NodeRedlock } from '@sesamecare-oss/redlock';
import { RedisServer, startNodes } from '../../src/dev/redisServer';
import { runCli, startCli } from './runCli';
import { waitFor } from '../support/wait';

describe('cli: discover and the empty-pattern line', () => {
  let servers: RedisServer[] = [];
  let c: Redis;
  before(async () => {
    servers = await startNodes(1);
    c = new Redis(servers[0].url);
  });
  after(async () => {
    c.disconnect();
    await Promise.all(servers.map((s) => s.dispose()));
  });
  afterEach(() => c.flushall());

  it('the first minute: a node-redlock lock, a redsync-style lock and our own CLI\'s lock are all listed by status with no --pattern', async () => {
    const node = ['--node', servers[0].url];
    await new NodeRedlock([c], { retryCount: 0 }).acquire(['orders:42'], 30_000);
    // redsync: SET NX PX with 16 random bytes, base64 (its genValue).
    await c.set('my-global-mutex', 'q3/8cW1fZ0JvR2xkM3Rva2VuPQ==', 'PX', 30_000);
    const ours = await runCli(['acquire', 'payments:7', '--ttl', '30s', ...node]);
    assert.equal(ours.code, 0, ours.stderr);
    const s = await runCli(['status', '--json', ...node]);
    assert.equal(s.code, 0, s.stderr);
    assert.deepEqual((JSON.parse(s.stdout) as { locks: Array<{ key: string }> }).locks.map((l) => l.key).sort(), ['my-global-mutex', 'orders:42', 'payments:7']);
  });

  it('discover --json prints the documented shape; status under the default patterns reads what discovery found, saying so once', async () => {
    const held = await new NodeRedlock([c], { retryCount: 0 }).acquire(['orders:42'], 30_000);
    await c.set('cache:1', 'x');
    const d = await runCli(['discover', '--json', '--node', servers[0].url]);
    assert.equal(d.code, 0, d.stderr);
    assert.deepEqual(JSON.parse(d.stdout), { scanned: 2, keyspace: 2, complete: true, patterns: [{ pattern: 'orders:*', count: 1, library: 'node-redlock, redlock-universal or redis-py', examples: ['orders:42'] }] });
    const human = await runCli(['discover', '--node', servers[0].url]);
    assert.match(human.stdout, /orders:\*\s+1\s+node-redlock/);
    const s = await runCli(['status', '--json', '--node', servers[0].url]);
    assert.equal(s.code, 0, s.stderr);
    assert.deepEqual((JSON.parse(s.stdout) as { locks: Array<{ key: string }> }).locks.map((l) => l.key), ['orders:42']);
    assert.equal(s.stderr, 'redlock-inspector: no lock under the default patterns; found locks under orders:*: reading them too (--pattern reads only yours)\n');
    // A user's own pattern is theirs: nothing found elsewhere is added, the check still names it.
    const own = await runCli(['status', '--pattern', 'lock:*', '--node', servers[0].url]);
    assert.equal(own.code, 0, own.stderr);
    assert.match(own.stdout, /^No locks match lock:\*\. Lock-shaped keys were seen outside them: orders:\* \(1, /m);
    // watch reads them too, from its first line.
    const w = startCli(['watch', '--json', '--node', servers[0].url]);
    w.stdin!.end();
    let out = '';
    w.stdout!.on('data', (d) => (out += String(d)));
    const closed = new Promise((r) => w.once('close', r));
    try {
      await waitFor(() => out.includes('\n'), 10_000, "watch's first document");
      assert.deepEqual((JSON.parse(out.split('\n')[0]) as { locks: Array<{ key: string }> }).locks.map((l) => l.key), ['orders:42']);
    } finally {
      w.kill('SIGINT');
      await closed;
    }
    await held.release();
  });

  it('history --watch --json adds what it observed of a foreign lock, marked observed', async () => {
    const held = await new NodeRedlock([c], { retryCount: 0 }).acquire(['orders:9'], 2_000);
    // The lock expires while the watch runs (seeded or seen taken, its expiry is observed).
    const r = await runCli(['history', 'orders:9', '--watch', '5s', '--json', '--node', servers[0].url]);
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as { resource: string; events: Array<{ type: string; source: string; token: string }> };
    assert.equal(doc.resource, 'orders:9');
    assert.deepEqual(doc.events.map((e) => [e.type, e.source, e.token]).filter(([t]) => t === 'expired'), [['expired', 'observed', held.value]]);
    assert.ok(doc.events.every((e) => e.source === 'observed'));
  });

  it('discover exits 3 when the node does not answer', async () => {
    const d = await runCli(['discover', '--json', '--node', 'redis://127.0.0.1:1']);
    assert.equal(d.code, 3);
    assert.equal(JSON.parse(d.stdout).complete, false);
  });
});
