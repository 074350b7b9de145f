// The safety audit on real nodes: each seeded violation is found with its evidence, and a
// clean run of 10,000 acquisitions under contention gives no finding (docs/audit.md).
import assert from 'node:assert/strict';
import Redis from 'ioredis';
import { Redlock, RedlockError } from '../../../src/core';
import type { AuditReport } from '../../../src/core';
import { AUDIT_TOLERANCE_MS } from '../../../src/core/vocabulary';
import { RedisServer, startNodes } from '../../../src/dev/redisServer';
import { runCli } from '../../cli/runCli';
import { startWorker, stopWorker, Worker } from '../../support/holderProcess';
import { waitFor } from '../../support/wait';

const summary = (r: AuditReport): string[] => r.findings.map((f) => `${f.kind} ${f.resource} ${f.holders.map((h) => h.token.slice(0, 8)).join('/')}`);

describe('audit (real nodes)', function () {
  this.timeout(120_000);
  let servers: RedisServer[];
  const opened: Redlock[] = [];
  const workers: Worker[] = [];
  const make = (options: ConstructorParameters<typeof Redlock>[1] = {}): Redlock => {
    const r = new Redlock(servers.map((s) => s.url), { events: true, connectTimeoutMs: 2000, ...options });
    opened.push(r);
    return r;
  };
  /** Quits a client now (its queued event writes land), once. */
  const done = async (r: Redlock): Promise<void> => {
    opened.splice(opened.indexOf(r), 1);
    await r.quit();
  };
  const keyGone = (key: string) => async (): Promise<boolean> => {
    for (const s of servers) {
      const c = new Redis(s.port, '127.0.0.1', { lazyConnect: true });
      try {
        if ((await c.exists(key)) === 1) return false;
      } finally {
        c.disconnect();
      }
    }
    return true;
  };

  beforeEach(async () => {
    servers = await startNodes(3);
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => {
      if (w.proc.signalCode === null && w.proc.exitCode === null) w.proc.kill('SIGCONT');
      return stopWorker(w);
    }));
    await Promise.all(opened.splice(0).map((r) => r.quit()));
    await Promise.all(servers.map((s) => s.dispose()));
  });

  it('a holder paused (SIGSTOP) past its TTL while another takes the lock, then resumed to release: past-lease, nothing else; CLI exit 4', async () => {
    const key = 'audit:paused';
    const w = startWorker({ urls: servers.map((s) => s.url), name: 'paused-worker', hold: key, ttlMs: 400, events: true });
    workers.push(w);
    await w.said('held');
    w.proc.kill('SIGSTOP');
    await waitFor(keyGone(key), 5000, 'the paused holder\'s copies to expire');
    const b = make();
    const lockB = await b.acquire(key, 10_000);
    w.proc.kill('SIGCONT');
    await stopWorker(w);
    assert.equal(w.proc.exitCode, 0);
    await b.release(lockB);
    await done(b);

    const report = await make().audit({ resource: key });
    assert.equal(report.complete, true);
    assert.deepEqual(report.findings.map((f) => f.kind), ['past-lease']);
    const [f] = report.findings;
    assert.equal(f.holders[0].holder?.name, 'paused-worker');
    assert.deepEqual(f.evidence.map((e) => e.type), ['acquired', 'released']);
    assert.equal(f.evidence[1].held, false);

    const cli = await runCli(['audit', key, ...servers.flatMap((s) => ['--node', s.url])]);
    assert.equal(cli.code, 4, cli.stderr);
    assert.match(cli.stdout, /1 finding\n/);
    assert.match(cli.stdout, /worked past its lease {2}audit:paused {2}paused-worker \(pid \d+/);
    const json = await runCli(['audit', key, '--json', ...servers.flatMap((s) => ['--node', s.url])]);
    const doc = JSON.parse(json.stdout);
    assert.deepEqual(Object.keys(doc), ['findings', 'from', 'to', 'complete']);
    assert.equal(doc.findings[0].kind, 'past-lease');
  });

  it('a node restarted without persistence between two grants: one overlap, with both grants as evidence', async () => {
    const key = 'audit:restart';
    const a = make();
    const lockA = await a.acquire(key, 20_000);
    // Nodes 2 and 3 forget A's copies (no persistence) and come back at once, against the spec.
    await Promise.all([servers[1].restart(), servers[2].restart()]);
    const b = make();
    const lockB = await b.acquire(key, 20_000);
    assert.deepEqual((await lockB.settled).map((x) => x.outcome), ['held-by-other', 'granted', 'granted']);
    // Both hold the lock for a while, as two workers would: longer than the clock tolerance
    // the audit allows, or a fast machine releases within it and the overlap is forgiven.
    const grantedAt = Date.now();
    await waitFor(() => Date.now() - grantedAt > 4 * AUDIT_TOLERANCE_MS, 5000, 'both holders to hold a while');
    await b.release(lockB);
    await a.release(lockA);
    await Promise.all([done(a), done(b)]);
    const report = await make().audit({ resource: key });
    assert.deepEqual(summary(report), [`overlap audit:restart ${lockA.token.slice(0, 8)}/${lockB.token.slice(0, 8)}`]);
    assert.deepEqual(report.findings[0].evidence.map((e) => `${e.type} ${e.token === lockA.token ? 'A' : 'B'}`), ['acquired A', 'acquired B']);
  });

  it('fences handed out through rotating quorums ({a,b}, {a,c}, {b,c}) stay in order: no finding', async () => {
    const key = 'audit:fences';
    const rl = make({ commandTimeoutMs: 100 });
    const fences: number[] = [];
    for (let round = 0; round < 6; round++) {
      const paused = servers[2 - (round % 3)];
      paused.pause();
      try {
        const lock = await rl.acquire(key, 5000, { fencing: true });
        fences.push(lock.fence!);
        await rl.release(lock);
      } finally {
        paused.resume();
      }
    }
    await done(rl);
    assert.deepEqual(fences, [...fences].sort((x, y) => x - y));
    const report = await make().audit({ resource: key });
    assert.deepEqual(summary(report), []);
  });

  it('a clean run: 10,000 acquisitions by 8 contending clients over 200 locks give no finding', async () => {
    const clients = Array.from({ length: 8 }, () => make({ retryCount: 200, retryDelayMs: 2, retryJitterMs: 3, commandTimeoutMs: 500 }));
    let taken = 0;
    let contended = 0;
    const TOTAL = 10_000;
    await Promise.all(clients.map(async (rl, c) => {
      for (let i = 0; taken < TOTAL; i++) {
        const key = `audit:clean:${(c * 7919 + i * 31) % 200}`;
        try {
          const lock = await rl.acquire(key, 2000);
          taken++;
          await rl.release(lock);
        } catch (e) {
          if (!(e instanceof RedlockError)) throw e;
          contended++;
        }
      }
    }));
    await Promise.all(clients.map(done));
    const report = await make().audit({ pattern: 'audit:clean:*' });
    assert.ok(taken >= TOTAL);
    assert.equal(report.resources, 200);
    assert.deepEqual(summary(report), [], `contended ${contended}`);
  });

  it('bad input: a resource and --pattern together, or a bad --since: exit 2 with one line', async () => {
    const nodes = servers.flatMap((s) => ['--node', s.url]);
    const both = await runCli(['audit', 'x', '--pattern', 'y*', ...nodes]);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /give a resource or --pattern, not both/);
    const since = await runCli(['audit', '--since', 'soon', ...nodes]);
    assert.equal(since.code, 2);
    assert.match(since.stderr, /invalid --since "soon"/);
  });
});
