// Proofs (docs/in-production.md, "Reliability"): (a) read paths and --read-only write
// nothing, seen by MONITOR on every node; (b) force-release never deletes a token it did
// not observe (1,000 hand-overs); (c) a password appears in no output of any command,
// success or failure; (d) a process that used the core exits by itself after quit().
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { Redlock } from '../../../src/core';
import { SCRIPTS } from '../../../src/core/lock/writeScripts';
import { CliResult, runCli, startCli } from '../../cli/runCli';
import { RedisServer, startNodes, withClient } from '../../../src/dev/redisServer';
import { waitFor } from '../../support/wait';
import { scanCalls } from '../../support/commandCounts';
import { openMonitor } from '../../support/monitor';


const digests = (servers: RedisServer[]): Promise<string[]> => Promise.all(servers.map((s) => withClient(s, async (c) => String(await c.call('DEBUG', 'DIGEST')))));

/** Commands that change a dataset (lower case), as MONITOR prints them, inside scripts too. */
const WRITES = new Set([
  'set', 'setnx', 'setex', 'psetex', 'getset', 'getdel', 'getex', 'append', 'incr', 'incrby', 'decr', 'decrby', 'mset', 'msetnx',
  'del', 'unlink', 'expire', 'pexpire', 'expireat', 'pexpireat', 'persist', 'rename', 'renamenx', 'move', 'copy', 'restore',
  'hset', 'hsetnx', 'hmset', 'hdel', 'hincrby', 'zadd', 'zrem', 'zincrby', 'zpopmin', 'zpopmax', 'sadd', 'srem', 'spop',
  'lpush', 'rpush', 'lpop', 'rpop', 'lrem', 'lset', 'ltrim', 'xadd', 'xdel', 'xtrim', 'flushall', 'flushdb', 'swapdb',
  'fcall', 'function', 'script', 'eval', 'evalsha', 'config', 'acl',
]);

/** The core's lock-write scripts: never called on a read path. */
const WRITE_SHAS = new Set(Object.values(SCRIPTS).map((lua) => createHash('sha1').update(lua).digest('hex')));

/**
 * Read-only script calls are allowed: EVAL only of a script declaring no-writes, EVALSHA of
 * none of the core's write scripts. MONITOR also lists every command a script runs (source
 * "lua"), so a script that wrote would show its SET/DEL/PEXPIRE line anyway.
 */
function isWrite(args: string[]): boolean {
  const cmd = args[0].toLowerCase();
  if (cmd === 'evalsha_ro' || cmd === 'eval_ro') return false;
  if (cmd === 'eval') return !/^#!lua[^\n]*flags=[^\n]*no-writes/.test(args[1] ?? '');
  if (cmd === 'evalsha') return WRITE_SHAS.has((args[1] ?? '').toLowerCase());
  if (cmd === 'script') return (args[1] ?? '').toLowerCase() !== 'exists';
  if (cmd === 'config') return (args[1] ?? '').toLowerCase() !== 'get';
  return WRITES.has(cmd);
}

interface Seen {
  node: number;
  args: string[];
  source: string;
}

async function monitorAll(servers: RedisServer[]): Promise<{ seen: Seen[]; stop: () => Promise<void> }> {
  const seen: Seen[] = [];
  const monitors = await Promise.all(servers.map(async (s, i) => {
    const m = await openMonitor(s);
    m.monitor.on('monitor', (_time: string, args: string[], source: string) => seen.push({ node: i, args, source }));
    return m;
  }));
  return {
    seen,
    stop: async () => {
      for (const m of monitors) m.close();
    },
  };
}

/** Runs `watch` until it has printed and `server` has served two more of its ticks. */
async function watchBriefly(args: string[], server: RedisServer, env: Record<string, string> = {}, password?: string): Promise<{ code: number | null; out: string; err: string }> {
  const child = startCli(['watch', '--interval', '100', ...args], env);
  child.stdin!.end();
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (err += String(d)));
  const closed = new Promise<number | null>((r) => child.once('close', r));
  try {
    // The first output, then at least two more ticks' worth of reads.
    await waitFor(() => out.length > 0 || err.length > 0, 10_000, 'watch output');
    const before = await scanCalls(server, password);
    await waitFor(async () => (await scanCalls(server, password)) >= before + 2, 10_000, 'two more watch ticks on the node');
  } finally {
    child.kill('SIGINT');
  }
  return { code: await closed, out, err };
}

