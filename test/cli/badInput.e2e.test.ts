// The bad-input table of docs/in-production.md ("Reliability"), one `it` per row not
// already covered elsewhere. Each row checks a clear message naming the node and the
// problem, the contract's exit code (CLI rows), no crash (one stderr line, no stack trace)
// and no write.
//
// Rows covered elsewhere (not repeated here):
// - unknown scheme, invalid port, no node: test/cli/cli.e2e.test.ts "a bad URL exits 2
//   naming the scheme, never the password"; test/core/connection/urls.test.ts "rejects <url> with a
//   clear message" (not a node URL, invalid port/database, missing host/master name).
// - refused port: test/cli/cli.e2e.test.ts "an unreachable single node: one line naming
//   it, exit 3" (every command against a stopped node: ECONNREFUSED, exit 3).
// - wrong password: test/cli/cli.e2e.test.ts "a wrong password is reported as such and
//   never printed"; test/core/lock/redlock.test.ts "never shows a password; a wrong one is
//   reported as auth".
// - a cluster node configured as standalone (MOVED): test/core/connection/deployments.e2e.test.ts "a
//   cluster node configured as standalone gets a clear message".
// - a 50 MB string and list/set/stream/hash keys under the pattern (inspect):
//   test/core/read/inspect.test.ts "non-lock types and a 50 MB value go to skipped, cheaply and
//   without crashing"; zsets: test/core/vocabulary/formats.test.ts "other hashes and zsets are
//   unrecognised". The CLI side (exit codes, no write) is the row below.
// - binary keys and tokens: test/core/read/inspect.test.ts "binary tokens and hostile key names
//   come through as data"; test/cli/cli.e2e.test.ts "hex: resources and tokens round trip".
// - hostile key names in status (newline, ANSI, RTL, BEL) and HTML in the snapshot:
//   test/cli/cli.e2e.test.ts "status human output escapes hostile key names and tokens";
//   test/core/read/inspect.test.ts "binary tokens and hostile key names come through as data".
//   The write commands' and watch's output is the row below.
// - TTLs 0, negative, non-numeric, fractional, 2^31: test/cli/cli.e2e.test.ts "bad TTLs
//   exit 2 with one line and touch nothing"; test/core/lock/redlock.test.ts "rejects bad TTLs and
//   empty resources before touching any node".
// - empty resource name: the same two tests; an empty --pattern: test/cli/options.test.ts.
//
import { internalKeyOf } from '../../src/core/bookkeeping/internalKeys';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { displayKey, Redlock, RedlockError } from '../../src/core';
import { CliResult, runCli, startCli } from './runCli';
import { RedisServer, startNodes, withClient } from '../../src/dev/redisServer';
import { waitFor } from '../support/wait';

/** Exactly one line on stderr, no stack trace. */
function oneLine(r: CliResult): string {
  const lines = r.stderr.split('\n').filter((l) => l !== '');
  assert.equal(lines.length, 1, `expected one stderr line, got: ${JSON.stringify(r.stderr)}`);
  assert.doesNotMatch(r.stderr, /\n\s+at |node:internal|TypeError|ReferenceError/, 'no stack trace');
  assert.ok(lines[0].startsWith('redlock-inspector: '), lines[0]);
  return lines[0];
}


/** Every key of a small test node, by SCAN. */
async function allKeys(s: RedisServer): Promise<string[]> {
  return withClient(s, async (c) => {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, page] = await c.scan(cursor, 'COUNT', 100);
      keys.push(...page);
      cursor = next;
    } while (cursor !== '0');
    return keys.sort();
  });
}
const digest = (s: RedisServer): Promise<string> => withClient(s, async (c) => String(await c.call('DEBUG', 'DIGEST')));

/** A TCP port that accepts connections and never answers: a host that hangs. */
async function blackhole(): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    close: () => new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    }),
  };
}

