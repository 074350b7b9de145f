// The liveness verdict from its signals (pure): "gone" only on two agreeing signals and
// nothing that says the holder still runs; the words every surface shows.
import assert from 'node:assert/strict';
import { judgeLiveness, livenessText, renewalOf, stuckForever, withHoldP95, type LivenessInput } from '../../../src/core/vocabulary/liveness';
import { sortLocks } from '../../../src/shared/lockOrder';
import { lockSeverity } from '../../../src/shared/severity';
import { lockEntry, present } from '../../support/entries';

const base: LivenessInput = { connection: null, process: null, renewal: { state: 'one-read', lastMs: null, everyMs: null }, heldMs: null, validityMs: 12_000, noTtl: false };
const T1 = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';

describe('liveness vocabulary', () => {
  it('renewalOf: the median gap is the interval; stopped once 1.5 intervals pass without one', () => {
    assert.deepEqual(renewalOf([], 1000, 5000), { state: 'never', lastMs: null, everyMs: null, watchedMs: 4000 });
    assert.deepEqual(renewalOf([1000], 0, 1500), { state: 'renewing', lastMs: 500, everyMs: null });
    assert.deepEqual(renewalOf([0, 10_000, 20_000, 31_000], 0, 45_000), { state: 'renewing', lastMs: 14_000, everyMs: 10_000 });
    assert.deepEqual(renewalOf([0, 10_000, 20_000, 31_000], 0, 46_001), { state: 'stopped', lastMs: 15_001, everyMs: 10_000 });
  });

  it('alive: connected and renewing; the line names every signal and says wait', () => {
    const l = judgeLiveness({ ...base, connection: { state: 'connected', connectedOn: 5, asked: 5, idleMs: 0 }, renewal: { state: 'renewing', lastMs: 3000, everyMs: 10_000 }, heldMs: 240_000 });
    assert.equal(l.verdict, 'alive');
    assert.equal(livenessText(l), 'holder alive: connected on 5/5 nodes, idle 0 ms; renewed 3.0 s ago, every 10.0 s; held 4 min 0 s · wait');
    const long = judgeLiveness({ ...base, connection: { state: 'connected', connectedOn: 5, asked: 5, idleMs: null }, heldMs: 240_000, p95Ms: 2000 });
    assert.equal(long.suggestion, 'wait; held 4 min 0 s, p95 is 2.0 s: look at the holder');
  });

  it('stopped renewing: a missed renewal while still connected or paused is never gone', () => {
    const stopped = { state: 'stopped' as const, lastMs: 45_000, everyMs: 10_000 };
    const paused = judgeLiveness({ ...base, connection: { state: 'connected', connectedOn: 3, asked: 3, idleMs: 40_000 }, process: { state: 'paused', pid: 42 }, renewal: stopped });
    assert.equal(paused.verdict, 'stopped-renewing');
    assert.equal(paused.suggestion, 'it expires in 12.0 s by itself: wait, or force-release');
    assert.match(livenessText(paused)!, /no renewal for 45.0 s \(every 10.0 s before\)/);
    // A paused process with no connection left: two signals against it, but it still exists.
    const pausedAlone = judgeLiveness({ ...base, connection: { state: 'absent', asked: 3 }, process: { state: 'paused', pid: 42 }, renewal: stopped });
    assert.equal(pausedAlone.verdict, 'stopped-renewing');
    const forever = judgeLiveness({ ...base, noTtl: true, validityMs: null, connection: { state: 'connected', connectedOn: 1, asked: 1, idleMs: 0 }, renewal: stopped });
    assert.match(forever.suggestion, /no TTL and never expires by itself/);
  });

  it('gone: two agreeing signals and none for it; one missing signal is not enough', () => {
    const killed = judgeLiveness({ ...base, connection: { state: 'absent', asked: 5 }, process: { state: 'exited', pid: 4242 } });
    assert.equal(killed.verdict, 'gone');
    assert.equal(killed.suggestion, 'safe to force-release (compare-and-delete on the token shown; connection and process agree)');
    const remote = judgeLiveness({ ...base, connection: { state: 'absent', asked: 5 }, process: { state: 'elsewhere', host: 'web-2' }, renewal: { state: 'stopped', lastMs: 40_000, everyMs: 10_000 } });
    assert.equal(remote.verdict, 'gone');
    assert.match(remote.suggestion, /connection and renewal agree/);
    // One signal only: no connection, nothing else known.
    assert.equal(judgeLiveness({ ...base, connection: { state: 'absent', asked: 5 } }).verdict, 'unknown');
    // The pid exited, but a connection names the holder: its random process id is connected, so it runs (a pid from another namespace).
    assert.equal(judgeLiveness({ ...base, connection: { state: 'connected', connectedOn: 1, asked: 5, idleMs: 0 }, process: { state: 'exited', pid: 7 } }).verdict, 'alive');
    // A stopped pulse alone, and a stopped pulse with a running pid: stopped renewing, not gone.
    assert.equal(judgeLiveness({ ...base, renewal: { state: 'stopped', lastMs: 40_000, everyMs: 10_000 } }).verdict, 'stopped-renewing');
    assert.equal(judgeLiveness({ ...base, connection: { state: 'absent', asked: 5 }, process: { state: 'running', pid: 7 }, renewal: { state: 'stopped', lastMs: 40_000, everyMs: 10_000 } }).verdict, 'stopped-renewing');
    const reused = judgeLiveness({ ...base, connection: { state: 'absent', asked: 1 }, process: { state: 'reused', pid: 9 } });
    assert.equal(reused.verdict, 'gone');
    assert.match(livenessText(reused)!, /pid 9 on this host belongs to a process started after the lock was taken/);
  });

  it('withHoldP95: a hold past its own p95 is worth a look; other verdicts keep their suggestion', () => {
    const alive = judgeLiveness({ ...base, connection: { state: 'connected', connectedOn: 1, asked: 1, idleMs: 0 }, heldMs: 240_000 });
    const weighed = withHoldP95(alive, 2000);
    assert.equal(weighed.suggestion, 'wait; held 4 min 0 s, p95 is 2.0 s: look at the holder');
    assert.equal(weighed.evidence.find((e) => e.kind === 'history')!.says, 'held 4 min 0 s, p95 is 2.0 s');
    assert.equal(withHoldP95(alive, 600_000).suggestion, 'wait');
    assert.equal(withHoldP95(alive, null), alive);
    const gone = judgeLiveness({ ...base, connection: { state: 'absent', asked: 1 }, process: { state: 'exited', pid: 3 }, heldMs: 240_000 });
    assert.equal(withHoldP95(gone, 2000).suggestion, gone.suggestion);
  });

  it('unknown: the evidence says what was not available, the suggestion what would tell', () => {
    const l = judgeLiveness({ ...base, connection: { state: 'unknown', reason: 'CLIENT LIST denied on n1 (NOPERM)' } });
    assert.equal(l.verdict, 'unknown');
    assert.deepEqual(l.evidence.map((e) => e.says), ['CLIENT LIST denied on n1 (NOPERM)', 'no renewal seen (one read)']);
    assert.equal(l.suggestion, 'not enough evidence: watch it to see whether it renews');
    // One line on every surface: each missing signal is said once.
    assert.equal(livenessText(l), 'holder unknown: CLIENT LIST denied on n1 (NOPERM); no renewal seen (one read) · not enough evidence: watch it to see whether it renews');
    const watched = judgeLiveness({ ...base, noTtl: true, validityMs: null, renewal: { state: 'never', lastMs: null, everyMs: null, watchedMs: 3000 } });
    assert.equal(watched.suggestion, 'not enough evidence: keep watching for a renewal; it has no TTL, so it stays until someone releases it');
    const paused = judgeLiveness({ ...base, process: { state: 'paused', pid: 7 } });
    assert.equal(paused.verdict, 'unknown');
    assert.equal(paused.suggestion, 'not enough evidence: its process may resume and renew; look at it on this host before you force-release');
  });

  it('a lock without TTL whose holder is gone is stuck forever: first of all, error severity', () => {
    const gone = judgeLiveness({ ...base, noTtl: true, validityMs: null, connection: { state: 'absent', asked: 3 }, process: { state: 'exited', pid: 1 } });
    assert.match(gone.suggestion, /^stuck forever: it has no TTL; safe to force-release/);
    const stuck = { ...lockEntry('z-stuck', [present('a', T1, -1), present('b', T1, -1), present('c', T1, -1)]), liveness: gone };
    const noTtl = lockEntry('a-no-ttl', [present('a', T1, -1), present('b', T1, -1), present('c', T1, -1)]);
    const split = lockEntry('b-split', [present('a', T1), present('b', 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'), present('c', 'cccccccccccccccccccccccccccccccc')]);
    assert.ok(stuckForever(stuck));
    assert.ok(!stuckForever(noTtl));
    assert.deepEqual(sortLocks([noTtl, split, stuck]).map((l) => l.key), ['z-stuck', 'b-split', 'a-no-ttl']);
    assert.equal(lockSeverity(stuck), 'error');
    assert.equal(lockSeverity(noTtl), 'warning');
  });
});
