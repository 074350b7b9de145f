// Every command on servers as our users run them (test/support/serverProfiles.ts): the
// right answer or one clear line naming the missing capability, never "unreachable" for a
// node that answered, no copy left by a refused write, and no write from a read path.
import { strict as assert } from 'node:assert';
import type { RedisServer } from '../../src/dev/redisServer';
import { scanCalls } from '../support/commandCounts';
import { PROFILES, profileEnv, profileUrl, ServerProfile, startProfile } from '../support/serverProfiles';
import { waitFor } from '../support/wait';
import { runCli, startCli } from './runCli';

interface StatusNode { node: string; reachable: boolean; outcome: string; error: string | null; readPath?: string; server?: string | null; version?: string | null; capabilities?: Record<string, boolean | null> }
interface StatusDoc { nodes: StatusNode[]; locks: Array<{ key: string; verdict: string }>; skipped: Array<{ key: string; reason: string }> }

async function rdbChanges(servers: RedisServer[]): Promise<number[]> {
  return Promise.all(servers.map(async (s) => {
    const c = s.client();
    try {
      return Number(/rdb_changes_since_last_save:(\d+)/.exec(await c.info('persistence'))![1]);
    } finally {
      c.disconnect();
    }
  }));
}

async function onEach(servers: RedisServer[], fn: (c: ReturnType<RedisServer['client']>) => Promise<unknown>): Promise<void> {
  await Promise.all(servers.map(async (s) => {
    const c = s.client();
    try {
      await fn(c);
    } finally {
      c.disconnect();
    }
  }));
}

/** A watch --json run until three more ticks passed after its first document with the lock in it. */
async function watchKeepsLock(servers: RedisServer[], nodeArgs: string[], env: Record<string, string>): Promise<string[]> {
  const child = startCli(['watch', '--json', '--interval', '150', ...nodeArgs], env);
  child.stdin!.end();
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (err += String(d)));
  const exited = new Promise<number | null>((res) => child.once('close', (code) => res(code)));
  try {
    await waitFor(() => out.includes('\n'), 10_000, 'first watch document');
    const scans = await scanCalls(servers[0]);
    await waitFor(async () => (await scanCalls(servers[0])) >= scans + 3, 10_000, 'three more watch ticks');
  } finally {
    child.kill('SIGINT');
  }
  assert.equal(await exited, 0, err);
  return out.split('\n').filter(Boolean);
}