describe('bad input, one row each', function () {
  this.timeout(60_000);
  let node: RedisServer;
  let id: string;

  before(async () => {
    [node] = await startNodes(1);
    id = `127.0.0.1:${node.port}`;
  });
  afterEach(async () => {
    node.resume();
    if (!node.running) await node.restart();
    await withClient(node, (c) => c.flushall());
  });
  after(async () => {
    await node.dispose();
  });

  it('invalid URL: exit 2, one line saying what a node URL looks like, nothing opened', async () => {
    for (const url of ['not a url', 'redis//127.0.0.1:6379', 'redis://127.0.0.1:port']) {
      const r = await runCli(['status', '--node', url]);
      assert.equal(r.code, 2, url);
      assert.match(oneLine(r), /not a node URL|invalid host|invalid port/, url);
      assert.equal(r.stdout, '');
    }
    // A bad URL among good ones: refused before any connection, so nothing is written.
    const before = await digest(node);
    const mixed = await runCli(['acquire', 'lock:mixed', '--ttl', '5000', '--node', node.url, '--node', 'redis+sentinel://127.0.0.1:1']);
    assert.equal(mixed.code, 2);
    assert.match(oneLine(mixed), /missing master name/);
    assert.equal(await digest(node), before);
  });

  it('a port where an HTTP server answers: exit 3, "not a Redis server", naming the node', async () => {
    // It answers every request with a page and keeps the connection open, as a web server
    // with keep-alive does (a server that also resets may lose the page to the reset).
    const sockets = new Set<Socket>();
    const http = createServer((s) => {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('data', () => s.write('HTTP/1.1 400 Bad Request\r\nContent-Type: text/html\r\n\r\n<html>hello</html>'));
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    const port = (http.address() as { port: number }).port;
    try {
      for (const args of [['status'], ['acquire', 'lock:http', '--ttl', '5000']]) {
        const r = await runCli([...args, '--node', `redis://127.0.0.1:${port}`]);
        assert.equal(r.code, 3, `${args[0]}: ${r.stderr}`);
        const line = oneLine(r);
        assert.ok(line.includes(`127.0.0.1:${port}`), line);
        assert.match(line, /not a Redis server: it answered in another protocol/);
        assert.doesNotMatch(line, /Please report this/);
      }
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => http.close(r));
    }
  });

  it('unreachable host (accepts, never answers): exit 3 within the connect timeout, naming the node', async () => {
    const hole = await blackhole();
    try {
      const hid = `127.0.0.1:${hole.port}`;
      for (const args of [['status'], ['acquire', 'lock:hole', '--ttl', '5000']]) {
        const r = await runCli([...args, '--node', `redis://127.0.0.1:${hole.port}`]);
        assert.equal(r.code, 3, `${args[0]}: ${r.stderr}`);
        const line = oneLine(r);
        assert.ok(line.includes(hid), line);
        // CLI connect timeout 2 s + one per-node deadline: bounded, no hang.
        assert.ok(r.ms < 6000, `${args[0]} took ${r.ms} ms`);
      }
      // The core: the same through acquire, bounded by connectTimeoutMs + the per-node deadline.
      const rl = new Redlock([`redis://127.0.0.1:${hole.port}`], { connectTimeoutMs: 500, commandTimeoutMs: 100 });
      try {
        const t0 = performance.now();
        const err = await rl.acquire('lock:hole', 5000).then(() => null, (e: unknown) => e);
        const ms = performance.now() - t0;
        assert.ok(err instanceof RedlockError, String(err));
        assert.equal(err.unreachable, true);
        assert.ok(err.message.includes(hid), err.message);
        assert.ok(ms < 500 + 3 * 100 + 300, `acquire took ${ms} ms`);
      } finally {
        await rl.quit();
      }
    } finally {
      await hole.close();
    }
  });

  it('wrong ACL user: reported as auth, naming the node, exit 3, never printing the password', async () => {
    await withClient(node, (c) => c.call('ACL', 'SETUSER', 'locker', 'on', '>locker-pw', '~*', '&*', '+@all'));
    const before = await digest(node);
    const url = `redis://nosuchuser:acl-secret-77@127.0.0.1:${node.port}`;
    for (const args of [['acquire', 'lock:acl', '--ttl', '5000'], ['status'], ['release', 'lock:acl', '--token', 't'], ['force-release', 'lock:acl', '--yes']]) {
      const r = await runCli([...args, '--node', url]);
      assert.equal(r.code, 3, `${args[0]}: ${r.stderr}`);
      const line = oneLine(r);
      assert.ok(line.includes(id), line);
      assert.match(line, /WRONGPASS|auth/i);
      assert.doesNotMatch(r.stdout + r.stderr, /acl-secret-77/);
    }
    // The right user with a wrong password, and the right one, for contrast.
    const wrongPw = await runCli(['acquire', 'lock:acl', '--ttl', '5000', '--node', `redis://locker:nope-pw@127.0.0.1:${node.port}`]);
    assert.equal(wrongPw.code, 3);
    assert.match(oneLine(wrongPw), /WRONGPASS|auth/i);
    assert.equal(await digest(node), before, 'nothing written');
    const ok = await runCli(['acquire', 'lock:acl', '--ttl', '5000', '--node', `redis://locker:locker-pw@127.0.0.1:${node.port}`]);
    assert.equal(ok.code, 0, ok.stderr);
    // The core names the outcome auth.
    const rl = new Redlock([url], { connectTimeoutMs: 500, commandTimeoutMs: 200 });
    try {
      const err = await rl.acquire('lock:acl2', 1000).then(() => null, (e: unknown) => e);
      assert.ok(err instanceof RedlockError, String(err));
      assert.equal(err.nodes[0].outcome, 'auth');
      assert.doesNotMatch(err.message, /acl-secret-77/);
    } finally {
      await rl.quit();
    }
  });

  it('TLS URL (rediss://) against a plain port: exit 3, naming the node, bounded by the connect timeout', async () => {
    const before = await digest(node);
    for (const args of [['status'], ['acquire', 'lock:tls', '--ttl', '5000']]) {
      const r = await runCli([...args, '--node', `rediss://127.0.0.1:${node.port}`]);
      assert.equal(r.code, 3, `${args[0]}: ${r.stderr}`);
      const line = oneLine(r);
      assert.ok(line.includes(id), line);
      assert.ok(r.ms < 6000, `${args[0]} took ${r.ms} ms`);
    }
    assert.equal(await digest(node), before, 'nothing written');
  });

  it('plain URL against a TLS-only port: exit 3, naming the node, no hang', async function () {
    const dir = mkdtempSync(join(tmpdir(), 'redlock-tls-'));
    const gen = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { encoding: 'utf8' });
    assert.equal(gen.status, 0, `openssl: ${gen.stderr}`);
    const { freePort } = await import('../../src/dev/redisServer');
    const tlsPort = await freePort();
    // port 0: no plain listener at all; the harness probes the plain port, so start it on
    // a plain port too and point the CLI at the TLS one.
    const tls = await RedisServer.start({ args: ['--tls-port', String(tlsPort), '--tls-cert-file', join(dir, 'cert.pem'), '--tls-key-file', join(dir, 'key.pem'), '--tls-auth-clients', 'no'] });
    try {
      const r = await runCli(['acquire', 'lock:plain', '--ttl', '5000', '--node', `redis://127.0.0.1:${tlsPort}`]);
      assert.equal(r.code, 3, r.stderr);
      const line = oneLine(r);
      assert.ok(line.includes(`127.0.0.1:${tlsPort}`), line);
      assert.ok(r.ms < 6000, `took ${r.ms} ms`);
      assert.equal(await withClient(tls, (c) => c.exists('lock:plain')), 0);
    } finally {
      await tls.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a replica: acquire is refused with READONLY and a hint to use the master (exit 1); status reads it (exit 0)', async () => {
    const replica = await RedisServer.start({ args: ['--replicaof', '127.0.0.1', String(node.port)] });
    try {
      await waitFor(() => withClient(replica, async (c) => /master_link_status:up/.test(await c.info('replication'))), 10_000, 'replication link');
      await withClient(node, (c) => c.set('lock:rep', 'master-token', 'PX', 60_000));
      await waitFor(() => withClient(replica, async (c) => (await c.get('lock:rep')) === 'master-token'), 10_000, 'replicated key');
      const rid = `127.0.0.1:${replica.port}`;
      // Reads work against a replica.
      const s = await runCli(['status', '--json', '--node', replica.url]);
      assert.equal(s.code, 0, s.stderr);
      assert.equal((JSON.parse(s.stdout) as { locks: Array<{ key: string; verdict: string }> }).locks[0].verdict, 'held');
      const rel = await runCli(['release', 'lock:rep', '--token', 'master-token', '--node', replica.url]);
      assert.notEqual(rel.code, 0, 'a release on a replica cannot succeed');
      assert.match(oneLine(rel), /READONLY|replica/);
      const a = await runCli(['acquire', 'lock:new', '--ttl', '5000', '--json', '--node', replica.url]);
      const line = oneLine(a);
      assert.ok(line.includes(rid), line);
      assert.match(line, /READONLY.*replica: point at the master/);
      assert.deepEqual((JSON.parse(a.stdout) as { nodes: Array<{ outcome: string }> }).nodes.map((n) => n.outcome), ['refused']);
      // Nothing written on either side.
      assert.equal(await withClient(node, (c) => c.exists('lock:new')), 0);
      assert.equal(await withClient(node, (c) => c.get('lock:rep')), 'master-token');
      // The replica answered (READONLY): a refusal by the node that answered, exit 1, as the
      // core itself says (RedlockError.unreachable is false for this error).
      assert.equal(a.code, 1, line);
    } finally {
      await replica.dispose();
    }
  });

  it('a node still LOADING its dataset: status and acquire name the node and the problem, exit 3, nothing written', async function () {
    this.timeout(60_000);
    // A dump of 20,000 keys, loaded at 0.5 ms a key while answering every 1 KB: ~10 s of LOADING.
    const donor = await RedisServer.start();
    const dir = await withClient(donor, async (c) => {
      await c.call('DEBUG', 'POPULATE', '20000', 'lock:load:');
      await c.save();
      return ((await c.config('GET', 'dir')) as string[])[1];
    });
    await donor.stop();
    const loading = await RedisServer.start({ args: ['--dir', dir, '--key-load-delay', '500', '--loading-process-events-interval-bytes', '1024'] });
    try {
      // A client without ioredis' ready check sees what the node answers (ioredis would wait).
      const raw = loading.client({ enableReadyCheck: false });
      try {
        assert.match(await raw.ping().catch((e: Error) => e.message), /LOADING/);
      } finally {
        raw.disconnect();
      }
      const id = `127.0.0.1:${loading.port}`;
      const status = await runCli(['status', '--node', loading.url]);
      assert.equal(status.code, 3, status.stderr);
      assert.ok(oneLine(status).includes(id), oneLine(status));
      assert.match(oneLine(status), /LOADING/);
      const a = await runCli(['acquire', 'lock:during-load', '--ttl', '5000', '--node', loading.url]);
      assert.equal(a.code, 3, a.stderr);
      assert.match(oneLine(a), new RegExp(`${id}.*LOADING`));
      await waitFor(() => withClient(loading, (c) => c.ping().then(() => true, () => false)), 30_000, 'the load to finish');
      assert.equal(await withClient(loading, (c) => c.exists('lock:during-load')), 0);
    } finally {
      await loading.dispose();
      await donor.dispose();
    }
  });

  it('a pattern matching 1,000,000 keys: the scan budget stops it, truncated, within budget + slack, nothing written', async function () {
    this.timeout(60_000);
    await withClient(node, (c) => c.call('DEBUG', 'POPULATE', '1000000', 'lock:pop'));
    const before = await digest(node);
    const rl = new Redlock([node.url], { readTimeoutMs: 1000 });
    try {
      for (const opts of [{ timeBudgetMs: 300 }, { maxKeys: 5000 }]) {
        const t0 = performance.now();
        const page = await rl.inspectPage({ patterns: ['lock:pop*'], ...opts });
        const ms = performance.now() - t0;
        assert.equal(page.snapshot.truncated, true, JSON.stringify(opts));
        assert.ok(page.next, 'a continuation is offered');
        assert.ok(page.snapshot.nodes[0].reachable);
        const seen = page.snapshot.locks.length + page.snapshot.skipped.length;
        assert.ok(seen > 0 && seen < 1_000_000, `${seen} keys in one page`);
        // One SCAN page may be in flight when the budget runs out.
        assert.ok(ms < (opts.timeBudgetMs ?? 3000) + 1000, `${JSON.stringify(opts)} took ${ms} ms`);
      }
    } finally {
      await rl.quit();
    }
    // The CLI: exit 0, the document says truncated, within its 3 s budget + slack.
    const r = await runCli(['status', '--json', '--pattern', 'lock:pop*', '--node', node.url]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal((JSON.parse(r.stdout) as { truncated: boolean }).truncated, true);
    assert.ok(r.ms < 8000, `status took ${r.ms} ms`);
    const h = await runCli(['status', '--pattern', 'lock:pop*', '--node', node.url]);
    assert.equal(h.code, 0, h.stderr);
    assert.match(h.stdout, /truncated|more keys|load more|budget/i);
    assert.equal(await digest(node), before, 'nothing written');
  });

  it('non-lock types and a 50 MB string under the pattern: status exit 0 listing them as skipped; acquire exit 1 (wrong-type); force-release exit 2; nothing written', async () => {
    await withClient(node, async (c) => {
      await c.rpush('lock:list', 'a');
      await c.sadd('lock:set', 'a');
      await c.zadd('lock:zset', 1, 'a', 2, 'b', 3, 'c');
      await c.xadd('lock:stream', '*', 'f', 'v');
      await c.hset('lock:hash', 'not', 'a-lock', 'at', 'all');
      await c.set('lock:huge', Buffer.alloc(50 * 1024 * 1024, 0x61));
    });
    const before = await digest(node);
    const s = await runCli(['status', '--json', '--node', node.url]);
    assert.equal(s.code, 0, s.stderr);
    const doc = JSON.parse(s.stdout) as { locks: Array<{ key: string }>; skipped: Array<{ key: string; reason: string }> };
    assert.deepEqual(doc.locks.map((l) => l.key).filter((k) => k !== 'lock:zset'), []);
    const reasons = Object.fromEntries(doc.skipped.map((x) => [x.key, x.reason]));
    for (const k of ['lock:list', 'lock:set', 'lock:stream']) assert.equal(reasons[k], 'wrong-type', k);
    assert.equal(reasons['lock:huge'], 'too-large');
    assert.equal(reasons['lock:hash'], 'unrecognised-hash');
    assert.ok(s.stdout.length < 100_000, 'the 50 MB value is never printed');
    const human = await runCli(['status', '--node', node.url]);
    assert.equal(human.code, 0, human.stderr);
    assert.ok(human.stdout.length < 100_000);

    for (const k of ['lock:list', 'lock:huge', 'lock:stream']) {
      const f = await runCli(['force-release', k, '--yes', '--node', node.url]);
      assert.equal(f.code, 2, `${k}: ${f.stderr}`);
      assert.match(oneLine(f), /not a lock the inspector can read.*nothing deleted/);
    }
    assert.equal(await digest(node), before, 'nothing written');
    const keysBefore = await allKeys(node);
    // acquire on them: the node answered (WRONGTYPE, or held by the 50 MB value), so a
    // refusal, exit 1. The CLI's own line says "1 of 1 nodes answered" yet it exits 3 for a
    // single-key wrong-type: see the report (the outcome lacks `answered`).
    for (const k of ['lock:huge', 'lock:list', 'lock:hash']) {
      const a = await runCli(['acquire', k, '--ttl', '5000', '--json', '--node', node.url]);
      const line = oneLine(a);
      assert.ok(line.includes(id), line);
      assert.match(line, k === 'lock:huge' ? /held by/ : /wrong-type|WRONGTYPE/);
      assert.equal(a.code, 1, `${k}: ${line}`);
    }
    // The core says the same: a node that answered WRONGTYPE did answer.
    const rl = new Redlock([node.url], { commandTimeoutMs: 200 });
    try {
      const err = await rl.acquire('lock:list', 5000).then(() => null, (e: unknown) => e);
      assert.ok(err instanceof RedlockError, String(err));
      assert.equal(err.nodes[0].outcome, 'wrong-type');
      assert.equal(err.unreachable, false, 'a WRONGTYPE answer is an answer');
    } finally {
      await rl.quit();
    }
    // The CLI's acquire records its refusals in the lock's history (docs/formats.md): the
    // only keys written are those event streams; the non-lock values are untouched.
    const added = (await allKeys(node)).filter((k) => !keysBefore.includes(k));
    assert.deepEqual(added.filter((k) => !['lock:huge', 'lock:list', 'lock:hash'].some((r) => k === internalKeyOf('events', r))), [], 'only event streams written');
    await withClient(node, async (c) => {
      assert.equal(await c.strlen('lock:huge'), 50 * 1024 * 1024);
      assert.deepEqual(await c.lrange('lock:list', 0, -1), ['a']);
      assert.deepEqual(await c.hgetall('lock:hash'), { not: 'a-lock', at: 'all' });
    });
  });

  it('hostile resource names (newline, HTML, ANSI, RTL) in acquire/release/force-release and watch output: no raw control byte reaches the terminal', async () => {
    const evil = 'lock:\x1b]0;pwned\x07\x1b[2J<script>alert(1)</script>\n[FAKE] ok\u202egnp.exe';
    const unsafe = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;
    const a = await runCli(['acquire', evil, '--ttl', '30000', '--node', node.url]);
    assert.equal(a.code, 0, a.stderr);
    assert.doesNotMatch(a.stdout + a.stderr, unsafe);
    assert.ok(!a.stdout.split('\n').some((l) => l.startsWith('[FAKE]')), a.stdout);
    // A name with control or bidi characters is shown in its hex: form, which round-trips.
    assert.ok(a.stdout.includes(displayKey(Buffer.from(evil))), a.stdout);
    const token = /^token (\S+)$/m.exec(a.stdout)?.[1];
    assert.ok(token, a.stdout);
    assert.equal(await withClient(node, (c) => c.get(evil)), token, 'the exact bytes were locked');

    // A refusal names the resource: escaped too.
    const refused = await runCli(['acquire', evil, '--ttl', '30000', '--node', node.url]);
    assert.equal(refused.code, 1);
    assert.doesNotMatch(refused.stdout + refused.stderr, unsafe);
    oneLine(refused);

    // watch (human) shows the key in its table and change lines.
    const w = startCli(['watch', '--interval', '100', '--node', node.url]);
    w.stdin!.end();
    let out = '';
    w.stdout!.on('data', (d) => (out += String(d)));
    const closed = new Promise<number | null>((r) => w.once('close', r));
    try {
      await waitFor(() => out.includes('Nodes: 1 of 1 reachable'), 10_000, 'the watch table');
      await withClient(node, (c) => c.set(evil + '2', 'tok\x1b[31m', 'PX', 30_000));
      // Shown in its hex: form (control and bidi characters), which names exactly that key.
      await waitFor(() => out.includes(`+ ${displayKey(Buffer.from(evil + '2'))}`), 10_000, 'an added line');
    } finally {
      w.kill('SIGINT');
    }
    assert.equal(await closed, 0);
    assert.doesNotMatch(out, unsafe);

    const rel = await runCli(['release', evil, '--token', token, '--node', node.url]);
    assert.equal(rel.code, 0, rel.stderr);
    assert.doesNotMatch(rel.stdout + rel.stderr, unsafe);
    const f = await runCli(['force-release', evil + '2', '--yes', '--node', node.url]);
    assert.equal(f.code, 0, f.stderr);
    assert.doesNotMatch(f.stdout + f.stderr, unsafe);
    assert.equal(await withClient(node, (c) => c.exists(evil, evil + '2')), 0);
  });
});
