// `redlock-inspector doctor` as a user runs it: grouped human output, --json, exit codes.
import assert from 'node:assert/strict';
import { RedisServer } from '../../src/dev/redisServer';
import { runCli } from './runCli';

const SAFE = ['--appendonly', 'yes', '--appendfsync', 'always'];

describe('cli: doctor', function () {
  this.timeout(60_000);
  let safe: RedisServer[];
  let lru: RedisServer;
  before(async () => {
    safe = await Promise.all([0, 1, 2].map(() => RedisServer.start({ args: SAFE })));
    lru = await RedisServer.start({ args: [...SAFE, '--maxmemory', '64mb', '--maxmemory-policy', 'allkeys-lru'] });
  });
  after(async () => {
    await Promise.all([...safe, lru].map((s) => s.dispose()));
  });
  const nodes = (servers: RedisServer[]): string[] => servers.flatMap((s) => ['--node', s.url]);

  it('a clean set exits 0 and says so', async () => {
    const r = await runCli(['doctor', ...nodes(safe)]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Deployment doctor: 3 nodes, 3 answered, quorum 2/);
    assert.doesNotMatch(r.stdout, /Errors|Warnings/);
    assert.match(r.stdout, /Info \(3\)/);
  });

  it('an error finding exits 4; human output groups by severity with a fix per finding', async () => {
    const r = await runCli(['doctor', ...nodes([safe[0], safe[1], lru])]);
    assert.equal(r.code, 4, r.stderr);
    assert.equal(r.stderr, '');
    const lines = r.stdout.split('\n');
    const errors = lines.indexOf('Errors (1)');
    const info = lines.indexOf('Info (3)');
    assert.ok(errors > 0 && info > errors, r.stdout);
    assert.match(lines[errors + 1], new RegExp(`✖ eviction: 127\\.0\\.0\\.1:${lru.port} uses maxmemory-policy allkeys-lru`));
    assert.match(lines[errors + 2], /^ {6}fix: CONFIG SET maxmemory-policy noeviction/);
  });

  it('--json prints { findings } with the contract fields', async () => {
    const r = await runCli(['doctor', '--json', ...nodes([safe[0], safe[1], lru])]);
    assert.equal(r.code, 4);
    const doc = JSON.parse(r.stdout) as { findings: Array<Record<string, unknown>> };
    assert.deepEqual(Object.keys(doc), ['findings']);
    for (const f of doc.findings) assert.deepEqual(Object.keys(f).sort(), ['code', 'fix', 'message', 'node', 'severity']);
    assert.deepEqual(doc.findings[0], {
      severity: 'error', code: 'eviction', node: `127.0.0.1:${lru.port}`,
      message: doc.findings[0].message, fix: doc.findings[0].fix,
    });
  });

  it('exits 3 when fewer than a quorum of nodes answered, even with an error finding', async () => {
    const down = await RedisServer.start();
    const down2 = await RedisServer.start();
    await down.dispose();
    await down2.dispose();
    const r = await runCli(['doctor', '--json', ...nodes([lru, down, down2])]);
    assert.equal(r.code, 3);
    const doc = JSON.parse(r.stdout) as { findings: Array<{ code: string; node: string }> };
    assert.deepEqual(doc.findings.filter((f) => f.code === 'unreachable').map((f) => f.node), [`127.0.0.1:${down.port}`, `127.0.0.1:${down2.port}`]);
    assert.match(r.stderr, /only 1 of 3 nodes answered \(quorum 2\)/);
  });

  it('never prints a password', async () => {
    const r = await runCli(['doctor', '--node', `redis://default:hunter2-secret@127.0.0.1:${safe[0].port}`]);
    assert.doesNotMatch(r.stdout + r.stderr, /hunter2-secret/);
  });
});
