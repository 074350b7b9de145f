// One server, one vote: entries that reach the same Redis server are refused, by their
// spelling before any connection, by INFO run_id at the first call (and again after a
// reconnect); a user denied INFO falls back to host:port with a warning. A frozen node
// does not hold up the others at construction.
import assert from 'node:assert/strict';
import { createServer, Server, Socket, connect } from 'node:net';
import { NodeConfigError, Redlock } from '../../../src/core';
import { normaliseHost } from '../../../src/core/connection/identity';
import { runCli } from '../../cli/runCli';
import { RedisServer, startNodes, withClient } from '../../../src/dev/redisServer';
import { waitFor } from '../../support/wait';

/** A TCP forwarder on its own port: a second address for one server (a port-forward, a proxy). */
async function forwarder(target: () => number): Promise<{ port: number; dropAll: () => void; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((inbound) => {
    const outbound = connect(target(), '127.0.0.1');
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => {
        sockets.delete(s);
        inbound.destroy();
        outbound.destroy();
      });
    }
    inbound.pipe(outbound);
    outbound.pipe(inbound);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const dropAll = (): void => {
    for (const s of sockets) s.destroy();
  };
  return {
    port: (server.address() as { port: number }).port,
    dropAll,
    close: () => new Promise<void>((r) => {
      dropAll();
      server.close(() => r());
    }),
  };
}

const isAlias = (e: unknown, a: string, b: string): boolean => e instanceof NodeConfigError && e.message.includes(a) && e.message.includes(b) && /same Redis server/.test(e.message);