describe('proofs', function () {
  this.timeout(60_000);
  let servers: RedisServer[];
  let urls: string[];
  let nodeArgs: string[];

  before(async () => {
    servers = await startNodes(3);
    urls = servers.map((s) => s.url);
    nodeArgs = urls.flatMap((u) => ['--node', u]);
  });
  afterEach(async () => {
    for (const s of servers) {
      s.resume();
      if (!s.running) await s.restart();
    }
    await Promise.all(servers.map((s) => withClient(s, (c) => c.flushall())));
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.dispose()));
  });

  it('read-only: status and watch (with and without --read-only) and every write command under --read-only send no write command to any node (MONITOR) and leave the digest unchanged', async () => {
    await Promise.all(servers.map((s, i) => withClient(s, async (c) => {
      await c.set('lock:ro', 'tok-ro', 'PX', 60_000);
      if (i < 2) await c.set('lock:split', i === 0 ? 'tok-a' : 'tok-b', 'PX', 60_000);
      await c.hset('lock:redisson', '8d3f4c2a-9b1e-4f6a-8c7d-2e5b9a1f3c4d:1', '1');
      await c.zadd('semaphore:s', 1, 'h1');
      await c.rpush('lock:list', 'x');
      await c.set('plain', 'not-a-lock');
    })));
    const before = await digests(servers);
    const mon = await monitorAll(servers);
    const runs: Array<[string, CliResult | { code: number | null; out: string; err: string }, number]> = [];
    try {
      runs.push(['status', await runCli(['status', ...nodeArgs]), 0]);
      runs.push(['status --json', await runCli(['status', '--json', '--pattern', '*lock*', '--pattern', 'semaphore:*', ...nodeArgs]), 0]);
      runs.push(['status --read-only', await runCli(['status', '--read-only', ...nodeArgs]), 0]);
      runs.push(['watch', await watchBriefly(nodeArgs, servers[0]), 0]);
      runs.push(['watch --json --read-only', await watchBriefly(['--json', '--read-only', ...nodeArgs], servers[0]), 0]);
      runs.push(['acquire --read-only', await runCli(['acquire', 'lock:new', '--ttl', '5000', '--read-only', ...nodeArgs]), 2]);
      runs.push(['extend --read-only', await runCli(['extend', 'lock:ro', '--token', 'tok-ro', '--ttl', '999999', '--read-only', ...nodeArgs]), 2]);
      runs.push(['release --read-only', await runCli(['release', 'lock:ro', '--token', 'tok-ro', '--read-only', ...nodeArgs]), 2]);
      runs.push(['force-release --yes --read-only', await runCli(['force-release', 'lock:ro', '--yes', '--read-only', ...nodeArgs]), 2]);
      runs.push(['acquire REDLOCK_READ_ONLY=1', await runCli(['acquire', 'lock:new', '--ttl', '5000', ...nodeArgs], { REDLOCK_READ_ONLY: '1' }), 2]);
      runs.push(['force-release REDLOCK_READ_ONLY=1', await runCli(['force-release', 'lock:split', '--yes', ...nodeArgs], { REDLOCK_READ_ONLY: '1' }), 2]);
      // The core's read paths too.
      const rl = new Redlock(urls, { readTimeoutMs: 1000 });
      try {
        await rl.inspect({ patterns: ['*lock*', 'semaphore:*'] });
        await rl.nodeFacts(60_000);
        let snaps = 0;
        const w = rl.watch({ intervalMs: 50 }, { snapshot: () => snaps++ });
        await waitFor(() => snaps > 0, 5000, 'core watch');
        await w.stop();
      } finally {
        await rl.quit();
      }
      // MONITOR delivers asynchronously: wait until every node has shown the reads.
      await waitFor(() => servers.every((_, i) => mon.seen.some((s) => s.node === i && /^(scan|evalsha_ro|eval_ro|evalsha|eval)$/i.test(s.args[0]))), 5000, 'MONITOR to show the reads');
    } finally {
      await mon.stop();
    }
    for (const [name, r, code] of runs) {
      assert.equal(r.code, code, `${name}: ${'stderr' in r ? r.stderr : r.err}`);
    }
    const writes = mon.seen.filter((s) => isWrite(s.args));
    assert.deepEqual(writes.map((w) => `node ${w.node} [${w.source}] ${w.args.slice(0, 3).join(' ')}`), [], 'write commands seen by MONITOR');
    assert.ok(mon.seen.length > 20, `MONITOR saw only ${mon.seen.length} commands`);
    // The inner commands of scripts were visible, so a write inside one would have shown.
    assert.ok(mon.seen.some((s) => s.source.includes('lua') && /^(pttl|strlen|get|type)$/i.test(s.args[0])), 'MONITOR shows script commands');
    assert.equal(WRITE_SHAS.size, 6);
    assert.deepEqual(await digests(servers), before, 'a dataset changed');
  });

  it('force-release never deletes a token it did not observe: 1,000 hand-overs between the snapshot and the action', async function () {
    this.timeout(120_000);
    const rl = new Redlock(urls, { commandTimeoutMs: 500, readTimeoutMs: 1000 });
    const admins = servers.map((s) => s.client());
    const key = 'lock:handover';
    let deletedNew = 0;
    let deletedObserved = 0;
    let changedSeen = 0;
    try {
      for (let i = 0; i < 1000; i++) {
        const a = `A-${i}`;
        const b = `B-${i}`;
        await Promise.all(admins.map((c) => c.set(key, a, 'PX', 60_000)));
        // The snapshot the user acted on.
        const snap = await rl.inspect({ patterns: [key] });
        const entry = snap.locks.find((l) => l.key === key);
        assert.ok(entry && entry.nodes.every((n) => n.token === a), `iteration ${i}: snapshot`);
        // The lock changes hands on some nodes (always at least one), in one step each.
        const moved = admins.map((_, j) => j === i % 3 || ((i >> 2) & (1 << j)) !== 0);
        await Promise.all(admins.map((c, j) => (moved[j] ? c.multi().del(key).set(key, b, 'PX', 60_000).exec() : null)));
        const r = await rl.forceRelease(key, entry.nodes);
        const after = await Promise.all(admins.map((c) => c.get(key)));
        for (let j = 0; j < admins.length; j++) {
          if (moved[j]) {
            if (after[j] !== b) deletedNew++;
            assert.equal(r.nodes[j].outcome, 'changed', `iteration ${i} node ${j}`);
            changedSeen++;
          } else {
            if (after[j] === null) deletedObserved++;
            assert.equal(r.nodes[j].outcome, 'deleted', `iteration ${i} node ${j}`);
          }
        }
        assert.equal(deletedNew, 0, `iteration ${i}: the new holder's key was deleted`);
        await Promise.all(admins.map((c) => c.del(key)));
      }
    } finally {
      admins.forEach((c) => c.disconnect());
      await rl.quit();
    }
    console.log(`      1000 hand-overs: ${changedSeen} copies changed hands and were kept, ${deletedObserved} observed copies deleted, ${deletedNew} new holders deleted`);
    assert.equal(deletedNew, 0);
    assert.ok(changedSeen >= 1000 && deletedObserved > 0);
  });

  it('secrets: a password (URL or REDLOCK_PASSWORD) appears in no output of any command, success or failure', async function () {
    const password = 'pw-Zq8kT3vN9xLm';
    const wrong = 'wrong-Hh4Jd7Ws2Pq';
    const [secure] = await startNodes(1, { args: ['--requirepass', password] });
    const [dead] = await startNodes(1);
    await dead.stop();
    try {
      const withPw = `redis://:${password}@127.0.0.1:${secure.port}`;
      const plain = secure.url;
      const outputs: Array<[string, CliResult]> = [];
      const run = async (name: string, args: string[], env: Record<string, string> = {}, code?: number): Promise<CliResult> => {
        const r = await runCli(args, env);
        outputs.push([name, r]);
        if (code !== undefined) assert.equal(r.code, code, `${name}: ${r.stderr}`);
        return r;
      };
      const a = await run('acquire url', ['acquire', 'lock:pw', '--ttl', '30000', '--json', '--node', withPw], {}, 0);
      const token = (JSON.parse(a.stdout) as { token: string }).token;
      await run('acquire human env', ['acquire', 'lock:pw2', '--ttl', '30000', '--node', plain], { REDLOCK_PASSWORD: password }, 0);
      await run('status url', ['status', '--node', withPw], {}, 0);
      await run('status json env', ['status', '--json', '--node', plain], { REDLOCK_PASSWORD: password }, 0);
      await run('extend env', ['extend', 'lock:pw', '--token', token, '--ttl', '60000', '--node', plain], { REDLOCK_PASSWORD: password }, 0);
      await run('release url', ['release', 'lock:pw', '--token', token, '--node', withPw], {}, 0);
      await run('force-release env', ['force-release', 'lock:pw2', '--yes', '--node', plain], { REDLOCK_PASSWORD: password }, 0);
      // Failures.
      await run('wrong password url', ['acquire', 'lock:pw', '--ttl', '1000', '--node', `redis://:${wrong}@127.0.0.1:${secure.port}`], {}, 3);
      await run('wrong password env', ['status', '--node', plain], { REDLOCK_PASSWORD: wrong }, 3);
      await run('wrong user', ['status', '--json', '--node', `redis://someone:${password}@127.0.0.1:${secure.port}`], {}, 3);
      await run('bad ttl', ['acquire', 'lock:pw', '--ttl', '-5', '--node', withPw], {}, 2);
      await run('bad url', ['status', '--node', `redis://:${password}@127.0.0.1:99999`], {}, 2);
      await run('bad scheme', ['status', '--node', `http://u:${password}@127.0.0.1:1`], {}, 2);
      await run('unreachable url', ['acquire', 'lock:pw', '--ttl', '1000', '--node', `redis://:${password}@127.0.0.1:${dead.port}`], {}, 3);
      await run('unreachable env', ['status', '--node', dead.url], { REDLOCK_PASSWORD: password }, 3);
      await run('held by other', ['acquire', 'lock:held', '--ttl', '30000', '--node', withPw], {}, 0);
      await run('refused', ['acquire', 'lock:held', '--ttl', '1000', '--node', withPw], {}, 1);
      await run('release wrong token', ['release', 'lock:held', '--token', 'nope', '--node', plain], { REDLOCK_PASSWORD: password }, 1);
      const w = await watchBriefly(['--node', withPw], secure, {}, password);
      const wj = await watchBriefly(['--json', '--node', plain], secure, { REDLOCK_PASSWORD: password }, password);
      const texts = [...outputs.map(([n, r]) => [n, r.stdout + r.stderr] as const), ['watch url', w.out + w.err] as const, ['watch env', wj.out + wj.err] as const];
      for (const [name, text] of texts) {
        for (const secret of [password, wrong, encodeURIComponent(password), password.slice(3, 12)]) {
          assert.ok(!text.includes(secret), `${name} printed a password: ${text}`);
        }
      }
      // The failure lines did say something useful.
      const wrongLine = outputs.find(([n]) => n === 'wrong password url')![1].stderr;
      assert.match(wrongLine, new RegExp(`127\\.0\\.0\\.1:${secure.port}.*(WRONGPASS|auth)`, 'i'));
      assert.match(wrongLine, /check the password/);
    } finally {
      await Promise.all([secure.dispose(), dead.dispose()]);
    }
  });

  it('resources: a process that acquired, released, inspected, watched, used using() and quit exits by itself, even with a dead node configured', async function () {
    const core = join(__dirname, '..', '..', '..', 'src', 'core');
    const [dead] = await startNodes(1);
    await dead.stop();
    const script = `
      const { Redlock } = require(${JSON.stringify(core)});
      (async () => {
        const rl = new Redlock(JSON.parse(process.argv[1]), { commandTimeoutMs: 200, connectTimeoutMs: 500, readTimeoutMs: 500 });
        const lock = await rl.acquire('lock:child', 5000);
        await rl.extend(lock, 5000);
        await rl.release(lock);
        await rl.using('lock:child-using', 300, async () => new Promise((r) => setTimeout(r, 400)));
        const snap = await rl.inspect();
        let changes = 0;
        const w = rl.watch({ intervalMs: 50 }, { snapshot: () => {}, change: () => changes++ });
        const held = await rl.acquire('lock:child-watched', 5000);
        await new Promise((r) => { const t = setInterval(() => { if (changes > 0) { clearInterval(t); r(); } }, 10); });
        await w.stop();
        await rl.release(held);
        await rl.nodeFacts(5000);
        await rl.quit();
        console.log('quit ' + snap.nodes.length + ' ' + Date.now());
      })().catch((e) => { console.error(e); process.exit(2); });`;
    const nodes = [...urls, dead.url];
    try {
      const child = spawn(process.execPath, ['-e', script, JSON.stringify(nodes)], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let quitAt = 0;
      child.stdout.on('data', (d) => {
        out += String(d);
        if (!quitAt && /quit/.test(out)) quitAt = Date.now();
      });
      child.stderr.on('data', (d) => (out += String(d)));
      const code = await new Promise<number | null>((resolve) => {
        const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        child.once('exit', (c) => {
          clearTimeout(timer);
          resolve(c);
        });
      });
      const lingerMs = Date.now() - quitAt;
      console.log(`      exited ${lingerMs} ms after quit()`);
      assert.equal(code, 0, `child did not exit on its own: ${out}`);
      assert.match(out, /quit 4/);
      assert.ok(lingerMs < 3000, `the process lingered ${lingerMs} ms after quit()`);
    } finally {
      await dead.dispose();
    }
  });
});
