// The Prometheus exporter scraped over HTTP on seeded nodes: 503 before the first
// snapshot, then every metric with the value the nodes hold; and the CLI command end to end.
import assert from 'node:assert/strict';
import { createServer, get, request, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Redlock } from '../../src/core';
import { parseListen } from '../../src/cli/commands/exporter';
import { Exporter } from '../../src/cli/exporterMetrics';
import { RedisServer, startNodes, withClient } from '../../src/dev/redisServer';
import { waitFor } from '../support/wait';
import { runCli, startCli } from './runCli';

interface Scrape {
  status: number;
  type: string;
  body: string;
}

function scrape(url: string): Promise<Scrape> {
  return new Promise((resolve, reject) => {
    get(url, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }));
    }).on('error', reject);
  });
}

/** `name{labels} value` lines as a map from `name{labels}` (labels as printed) to the value. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    out.set(line.slice(0, i), Number(line.slice(i + 1)));
  }
  return out;
}

function value(m: Map<string, number>, series: string): number {
  const v = m.get(series);
  assert.ok(v !== undefined, `${series} missing; have ${[...m.keys()].join(', ')}`);
  return v;
}

describe('exporter', function () {
  this.timeout(60_000);
  let servers: RedisServer[];
  let ids: string[];
  before(async () => {
    servers = await startNodes(3);
    ids = servers.map((s) => `127.0.0.1:${s.port}`);
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.dispose()));
  });

  async function seed(): Promise<void> {
    await Promise.all(servers.map((s, i) => withClient(s, async (c) => {
      await c.set('lock:held', 'token-held', 'PX', 60_000);
      await c.set('lock:forever', 'token-forever');
      // split: two tokens on two nodes each would need four; one node each gives two holders.
      if (i < 2) await c.set('lock:split', i === 0 ? 'token-a' : 'token-b', 'PX', 30_000);
      if (i === 0) await c.set('lock:partial', 'token-p', 'PX', 30_000);
    })));
  }

  describe('in process', () => {
    let rl: Redlock;
    let exporter: Exporter;
    let http: Server;
    let url: string;
    beforeEach(async () => {
      await seed();
      // Generous deadlines: on a loaded machine a slow answer must not read as a node down.
      rl = new Redlock(servers.map((s) => s.url), { readTimeoutMs: 2000, commandTimeoutMs: 2000 });
      exporter = new Exporter(rl, { patterns: ['lock:*'], intervalMs: 100, historyEveryMs: 0 });
      http = createServer((req, res) => exporter.handle(req, res));
      await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()));
      url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    });
    afterEach(async () => {
      for (const s of servers) s.resume();
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
      await exporter.stop();
      await rl.quit();
      await Promise.all(servers.map((s) => withClient(s, (c) => c.flushall())));
    });

    it('answers 503 before the first snapshot, then serves every metric with the right value', async () => {
      // The watcher has not started: there is no snapshot to report yet.
      const early = await scrape(`${url}/metrics`);
      assert.equal(early.status, 503);
      assert.match(early.body, /no snapshot yet/);
      exporter.start();
      const ok = await waitFor(async () => { const r = await scrape(`${url}/metrics`); return r.status === 200 && r; }, 10_000, 'first snapshot');
      assert.match(ok.type, /^text\/plain; version=0\.0\.4/);
      const m = samples(ok.body);
      assert.equal(value(m, 'redlock_locks{verdict="held"}'), 2);
      assert.equal(value(m, 'redlock_locks{verdict="split"}'), 1);
      assert.equal(value(m, 'redlock_locks{verdict="partial"}'), 1);
      assert.equal(value(m, 'redlock_locks{verdict="unknown"}'), 0);
      assert.equal(value(m, 'redlock_lock_flags{flag="no-ttl"}'), 1);
      assert.equal(value(m, 'redlock_lock_flags{flag="degraded"}'), 0);
      assert.equal(value(m, 'redlock_lock_flags{flag="reentrant"}'), 0);
      // Plain tokens name no holder to look for: both held locks are unknown, every verdict listed.
      assert.equal(value(m, 'redlock_lock_holders{liveness="unknown"}'), 2);
      for (const v of ['alive', 'stopped-renewing', 'gone']) assert.equal(value(m, `redlock_lock_holders{liveness="${v}"}`), 0);
      assert.equal(value(m, 'redlock_quorum'), 2);
      assert.equal(value(m, 'redlock_scan_truncated'), 0);
      const longest = value(m, 'redlock_longest_ttl_seconds');
      assert.ok(longest > 30 && longest <= 60, String(longest));
      for (const id of ids) {
        assert.equal(value(m, `redlock_node_up{node="${id}"}`), 1);
        assert.ok(value(m, `redlock_node_latency_seconds{node="${id}"}`) > 0);
        // Same machine, same clock: the offset is within the measurement's own error.
        assert.ok(Math.abs(value(m, `redlock_node_clock_offset_seconds{node="${id}"}`)) < 1);
        // Fresh nodes without persistence, a lock without expiry: the restart rule applies.
        assert.equal(value(m, `redlock_node_restart_risk{node="${id}"}`), 1);
      }
      assert.ok(value(m, 'redlock_scrape_duration_seconds') >= 0);
      assert.match(ok.body, /# HELP redlock_locks /);
      assert.match(ok.body, /# TYPE redlock_node_up gauge/);
    });

    it('hold times by key pattern and safety findings from recorded events', async () => {
      const key = 'lock:hist:orders:1';
      const recorder = new Redlock(servers.map((s) => s.url), { events: true });
      try {
        for (let i = 0; i < 2; i++) await recorder.release(await recorder.acquire(key, 5000));
        // A holder whose lease runs out, another takes the lock, then the first releases: past-lease.
        const late = await recorder.acquire(key, 100);
        await waitFor(async () => (await Promise.all(servers.map((s) => withClient(s, (c) => c.exists(key))))).every((n) => n === 0), 5000, 'the short lease to run out');
        await recorder.acquire(key, 30_000);
        await recorder.release(late);
      } finally {
        await recorder.quit();
      }
      exporter.start();
      const ok = await waitFor(async () => { const r = await scrape(`${url}/metrics`); return r.status === 200 && r; }, 10_000, 'first snapshot');
      const m = samples(ok.body);
      assert.equal(value(m, 'redlock_hold_seconds_count{pattern="lock:hist:orders:*"}'), 3);
      assert.ok(value(m, 'redlock_hold_seconds_sum{pattern="lock:hist:orders:*"}') < 10);
      assert.equal(value(m, 'redlock_safety_violations_total{kind="past-lease"}'), 1);
      assert.equal(value(m, 'redlock_safety_violations_total{kind="overlap"}'), 0);
      assert.equal([...m.keys()].some((k) => k.includes('lock:hist:orders:1')), false, 'a key never becomes a label');
      // Counted once: the next scrape reads the same events again (historyEveryMs 0) and adds nothing.
      const again = samples((await scrape(`${url}/metrics`)).body);
      assert.equal(value(again, 'redlock_hold_seconds_count{pattern="lock:hist:orders:*"}'), 3);
    });

    it('counts every short contended hold under its pattern, though no scrape saw one held', async () => {
      await exporter.stop();
      // Only the locks' own pattern, scraped every interval while the holds run, as Prometheus would.
      const short = new Exporter(rl, { patterns: ['wh:*'], intervalMs: 500 });
      const holder = new Redlock(servers.map((s) => s.url), { events: true, retryDelayMs: 5, retryJitterMs: 5 });
      short.start();
      let scraping = true;
      const scrapes = (async () => {
        while (scraping) {
          await short.metrics();
          await new Promise((r) => setTimeout(r, 500));
        }
      })();
      try {
        // 4 keys, 2 workers each, 25 holds per worker of 2 to 6 ms: 200 holds, each contended.
        await Promise.all(Array.from({ length: 8 }, async (_, w) => {
          for (let i = 0; i < 25; i++) {
            const lock = await holder.acquire(`wh:${w % 4}`, 5000, { retryCount: 1000 });
            await new Promise((r) => setTimeout(r, 2 + (i % 5)));
            await holder.release(lock);
          }
        }));
      } finally {
        await holder.quit();
      }
      try {
        const count = (text: string | undefined): number => samples(text ?? '').get('redlock_hold_seconds_count{pattern="wh:*"}') ?? 0;
        await waitFor(async () => count(await short.metrics()) === 200 || undefined, 10_000, '200 holds counted');
        const m = samples((await short.metrics()) ?? '');
        assert.ok(value(m, 'redlock_hold_seconds_sum{pattern="wh:*"}') < 200 * 0.5, 'short holds, not their lease ends');
        assert.ok(value(m, 'redlock_wait_seconds_count{pattern="wh:*"}') > 0, 'contended: some acquisitions waited');
      } finally {
        scraping = false;
        await scrapes;
        await short.stop();
      }
    });

    it('follows changes: a released lock, and a node that stops answering', async () => {
      exporter.start();
      await waitFor(async () => (await scrape(`${url}/metrics`)).status === 200, 10_000, 'first snapshot');
      await Promise.all(servers.map((s) => withClient(s, (c) => c.del('lock:partial'))));
      await waitFor(async () => samples((await scrape(`${url}/metrics`)).body).get('redlock_locks{verdict="partial"}') === 0, 10_000, 'partial gone');
      servers[2].pause();
      const m = await waitFor(async () => {
        const s = samples((await scrape(`${url}/metrics`)).body);
        return s.get(`redlock_node_up{node="${ids[2]}"}`) === 0 && (s.get('redlock_lock_flags{flag="degraded"}') ?? 0) > 0 && s;
      }, 15_000, 'node down and locks degraded');
      // A node that does not answer has no latency or clock offset to report.
      assert.equal(m.get(`redlock_node_latency_seconds{node="${ids[2]}"}`), undefined);
      assert.equal(m.get(`redlock_node_up{node="${ids[0]}"}`), 1);
    });

    it('answers 404 elsewhere and 405 to other methods; only reads', async () => {
      const before = await Promise.all(servers.map((s) => withClient(s, async (c) => String(await c.call('DEBUG', 'DIGEST')))));
      exporter.start();
      await waitFor(async () => (await scrape(`${url}/metrics`)).status === 200, 10_000, 'first snapshot');
      assert.equal((await scrape(`${url}/nope`)).status, 404);
      assert.equal((await scrape(`${url}/`)).status, 200);
      const post = await new Promise<number>((resolve, reject) => {
        const req = request(`${url}/metrics`, { method: 'POST' }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
      assert.equal(post, 405);
      const after = await Promise.all(servers.map((s) => withClient(s, async (c) => String(await c.call('DEBUG', 'DIGEST')))));
      assert.deepEqual(after, before);
    });
  });

  describe('command line', () => {
    it('serves /metrics on the address it prints, and stops on SIGTERM with exit 0', async () => {
      await seed();
      const child = startCli(['exporter', '--listen', '127.0.0.1:0', '--interval', '200', '--pattern', 'lock:*', ...servers.flatMap((s) => ['--node', s.url])]);
      child.stdin!.end();
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (d) => (stdout += String(d)));
      child.stderr!.on('data', (d) => (stderr += String(d)));
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      try {
        const address = await waitFor(() => /serving (http:\/\/\S+\/metrics)/.exec(stdout)?.[1], 10_000, 'listening line');
        const r = await waitFor(async () => { const x = await scrape(address); return x.status === 200 && x; }, 10_000, 'metrics');
        const m = samples(r.body);
        assert.equal(value(m, 'redlock_locks{verdict="held"}'), 2);
        assert.equal(value(m, `redlock_node_up{node="${ids[0]}"}`), 1);
      } finally {
        child.kill('SIGTERM');
      }
      assert.equal(await exited, 0, stderr);
      await Promise.all(servers.map((s) => withClient(s, (c) => c.flushall())));
    });

    it('--listen takes HOST:PORT and [v6]:PORT, port 0 for any free port', () => {
      assert.deepEqual(parseListen('127.0.0.1:9464'), { host: '127.0.0.1', port: 9464 });
      assert.deepEqual(parseListen('[::1]:0'), { host: '::1', port: 0 });
      assert.deepEqual(parseListen('localhost:9464'), { host: 'localhost', port: 9464 });
      for (const bad of [':9464', '127.0.0.1', '127.0.0.1:99999', '127.0.0.1:-1', '::1:9464', 'a b:1']) assert.throws(() => parseListen(bad), /expected HOST:PORT/, bad);
    });

    it('bad --listen and a missing --listen are usage errors (exit 2)', async () => {
      assert.equal((await runCli(['exporter', '--node', servers[0].url])).code, 2);
      const bad = await runCli(['exporter', '--listen', 'nowhere', '--node', servers[0].url]);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /invalid --listen "nowhere": expected HOST:PORT/);
    });
  });
});