describe('node identity: one server, one vote', function () {
  this.timeout(60_000);
  let servers: RedisServer[];
  let p: number;

  before(async () => {
    servers = await startNodes(3);
    p = servers[0].port;
  });
  after(async () => {
    for (const s of servers) s.resume();
    await Promise.all(servers.map((s) => s.dispose()));
  });

  it('normalises host spellings', () => {
    assert.equal(normaliseHost('localhost'), '127.0.0.1');
    assert.equal(normaliseHost('127.1'), '127.0.0.1');
    assert.equal(normaliseHost('2130706433'), '127.0.0.1');
    assert.equal(normaliseHost('LocalHost.'), '127.0.0.1');
    assert.equal(normaliseHost('0:0:0:0:0:0:0:1'), '::1');
    assert.equal(normaliseHost('Redis-A.example'), 'redis-a.example');
  });

  it('aliases the configuration shows: the constructor throws naming both entries, nothing connects', async () => {
    const other = servers[1].url;
    const cases: Array<[Array<string | { name: string; url: string }>, string, string]> = [
      [[`redis://localhost:${p}`, `redis://127.0.0.1:${p}`, other], `localhost:${p}`, `127.0.0.1:${p}`],
      [[`redis://127.0.0.1:${p}`, other, `redis://127.1:${p}`], `127.0.0.1:${p}`, `127.1:${p}`],
      [[{ name: 'orders-a', url: `redis://127.0.0.1:${p}` }, { name: 'orders-b', url: `redis://127.0.0.1:${p}` }, other], 'orders-a', 'orders-b'],
      [[`redis://127.0.0.1:${p}/1`, `redis://127.0.0.1:${p}/2`, other], `127.0.0.1:${p}/1`, `127.0.0.1:${p}/2`],
      [['redis://localhost', 'redis://127.0.0.1:6379'], 'localhost:6379', '127.0.0.1:6379'],
    ];
    const clientsBefore = await withClient(servers[0], async (c) => (await c.client('LIST') as string).split('\n').length);
    for (const [nodes, a, b] of cases) {
      assert.throws(() => new Redlock(nodes), (e: unknown) => isAlias(e, a, b), JSON.stringify(nodes));
    }
    const clientsAfter = await withClient(servers[0], async (c) => (await c.client('LIST') as string).split('\n').length);
    assert.equal(clientsAfter, clientsBefore, 'no connection was opened');
    const r = await runCli(['acquire', 'lock:alias', '--ttl', '5000', '--node', `redis://localhost:${p}/1`, '--node', `redis://127.0.0.1:${p}/2`, '--node', other]);
    assert.equal(r.code, 2, r.stderr);
    assert.ok(r.stderr.includes(`localhost:${p}/1`) && r.stderr.includes(`127.0.0.1:${p}/2`), r.stderr);
    assert.equal(await withClient(servers[0], (c) => c.call('DBSIZE')), 0);
  });

  it('aliases only run_id shows: the first call rejects naming both, no lock command runs; CLI exit 2', async () => {
    const fwd = await forwarder(() => p);
    const urls = [servers[0].url, `redis://127.0.0.1:${fwd.port}`, servers[1].url];
    const a = `127.0.0.1:${p}`;
    const b = `127.0.0.1:${fwd.port}`;
    const rl = new Redlock(urls, { commandTimeoutMs: 500 });
    try {
      for (const call of [() => rl.acquire('lock:twin', 5000), () => rl.inspect(), () => rl.release(rl.lockFor('lock:twin', 't'))]) {
        const err = await call().then(() => null, (e: unknown) => e);
        assert.ok(isAlias(err, a, b), String(err));
      }
      for (const s of servers) assert.equal(await withClient(s, (c) => c.exists('lock:twin')), 0, 'nothing written');
    } finally {
      await rl.quit();
    }
    for (const args of [['status'], ['acquire', 'lock:twin', '--ttl', '5000'], ['force-release', 'lock:twin', '--yes']]) {
      const r = await runCli([...args, ...urls.flatMap((u) => ['--node', u])]);
      assert.equal(r.code, 2, `${args[0]}: ${r.stderr}`);
      assert.ok(r.stderr.includes(a) && r.stderr.includes(b), r.stderr);
    }
    for (const s of servers) assert.equal(await withClient(s, (c) => c.exists('lock:twin')), 0, 'nothing written');
    await fwd.close();
  });

  it('checks again after a reconnect: an address that now reaches a counted server is refused', async () => {
    let target = servers[2].port;
    const fwd = await forwarder(() => target);
    const rl = new Redlock([servers[0].url, servers[1].url, `redis://127.0.0.1:${fwd.port}`], { commandTimeoutMs: 500 });
    try {
      const lock = await rl.acquire('lock:moved', 5000);
      assert.deepEqual((await lock.settled).map((n) => n.outcome), ['granted', 'granted', 'granted']);
      await rl.release(lock);
      // The forwarded address now leads to server 0, which the set already counts.
      target = servers[0].port;
      fwd.dropAll();
      const err = await waitFor(() => rl.acquire('lock:moved2', 5000).then(() => false, (e: unknown) => (e instanceof NodeConfigError ? e : false)), 10_000, 'the alias to be found');
      assert.ok(isAlias(err, `127.0.0.1:${servers[0].port}`, `127.0.0.1:${fwd.port}`), String(err));
    } finally {
      await rl.quit();
      await fwd.close();
    }
  });

  it('a user denied INFO: host:port check only, with a warning, never a refusal of the set', async () => {
    await withClient(servers[0], (c) => c.call('ACL', 'SETUSER', 'noinfo', 'on', '>noinfo-pw', '~*', '&*', '+@all', '-info'));
    const urls = [`redis://noinfo:noinfo-pw@127.0.0.1:${p}`, servers[1].url, servers[2].url];
    const rl = new Redlock(urls, { commandTimeoutMs: 500 });
    try {
      const lock = await rl.acquire('lock:noinfo', 5000);
      assert.deepEqual((await lock.settled).map((n) => n.outcome), ['granted', 'granted', 'granted']);
      await rl.release(lock);
      assert.equal(rl.warnings.length, 1);
      assert.match(rl.warnings[0], new RegExp(`127\\.0\\.0\\.1:${p}.*may not run INFO`));
    } finally {
      await rl.quit();
    }
    const r = await runCli(['status', ...urls.flatMap((u) => ['--node', u])]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /warning: .*may not run INFO/);
    assert.doesNotMatch(r.stdout + r.stderr, /noinfo-pw/);
  });

  it('a frozen node does not hold up construction: the call runs on the others, the frozen one times out at the call deadline', async function () {
    // Waiting for every connection would wait out the 60 s connect timeout: past this test's own.
    this.timeout(20_000);
    servers[2].pause();
    const rl = new Redlock(servers.map((s) => s.url), { connectTimeoutMs: 60_000, commandTimeoutMs: 200 });
    try {
      const lock = await rl.acquire('lock:frozen', 10_000);
      // Connected (the kernel accepts for a paused process) but never answered INFO.
      assert.equal(rl.nodes[2].runId, null, 'the frozen node never answered');
      const outcomes = (await lock.settled).map((n) => n.outcome);
      assert.deepEqual(outcomes, ['granted', 'granted', 'timeout']);
      const snap = await rl.inspect({ patterns: ['lock:frozen'] });
      assert.deepEqual(snap.nodes.map((n) => n.reachable), [true, true, false]);
      await rl.release(lock);
    } finally {
      servers[2].resume();
      await rl.quit();
    }
  });
});
