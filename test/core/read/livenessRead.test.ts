// Is the holder alive? Real holders in processes of their own, killed and paused, a
// Redisson-layout lock and a lock whose token names no holder, renewed by a script, and a
// user denied CLIENT LIST; on real nodes. The renewal pulse's bound and its stopping
// instant, on built entries.
import assert from 'node:assert/strict';
import Redis from 'ioredis';
import { Redlock, type LockEntry, type LivenessVerdict, type Watcher } from '../../../src/core';
import { useNodes } from '../../support/nodesFixture';
import { waitFor } from '../../support/wait';
import { startWorker, stopWorker, type Worker } from '../../support/holderProcess';
import { lockEntry, present } from '../../support/entries';
import { judgeHolders, oneReadLiveness, RenewalPulse } from '../../../src/core/read/livenessRead';
import type { InspectContext } from '../../../src/core/read/context';

const UUID = '3b2a7c10-8d4e-4f6a-9b1c-0d2e3f405162';

describe('liveness: is the holder alive?', function () {
  this.timeout(60_000);
  const fx = useNodes(3, { commandTimeoutMs: 500, readTimeoutMs: 1000 });
  const workers: Worker[] = [];
  const watchers: Watcher[] = [];
  const clients: Redis[] = [];
  afterEach(async () => {
    await Promise.all(watchers.splice(0).map((w) => w.stop()));
    for (const w of workers.splice(0)) {
      w.proc.kill('SIGCONT');
      await stopWorker(w);
    }
    clients.splice(0).forEach((c) => c.disconnect());
  });

  function watch(rl: Redlock): Watcher {
    const errors: unknown[] = [];
    const w = rl.watch({ intervalMs: 100 }, { error: (e) => errors.push(e) });
    watchers.push(w);
    return w;
  }

  /** The watched entry of `key` once its verdict is `verdict`; every verdict seen on the way goes to `seen`. */
  async function until(w: Watcher, key: string, verdict: LivenessVerdict, timeoutMs: number, seen: LivenessVerdict[] = []): Promise<LockEntry> {
    return waitFor(() => {
      const e = w.snapshot()?.locks.find((l) => l.key === key);
      const v = e?.liveness?.verdict;
      if (v !== undefined && seen[seen.length - 1] !== v) seen.push(v);
      return v === verdict ? e : undefined;
    }, timeoutMs, `${key} ${verdict}`);
  }

  const says = (e: LockEntry, kind: string): string => e.liveness!.evidence.filter((x) => x.kind === kind).map((x) => x.says).join(' | ');

  /** The watched entry of `key` once its `kind` evidence matches `pattern`. */
  function untilSays(w: Watcher, key: string, kind: string, pattern: RegExp, timeoutMs: number): Promise<LockEntry> {
    return waitFor(() => {
      const e = w.snapshot()?.locks.find((l) => l.key === key);
      return e?.liveness && pattern.test(says(e, kind)) ? e : undefined;
    }, timeoutMs, `${key}: ${kind} evidence ${pattern}`);
  }

  it('a using() holder killed with SIGKILL is "gone" at the next refresh, on two agreeing signals', async () => {
    const worker = startWorker({ urls: fx.servers.map((s) => s.url), name: 'killed-worker', using: 'lock:job', ttlMs: 2000 });
    workers.push(worker);
    await worker.said('held');
    const w = watch(fx.rl);
    const alive = await until(w, 'lock:job', 'alive', 10_000);
    assert.match(says(alive, 'connection'), /^connected on 3\/3 nodes/);
    assert.match(says(alive, 'process'), new RegExp(`^pid ${worker.pid} on this host is running`));
    // It renews at half its TTL: the pulse is seen before the kill.
    await untilSays(w, 'lock:job', 'renewal', /^renewed .* ago, every/, 10_000);
    worker.proc.kill('SIGKILL');
    await worker.exited;
    const seen: LivenessVerdict[] = [];
    const gone = await until(w, 'lock:job', 'gone', 5_000, seen);
    assert.deepEqual(seen.filter((v) => v !== 'alive' && v !== 'stopped-renewing' && v !== 'gone'), []);
    assert.match(says(gone, 'connection'), /^no connection on any of 3 nodes/);
    assert.match(says(gone, 'process'), new RegExp(`^pid ${worker.pid} on this host has exited`));
    assert.match(gone.liveness!.suggestion, /safe to force-release \(compare-and-delete on the token shown; connection and process agree\)/);
  });

  it('a SIGSTOPped holder is "stopped renewing", never "gone", and "alive" again after SIGCONT and its next renewal', async () => {
    const worker = startWorker({ urls: fx.servers.map((s) => s.url), name: 'paused-worker', using: 'lock:paused', ttlMs: 6000 });
    workers.push(worker);
    await worker.said('held');
    const w = watch(fx.rl);
    await untilSays(w, 'lock:paused', 'renewal', /^renewed .* ago, every/, 15_000);
    worker.proc.kill('SIGSTOP');
    const seen: LivenessVerdict[] = [];
    const stopped = await until(w, 'lock:paused', 'stopped-renewing', 10_000, seen);
    assert.match(says(stopped, 'renewal'), /^no renewal for .* \(every .* before\)$/);
    assert.match(says(stopped, 'process'), /is paused/);
    assert.match(says(stopped, 'connection'), /^connected on 3\/3 nodes/);
    assert.match(stopped.liveness!.suggestion, /^it expires in .* by itself: wait, or force-release$/);
    worker.proc.kill('SIGCONT');
    await until(w, 'lock:paused', 'alive', 10_000, seen);
    assert.ok(!seen.includes('gone'), `verdicts seen: ${seen.join(', ')}`);
  });

  /**
   * `key`, written on every node by `write`, renewed every second by a script until it is
   * "alive" with an interval (`alive` checks that entry); then the renewals stop, and it
   * must turn "stopped renewing" once a renewal is missed, 1.5 intervals after the last.
   */
  async function renewThenStop(key: string, write: (c: Redis) => Promise<unknown>, alive: (e: LockEntry) => void): Promise<void> {
    const cs = fx.servers.map((s) => new Redis(s.url));
    clients.push(...cs);
    const renew = (): Promise<unknown> => Promise.all(cs.map((c) => c.pexpire(key, 3000)));
    await Promise.all(cs.map(write));
    await renew();
    const w = watch(fx.rl);
    // The script's pulse: every 1 s (Redisson's watchdog: every lockWatchdogTimeout/3).
    let renewals = 0;
    const timer = setInterval(() => void renew().then(() => renewals++), 1000);
    try {
      const e = await untilSays(w, key, 'renewal', /^renewed .* ago, every/, 10_000);
      assert.equal(e.liveness!.verdict, 'alive');
      assert.match(says(e, 'renewal'), /^renewed .* ago, every (9\d\d ms|1\.[01] s)$/);
      alive(e);
    } finally {
      clearInterval(timer);
    }
    const stoppedAt = Date.now();
    const stopped = await until(w, key, 'stopped-renewing', 5_000);
    assert.ok(Date.now() - stoppedAt >= 300, 'not before a renewal was missed');
    const m = /^no renewal for (\d\.\d) s \(every (9\d\d ms|1\.[01] s) before\)$/.exec(says(stopped, 'renewal'));
    assert.ok(m, says(stopped, 'renewal'));
    // Both figures are shown rounded down (to 0.1 s, or to the ms), so the silence shown may
    // sit up to 0.1 s under 1.5 times the interval shown; it must never sit further under it.
    const silentS = Number(m[1]);
    const everyS = m[2].endsWith(' ms') ? Number.parseInt(m[2], 10) / 1000 : Number.parseFloat(m[2]);
    assert.ok(silentS + 0.1 >= 1.5 * everyS && silentS < 3, `silent ${silentS} s against every ${everyS} s`);
    assert.ok(renewals >= 2);
  }

  it('a Redisson-layout lock renewed by a script is "alive"; when the script stops, "stopped renewing" after 1.5 intervals', async () => {
    await renewThenStop('myLock:job', (c) => c.hset('myLock:job', `${UUID}:61`, '1'), (e) => {
      assert.match(says(e, 'connection'), /no connection names this holder/);
    });
  });

  it('a lock whose token names no holder (a random hex token) renewed every second is "alive", and "stopped renewing" 1.5 intervals after its last renewal though its key is never read again', async () => {
    await renewThenStop('lock:anonymous', (c) => c.set('lock:anonymous', 'a3f1'.repeat(10), 'PX', 3000), (e) => {
      assert.equal(e.holder ?? null, null, 'a token that names no holder');
      assert.match(says(e, 'connection'), /its token names no client to look for/);
    });
  });

  it('a user denied CLIENT LIST gets "unknown" with the reason, and no error', async () => {
    for (const s of fx.servers) {
      const c = s.client();
      await c.call('ACL', 'SETUSER', 'noclients', 'on', '>pw-noclients', '~*', '&*', '+@all', '-client');
      await c.hset('myLock:denied', `${UUID}:7`, '1');
      await c.pexpire('myLock:denied', 60_000);
      c.disconnect();
    }
    const rl = new Redlock(fx.servers.map((s) => s.url.replace('redis://', 'redis://noclients:pw-noclients@')), { commandTimeoutMs: 500, readTimeoutMs: 1000 });
    try {
      const snap = await rl.inspect();
      const e = snap.locks.find((l) => l.key === 'myLock:denied')!;
      assert.equal(e.liveness?.verdict, 'unknown');
      assert.match(says(e, 'connection'), /^CLIENT LIST denied on .* \(NOPERM/);
      assert.equal(says(e, 'renewal'), 'no renewal seen (one read)');
      assert.equal(e.liveness!.suggestion, 'not enough evidence: watch it to see whether it renews');
    } finally {
      await rl.quit();
      for (const s of fx.servers) {
        const c = s.client();
        await c.call('ACL', 'DELUSER', 'noclients');
        c.disconnect();
      }
    }
  });

  it('one read of locks whose tokens name no holder: each judged "unknown" as its entry is built, one judgement for all, never copied to add it', async () => {
    for (const s of fx.servers) {
      const n = s.client();
      clients.push(n);
      await n.set('lock:anon-a', 'a'.repeat(40), 'PX', 60_000);
      await n.set('lock:anon-b', 'b'.repeat(40), 'PX', 60_000);
      await n.set('lock:anon-forever', 'c'.repeat(40));
    }
    const snap = await fx.rl.inspect();
    const [a, b, forever] = ['lock:anon-a', 'lock:anon-b', 'lock:anon-forever'].map((k) => snap.locks.find((l) => l.key === k)!);
    assert.equal(a.liveness?.verdict, 'unknown');
    assert.equal(says(a, 'connection'), 'its token names no client to look for');
    assert.equal(says(a, 'renewal'), 'no renewal seen (one read)');
    assert.deepEqual(a.liveness, oneReadLiveness(false));
    // One value, not one per lock: the snapshot of 100k such locks built each entry once.
    assert.equal(a.liveness, b.liveness);
    assert.ok(Object.isFrozen(a.liveness) && Object.isFrozen(a.liveness!.evidence[0]));
    assert.deepEqual(forever.liveness, oneReadLiveness(true));
    assert.ok(forever.flags.includes('no-ttl'));
  });

  it('one read of a lock held in this process: connected and running, no renewal seen', async () => {
    await fx.rl.acquire('lock:mine', 60_000);
    const e = (await fx.rl.inspect()).locks.find((l) => l.key === 'lock:mine')!;
    assert.equal(e.liveness?.verdict, 'alive');
    assert.match(says(e, 'connection'), /^connected on 3\/3 nodes/);
    assert.match(says(e, 'process'), new RegExp(`^pid ${process.pid} on this host is running`));
    assert.equal(says(e, 'renewal'), 'no renewal seen (one read)');
    assert.match(says(e, 'history'), /^held \d/);
  });
});

describe('liveness: the renewal pulse a watch keeps', () => {
  it('keeps at most its bound of locks, dropping the oldest, and still follows the newest', () => {
    const pulse = new RenewalPulse(100);
    for (let i = 0; i < 1_000; i++) pulse.note(lockEntry(`k${i}`, [present('a', `t${i}`, 10_000)]), `k${i}`, [], false, 1_000);
    assert.ok(pulse.size <= 100 && pulse.size >= 90, String(pulse.size));
    // The newest lock's pulse is kept: its next expiry jump is a renewal.
    pulse.note(lockEntry('k999', [present('a', 't999', 10_000)]), 'k999', [], false, 5_000);
    assert.equal(pulse.signal('k999', 't999', 5_000).lastMs, 0);
    // The oldest was dropped: the same jump starts it anew, no renewal seen.
    pulse.note(lockEntry('k0', [present('a', 't0', 10_000)]), 'k0', [], false, 5_000);
    assert.equal(pulse.signal('k0', 't0', 5_000).lastMs, null);
  });

  it('notes a read of more new locks than its bound as one at a time would: the newest kept, the older ones not', () => {
    const entry = (i: number): LockEntry => lockEntry(`k${i}`, [present('a', `t${i}`, 10_000)]);
    const read = Array.from({ length: 1_000 }, (_, i) => entry(i));
    const all = new RenewalPulse(100);
    all.noteAll(read, read.map((e) => e.key), [], false, 1_000);
    const one = new RenewalPulse(100);
    read.forEach((e) => one.note(e, e.key, [], false, 1_000));
    for (const pulse of [all, one]) {
      assert.ok(pulse.size <= 100 && pulse.size >= 90, String(pulse.size));
      // A kept pulse turns the next expiry jump into a renewal; a dropped one starts anew.
      for (const i of [950, 999]) pulse.noteAll([entry(i)], [`k${i}`], [], false, 3_000);
      pulse.noteAll([entry(10)], ['k10'], [], false, 3_000);
      assert.equal(pulse.signal('k950', 't950', 3_000).lastMs, 0);
      assert.equal(pulse.signal('k999', 't999', 3_000).lastMs, 0);
      assert.equal(pulse.signal('k10', 't10', 3_000).lastMs, null);
    }
  });

  it('judges a held lock whose token names no holder before its read is noted only where noting cannot move it: no pulse yet, or another token', async () => {
    const pulse = new RenewalPulse();
    const entry = lockEntry('k', [present('a', 't', 10_000)]);
    const built = pulse.judgedAtBuild('k', 't', false);
    assert.ok(built);
    // What the stage gives once the read is noted: the same words, and the entry that already carries them stands.
    pulse.noteAll([entry], ['k'], [], false, 1_000);
    const ctx = {} as InspectContext;
    const [judged] = await judgeHolders(ctx, [], [entry], 1_000, pulse);
    // One value for every lock whose pulse starts now, not one judged per lock.
    assert.equal(judged.liveness, built);
    const carried = { ...entry, liveness: built };
    const [kept] = await judgeHolders(ctx, [], [carried], 1_000, pulse, (x, y) => x.verdict === y.verdict);
    assert.equal(kept, carried);
    // Its pulse now holds the token: the next read may be a renewal, which only the stage can tell.
    assert.equal(pulse.judgedAtBuild('k', 't', false), undefined);
    assert.ok(pulse.judgedAtBuild('k', 'another', false));
  });

  it('says when time alone would turn a renewing lock stopped: 1.5 of its intervals after its last renewal, never with fewer than two renewals or for another token', () => {
    const pulse = new RenewalPulse();
    const at = (t: number): void => pulse.note(lockEntry('k', [present('a', 't', 10_000)]), 'k', [], false, t);
    at(1_000);
    at(2_000);
    assert.equal(pulse.stopsAt('k', 't'), Infinity, 'one renewal: no interval yet');
    at(3_000);
    assert.equal(pulse.stopsAt('k', 't'), 4_500);
    assert.equal(pulse.signal('k', 't', 4_500).state, 'renewing');
    assert.equal(pulse.signal('k', 't', 4_501).state, 'stopped');
    assert.equal(pulse.stopsAt('k', 'another'), Infinity);
    assert.equal(pulse.stopsAt('unknown', 't'), Infinity);
  });
});
