// Named connections (src/cli/connections.ts): picked with --connection from REDLOCK_CONFIG,
// --node overriding their nodes, their patterns read by default, and the production guard.
// Every config file lives in a temp directory; the user's own is never read (HOME is one too).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RedisServer, startNodes, withClient } from '../../src/dev/redisServer';
import { runCli } from './runCli';

describe('cli: named connections', function () {
  this.timeout(60_000);
  let servers: RedisServer[];
  let other: RedisServer;
  let dir: string;
  let config: string;
  let env: Record<string, string>;
  before(async () => {
    [other, ...servers] = await startNodes(4);
    dir = mkdtempSync(join(tmpdir(), 'redlock-connections-'));
    config = join(dir, 'connections.json');
    writeFileSync(config, JSON.stringify({
      connections: [
        { name: 'dev', nodes: servers.map((s) => s.url), patterns: ['jobs:*'] },
        { name: 'prod', nodes: servers.map((s) => s.url.replace('redis://', 'redis://:s3cret-pass@')), production: true },
      ],
    }));
    env = { REDLOCK_CONFIG: config, HOME: dir };
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await Promise.all([other, ...servers].map((s) => s.dispose()));
  });
  afterEach(async () => {
    await Promise.all([other, ...servers].map((s) => withClient(s, (c) => c.flushall())));
  });

  async function seed(server: RedisServer, key: string): Promise<void> {
    await withClient(server, (c) => c.set(key, 'token-1', 'PX', 60_000));
  }

  it('reads the connection\'s nodes and its patterns; --node replaces the nodes, --pattern the patterns', async () => {
    for (const s of servers) {
      await seed(s, 'jobs:nightly');
      await seed(s, 'mutex:other');
    }
    await seed(other, 'jobs:elsewhere');
    const dev = await runCli(['status', '--json', '--connection', 'dev'], env);
    assert.equal(dev.code, 0, dev.stderr);
    const doc = JSON.parse(dev.stdout) as { locks: Array<{ key: string }>; nodes: Array<{ node: string }> };
    assert.deepEqual(doc.locks.map((l) => l.key), ['jobs:nightly'], 'the connection\'s patterns, not the defaults');
    assert.equal(doc.nodes.length, 3);
    const wider = JSON.parse((await runCli(['status', '--json', '--connection', 'dev', '--pattern', '*:*'], env)).stdout) as typeof doc;
    assert.deepEqual(wider.locks.map((l) => l.key).sort(), ['jobs:nightly', 'mutex:other']);
    const overridden = JSON.parse((await runCli(['status', '--json', '--connection', 'dev', '--node', other.url], env)).stdout) as typeof doc;
    assert.deepEqual(overridden.locks.map((l) => l.key), ['jobs:elsewhere']);
    assert.equal(overridden.nodes.length, 1);
  });

  it('an unknown name is exit 2 naming the known ones; a missing or bad file is one line naming it', async () => {
    const unknown = await runCli(['status', '--connection', 'staging'], env);
    assert.equal(unknown.code, 2);
    assert.equal(unknown.stderr.trim(), 'redlock-inspector: unknown connection "staging" (known: dev, prod)');
    const none = await runCli(['status', '--connection', 'dev'], { HOME: dir });
    assert.equal(none.code, 2);
    assert.match(none.stderr.trim(), /^redlock-inspector: unknown connection "dev" \(no connection is defined in .*\.config\/redlock-inspector\/connections\.json\)$/);
    const missing = await runCli(['status', '--connection', 'dev'], { REDLOCK_CONFIG: join(dir, 'nope.json'), HOME: dir });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /nope\.json: no such file \(set by REDLOCK_CONFIG\)/);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ connections: [{ name: 'x', nodes: [] }] }));
    const badRun = await runCli(['status', '--connection', 'x'], { REDLOCK_CONFIG: bad, HOME: dir });
    assert.equal(badRun.code, 2);
    assert.equal(badRun.stderr.trim().split('\n').length, 1);
    assert.match(badRun.stderr, /bad\.json: connection "x": "nodes" must be a list of node URLs/);
    // A URL left unquoted: the parser's own message would quote the text around it.
    writeFileSync(bad, '{ "connections": [{ "name": "x", "nodes": [redis://:hunter2@127.0.0.1:1] }] }');
    const broken = (await runCli(['status', '--connection', 'x'], { REDLOCK_CONFIG: bad, HOME: dir })).stderr;
    // Not a character of the file's text: V8's message would quote `redis://:h`.
    assert.match(broken.trim(), /^redlock-inspector: \S*bad\.json: not valid JSON: its text is not shown, it may hold passwords$/);
  });

  it('production refuses writes before any connection, unless --allow-writes; --read-only still wins; the password is never shown', async () => {
    const refused = await runCli(['acquire', 'orders:1', '--ttl', '30s', '--connection', 'prod'], env);
    assert.equal(refused.code, 2);
    assert.equal(refused.stderr.trim(), 'redlock-inspector: connection "prod" is production: acquire refused; pass --allow-writes to write to it; nothing was sent to any node');
    for (const s of servers) assert.equal(await withClient(s, (c) => c.exists('orders:1')), 0);
    const allowed = await runCli(['acquire', 'orders:1', '--ttl', '30s', '--connection', 'prod', '--allow-writes'], env);
    assert.equal(allowed.code, 0, allowed.stderr);
    for (const s of servers) assert.equal(await withClient(s, (c) => c.exists('orders:1')), 1);
    const readOnly = await runCli(['acquire', 'orders:2', '--ttl', '30s', '--connection', 'prod', '--allow-writes', '--read-only'], env);
    assert.equal(readOnly.code, 2);
    assert.match(readOnly.stderr, /read-only mode/);
    // Reads need no unlocking.
    const status = await runCli(['status', '--connection', 'prod'], env);
    assert.equal(status.code, 0, status.stderr);
    for (const r of [refused, allowed, readOnly, status]) assert.doesNotMatch(r.stdout + r.stderr, /s3cret-pass/);
  });
});