function describeProfile(p: ServerProfile, expect: { reads: boolean; writes: boolean; doctor: RegExp; caps: Record<string, boolean> }): void {
  describe(`server profile ${p.name}`, function () {
    this.timeout(60_000);
    let servers: RedisServer[] = [];
    let nodeArgs: string[] = [];
    const env = profileEnv(p);
    before(async () => {
      servers = await startProfile(p, 3);
      nodeArgs = servers.flatMap((s) => ['--node', profileUrl(s, p)]);
    });
    after(async () => {
      await Promise.all(servers.map((s) => s.dispose()));
    });

    it('reads (status, history, watch, doctor) answer and write nothing', async () => {
      await onEach(servers, async (c) => {
        await c.set('lock:p', 'tok-p', 'PX', 60_000);
        // A Redisson lock: a small hash with a TTL.
        await c.hset('lock:r', '8d3f4c2a-9b1e-4f6a-8c7d-000000000001:1', '1');
        await c.pexpire('lock:r', 60_000);
      });
      const before = await rdbChanges(servers);
      const s = await runCli(['status', '--json', '--pattern', 'lock:*', ...nodeArgs], env);
      const doc = JSON.parse(s.stdout) as StatusDoc;
      for (const n of doc.nodes) {
        assert.equal(n.reachable, true, JSON.stringify(n));
        assert.equal(n.server, 'redis');
        assert.equal(n.version, '7.0.15');
        assert.equal(n.readPath, expect.caps.scripts === false && expect.caps.readOnlyScripts === false ? 'commands' : 'scripts');
        for (const [k, v] of Object.entries(expect.caps)) assert.equal(n.capabilities?.[k], v, `${k}: ${JSON.stringify(n.capabilities)}`);
      }
      if (expect.reads) {
        assert.equal(s.code, 0, s.stderr);
        assert.deepEqual(doc.locks.map((l) => [l.key, l.verdict]).sort(), [['lock:p', 'held'], ['lock:r', 'held']], JSON.stringify(doc));
        const lines = await watchKeepsLock(servers, ['--pattern', 'lock:*', ...nodeArgs], env);
        assert.equal(lines.length, 1, `watch marked a live lock changed or removed: ${lines.slice(1).join('\n')}`);
        const h = await runCli(['history', 'lock:p', ...nodeArgs], env);
        assert.equal(h.code, 0, h.stderr);
      } else {
        assert.equal(s.code, 2, s.stderr);
        for (const n of doc.nodes) assert.equal(n.outcome, 'unsupported');
        const lines = s.stderr.trim().split('\n');
        assert.equal(lines.length, 1 + servers.length, s.stderr);
        for (const server of servers) assert.ok(lines.some((l) => l.includes(`127.0.0.1:${server.port}: this server (Redis 7.0.15) cannot run scripts`)), s.stderr);
      }
      const d = await runCli(['doctor', ...nodeArgs], env);
      assert.match(d.stdout + d.stderr, expect.doctor);
      assert.doesNotMatch(d.stdout, /fall back to listing keys/);
      assert.deepEqual(await rdbChanges(servers), before, 'a read path wrote');
    });

    it('acquire, extend, release and force-release work, or refuse before writing with one line naming node and capability', async () => {
      const a = await runCli(['acquire', 'lock:a', '--ttl', '10000', '--json', ...nodeArgs], env);
      if (!expect.writes) {
        assert.equal(a.code, 2, a.stderr);
        assert.equal(a.stderr.trim().split('\n').length, 1, a.stderr);
        assert.match(a.stderr, /127\.0\.0\.1:\d+: this server \(Redis 7\.0\.15\) cannot run scripts/);
        const keys: unknown[] = [];
        await onEach(servers, async (c) => keys.push(await c.exists('lock:a')));
        assert.deepEqual(keys, servers.map(() => 0), 'a refused acquire left a copy');
        const r = await runCli(['release', 'lock:p', '--token', 'tok-p', ...nodeArgs], env);
        assert.equal(r.code, 2, r.stderr);
        const x = await runCli(['extend', 'lock:p', '--token', 'tok-p', '--ttl', '5000', ...nodeArgs], env);
        assert.equal(x.code, 2, x.stderr);
        const f = await runCli(['force-release', 'lock:p', '--yes', ...nodeArgs], env);
        assert.equal(f.code, 2, f.stderr);
        const left: unknown[] = [];
        await onEach(servers, async (c) => left.push(await c.get('lock:p')));
        assert.deepEqual(left, servers.map(() => 'tok-p'), 'a refused write changed a lock');
        return;
      }
      assert.equal(a.code, 0, a.stderr);
      const token = (JSON.parse(a.stdout) as { token: string }).token;
      const e = await runCli(['extend', 'lock:a', '--token', token, '--ttl', '20000', ...nodeArgs], env);
      assert.equal(e.code, 0, e.stderr);
      const r = await runCli(['release', 'lock:a', '--token', token, ...nodeArgs], env);
      assert.equal(r.code, 0, r.stderr);
      const f = await runCli(['force-release', 'lock:p', '--yes', '--json', ...nodeArgs], env);
      assert.equal(f.code, 0, f.stderr);
      assert.deepEqual((JSON.parse(f.stdout) as { nodes: Array<{ outcome: string }> }).nodes.map((n) => n.outcome), servers.map(() => 'deleted'));
    });
  });
}

describe('server profiles (rename-command, ACL users, forced 6.2 paths)', () => {
  describeProfile(PROFILES.elasticache, { reads: true, writes: true, doctor: /CONFIG is disabled on this service/, caps: { config: false, scripts: true, readOnlyScripts: true } });
  describeProfile(PROFILES.memorystore, { reads: true, writes: true, doctor: /no MEMORY USAGE/, caps: { config: false, memoryUsage: false } });
  describeProfile(PROFILES.cloud, { reads: true, writes: true, doctor: /CONFIG is disabled on this service/, caps: { config: false } });
  describeProfile(PROFILES.noscript, { reads: true, writes: false, doctor: /runs no scripts/, caps: { scripts: false, readOnlyScripts: false } });
  describeProfile(PROFILES.scriptlessRole, { reads: true, writes: false, doctor: /plain commands/, caps: { scripts: false, readOnlyScripts: false, time: true } });
  describeProfile(PROFILES.legacy, { reads: true, writes: true, doctor: /no PEXPIRETIME/, caps: { readOnlyScripts: false, scriptFlags: false, pexpiretime: false, memoryUsage: false } });
  describeProfile(PROFILES.readRole, { reads: true, writes: false, doctor: /refuses TIME/, caps: { scripts: false, readOnlyScripts: true, time: false } });
});
