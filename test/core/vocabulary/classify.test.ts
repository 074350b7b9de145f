import assert from 'node:assert/strict';
import fc from 'fast-check';
import { classify, skipReason, type ClassifyInput } from '../../../src/core/vocabulary/classify';
import { describeVerdict } from '../../../src/core/vocabulary/describe';
import type { Classification, Flag, Observation, Verdict } from '../../../src/core/vocabulary/types';

const NOW = 1_700_000_000_000;

function obs(state: Observation['state'], extra: Partial<Observation> = {}): Observation {
  return { node: 'n', state, token: null, pttlMs: null, type: null, format: null, holdCount: null, reason: null, ...extra };
}
const held = (token: string, pttlMs: number, holdCount: number | null = null): Observation =>
  obs('present', { token, pttlMs, type: 'string', format: 'string', holdCount });
const absent = (): Observation => obs('absent');
const down = (): Observation => obs('unreachable', { reason: 'timeout' });
const unreadable = (reason: string): Observation => obs('unreadable', { reason });

function run(observations: Observation[], opts: Partial<ClassifyInput> = {}): Classification | null {
  return classify({
    observations,
    readAtMs: observations.map(() => NOW),
    nowMs: NOW,
    driftFactor: 0.01,
    expiringThresholdMs: 2000,
    ...opts,
  });
}

// Independent brute-force reading of docs/vocabulary.md, written with plain loops.
function oracle(input: ClassifyInput): Classification | null {
  const n = input.observations.length;
  const q = Math.floor(n / 2) + 1;
  const counts = new Map<string, number>();
  let unreachable = 0;
  for (const o of input.observations) {
    if (o.state === 'present') counts.set(o.token as string, (counts.get(o.token as string) ?? 0) + 1);
    if (o.state === 'unreachable') unreachable++;
  }
  if (counts.size === 0) return null;
  let verdict: Verdict;
  let quorumToken: string | null = null;
  for (const [t, c] of counts) if (c >= q) quorumToken = t;
  if (counts.size >= 2) verdict = 'split';
  else {
    const only = [...counts.values()][0];
    if (only >= q) verdict = 'held';
    else if (only + unreachable >= q) verdict = 'unknown';
    else verdict = 'partial';
  }

  let validityMs: number | null = null;
  let skew = false;
  if (quorumToken !== null) {
    const remaining: number[] = [];
    const expiries: Array<{ at: number; err: number }> = [];
    let largestFinite = -Infinity;
    input.observations.forEach((o, i) => {
      if (o.state !== 'present' || o.token !== quorumToken) return;
      const pttl = o.pttlMs as number;
      if (pttl === -1) {
        remaining.push(Infinity);
        expiries.push({ at: Infinity, err: 0 });
      } else {
        remaining.push(input.readAtMs[i] + pttl - input.nowMs);
        expiries.push({ at: input.readAtMs[i] + pttl, err: input.readErrMs?.[i] ?? 0 });
        if (pttl > largestFinite) largestFinite = pttl;
      }
    });
    // Q-th largest by repeated selection of the maximum.
    const pool = [...remaining];
    let r = NaN;
    for (let k = 0; k < q; k++) {
      let best = 0;
      for (let j = 1; j < pool.length; j++) if (pool[j] > pool[best]) best = j;
      r = pool[best];
      pool.splice(best, 1);
    }
    if (r !== Infinity) validityMs = Math.floor(Math.max(0, r - (input.driftFactor * r + 2)));
    // Apart beyond the allowance even where each instant is off by its error towards the other.
    for (const a of expiries) {
      for (const b of expiries) {
        if (a.at === Infinity && b.at === Infinity) continue;
        if (a.at === Infinity || b.at === Infinity) skew = true;
        else if (a.at - a.err - (b.at + b.err) > input.driftFactor * Math.max(largestFinite, input.expiringThresholdMs) + 2) skew = true;
      }
    }
  }

  const flags: Flag[] = [];
  if (input.observations.some((o) => o.state === 'present' && o.pttlMs === -1)) flags.push('no-ttl');
  if (skew) flags.push('ttl-skew');
  if (validityMs !== null && validityMs < input.expiringThresholdMs) flags.push('expiring');
  if (unreachable > 0) flags.push('degraded');
  if (input.observations.some((o) => o.state === 'present' && (o.holdCount ?? 0) > 1)) flags.push('reentrant');

  const holders: Record<string, number> = Object.create(null);
  for (const [t, c] of counts) holders[t] = c;
  return { verdict, flags, validityMs, quorum: q, holders, quorumToken };
}

const arbObservation: fc.Arbitrary<Observation> = fc.oneof(
  fc.record({
    token: fc.constantFrom('a', 'b', '__proto__'),
    pttlMs: fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: 20_000 })),
    holdCount: fc.option(fc.integer({ min: 1, max: 3 })),
  }).map(({ token, pttlMs, holdCount }) => held(token, pttlMs, holdCount)),
  fc.constant(absent()),
  fc.constant(down()),
  fc.constantFrom('too-large', 'wrong-type').map(unreadable),
);

const arbInput: fc.Arbitrary<ClassifyInput> = fc
  .record({
    observations: fc.array(arbObservation, { minLength: 1, maxLength: 7 }),
    ages: fc.array(fc.integer({ min: 0, max: 5_000 }), { minLength: 7, maxLength: 7 }),
    errs: fc.option(fc.array(fc.oneof(fc.constant(0), fc.double({ min: 0, max: 300, noNaN: true })), { minLength: 7, maxLength: 7 })),
    nowMs: fc.integer({ min: 1_000_000, max: 2_000_000_000_000 }),
    driftFactor: fc.oneof(fc.constantFrom(0, 0.01, 0.1), fc.double({ min: 0, max: 0.2, noNaN: true })),
    expiringThresholdMs: fc.integer({ min: 0, max: 10_000 }),
  })
  .map(({ observations, ages, errs, nowMs, driftFactor, expiringThresholdMs }) => ({
    observations,
    readAtMs: observations.map((_, i) => nowMs - ages[i]),
    ...(errs === null ? {} : { readErrMs: errs }),
    nowMs,
    driftFactor,
    expiringThresholdMs,
  }));

/**
 * One token on every node with expiries close together and read errors of their size: the
 * inputs where a skew turns on the allowance and the errors, rare among arbInput's.
 */
const arbNearSkew: fc.Arbitrary<ClassifyInput> = fc
  .record({
    base: fc.integer({ min: 2_000, max: 20_000 }),
    deltas: fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 3, maxLength: 7 }),
    errs: fc.array(fc.integer({ min: 0, max: 150 }), { minLength: 7, maxLength: 7 }),
  })
  .map(({ base, deltas, errs }) => ({
    observations: deltas.map((d) => held('t', base - d)),
    readAtMs: deltas.map(() => NOW),
    readErrMs: errs,
    nowMs: NOW,
    driftFactor: 0.01,
    expiringThresholdMs: 2000,
  }));

describe('classify', () => {
  it('agrees with a brute-force oracle', () => {
    fc.assert(
      fc.property(fc.oneof(arbInput, arbNearSkew), (input) => {
        const got = classify(input);
        const want = oracle(input);
        if (want === null) return assert.equal(got, null);
        assert.ok(got);
        assert.equal(got.verdict, want.verdict);
        assert.deepEqual(got.flags, want.flags);
        assert.equal(got.validityMs, want.validityMs);
        assert.equal(got.quorum, want.quorum);
        assert.deepEqual({ ...got.holders }, { ...want.holders });
        assert.equal(Object.getPrototypeOf(got.holders), null);
      }),
      { numRuns: 2000 },
    );
  });

  it('split: two tokens present, even when one has a quorum', () => {
    const c = run([held('a', 10_000), held('a', 10_000), held('a', 10_000), held('b', 10_000), absent()]);
    assert.equal(c?.verdict, 'split');
    assert.deepEqual({ ...c?.holders }, { a: 3, b: 1 });
    assert.equal(c?.validityMs, 9898); // a still has a quorum: 10000 - (100 + 2)
  });

  it('held: one token on a quorum', () => {
    const c = run([held('t', 5_000), held('t', 5_000), held('t', 5_000), absent(), absent()]);
    assert.equal(c?.verdict, 'held');
    assert.equal(c?.quorum, 3);
    assert.deepEqual(c?.flags, []);
  });

  it('unknown: copies plus unreachable nodes reach the quorum', () => {
    const c = run([held('t', 5_000), held('t', 5_000), down(), absent(), absent()]);
    assert.equal(c?.verdict, 'unknown');
    assert.equal(c?.validityMs, null);
    assert.deepEqual(c?.flags, ['degraded']);
  });

  it('partial: neither', () => {
    const c = run([held('t', 5_000), held('t', 5_000), absent(), absent(), absent()]);
    assert.equal(c?.verdict, 'partial');
    assert.equal(c?.validityMs, null);
  });

  it('unreadable counts as neither present nor unreachable', () => {
    const c = run([held('t', 5_000), unreadable('wrong-type'), unreadable('too-large')]);
    assert.equal(c?.verdict, 'partial');
    assert.deepEqual(c?.flags, []);
  });

  it('skipped: no present copy gives null and a reason', () => {
    assert.equal(run([absent(), down(), unreadable('too-large')]), null);
    assert.equal(skipReason([absent(), absent()]), 'absent');
    assert.equal(skipReason([down(), down()]), 'unreachable');
    assert.equal(skipReason([absent(), unreadable('wrong-type'), unreadable('wrong-type')]), 'wrong-type');
    assert.equal(skipReason([unreadable('too-large'), unreadable('wrong-type')]), 'too-large, wrong-type');
  });

  it('holders is a null-prototype record, so __proto__ is a token like any other', () => {
    const c = run([held('__proto__', 5_000), held('__proto__', 5_000), absent()]);
    assert.equal(c?.verdict, 'held');
    assert.equal(c?.holders['__proto__'], 2);
    assert.deepEqual(Object.keys(c?.holders ?? {}), ['__proto__']);
  });

  it('validity is the Q-th largest remaining minus drift, rounded down', () => {
    const readAtMs = [NOW - 100, NOW - 300, NOW, NOW, NOW];
    const c = run([held('t', 5_000), held('t', 4_000), held('t', 3_000), absent(), absent()], { readAtMs });
    // remaining 4900, 3700, 3000 -> R = 3000; 3000 - (30 + 2) = 2968
    assert.equal(c?.validityMs, 2968);
    const odd = run([held('t', 1_000)], { driftFactor: 0.02 });
    assert.equal(odd?.validityMs, 978); // 1000 - 20 - 2
    const late = run([held('t', 10)], { readAtMs: [NOW - 100] });
    assert.equal(late?.validityMs, 0);
  });

  it('flag no-ttl, and validity null when the quorum copies never expire', () => {
    const c = run([held('t', -1), held('t', -1), absent()]);
    assert.deepEqual(c?.flags, ['no-ttl']);
    assert.equal(c?.validityMs, null);
    const mixed = run([held('t', -1), held('t', -1), held('t', 5_000)]);
    assert.equal(mixed?.validityMs, null); // Q = 2: the 2nd largest is infinite
  });

  it('flag ttl-skew beyond the drift allowance only', () => {
    const readAtMs = [NOW, NOW, NOW];
    const within = run([held('t', 10_000), held('t', 9_898), absent()], { readAtMs });
    assert.deepEqual(within?.flags, []); // 102 ms apart, allowance 100 + 2
    const beyond = run([held('t', 10_000), held('t', 9_897), absent()], { readAtMs });
    assert.deepEqual(beyond?.flags, ['ttl-skew']);
    const infinite = run([held('t', -1), held('t', 10_000), absent()]);
    assert.deepEqual(infinite?.flags, ['no-ttl', 'ttl-skew']);
    const noQuorum = run([held('t', -1), held('t', 10), absent(), absent()]);
    assert.deepEqual(noQuorum?.flags, ['no-ttl']);
  });

  it('flag ttl-skew only beyond what the read instants may be off: a node clock offset measured over a slow round trip', () => {
    const readAtMs = [NOW, NOW, NOW];
    // 150 ms apart, allowance 102 ms: skewed when the instants are exact.
    const copies = [held('t', 10_000), held('t', 9_850), absent()];
    assert.deepEqual(run(copies, { readAtMs })?.flags, ['ttl-skew']);
    // Each instant may be off by 25 ms (a 50 ms TIME round trip): 100 ms apart at least, within the allowance.
    assert.deepEqual(run(copies, { readAtMs, readErrMs: [25, 25, 0] })?.flags, []);
    // Off by 20 ms each: at least 110 ms apart, beyond it.
    assert.deepEqual(run(copies, { readAtMs, readErrMs: [20, 20, 0] })?.flags, ['ttl-skew']);
    // Seconds apart stays skewed however slow the probe was.
    assert.deepEqual(run([held('t', 10_000), held('t', 5_000), absent()], { readAtMs, readErrMs: [500, 500, 0] })?.flags, ['ttl-skew']);
  });

  it('a lock running down does not turn ttl-skew: below the expiring threshold the allowance stays the one at the threshold', () => {
    const readAtMs = [NOW, NOW, NOW];
    // Copies written 15 ms apart, 700 ms left: the allowance from the time left would be 9 ms.
    const late = run([held('t', 700), held('t', 685), absent()], { readAtMs, expiringThresholdMs: 2_000 });
    assert.deepEqual(late?.flags, ['expiring']); // allowance 20 + 2 ms
    const apart = run([held('t', 700), held('t', 677), absent()], { readAtMs, expiringThresholdMs: 2_000 });
    assert.deepEqual(apart?.flags, ['ttl-skew', 'expiring']); // 23 ms apart: beyond 22
    // Above the threshold the allowance follows the time left, as before.
    assert.deepEqual(run([held('t', 10_000), held('t', 9_897), absent()], { readAtMs, expiringThresholdMs: 2_000 })?.flags, ['ttl-skew']);
  });

  it('flag expiring below the threshold', () => {
    assert.deepEqual(run([held('t', 2_100)], { expiringThresholdMs: 2_100 })?.flags, ['expiring']); // 2077
    assert.deepEqual(run([held('t', 2_100)], { expiringThresholdMs: 2_077 })?.flags, []);
    assert.deepEqual(run([held('t', 1_500)])?.flags, ['expiring']);
  });

  it('flag degraded with any unreachable node', () => {
    assert.deepEqual(run([held('t', 9_000), held('t', 9_000), down()])?.flags, ['degraded']);
  });

  it('flag reentrant with a hold count above 1, in canonical order', () => {
    const c = run([held('t', -1, 2), down(), held('t', -1, 1)]);
    assert.deepEqual(c?.flags, ['no-ttl', 'degraded', 'reentrant']);
  });

  it('puts expiring in its place among the flags as a lock runs down', () => {
    const early = run([held('t', 2_500, 2), down(), held('t', 2_500)], { nowMs: NOW });
    const late = run([held('t', 2_500, 2), down(), held('t', 2_500)], { nowMs: NOW + 1_000 });
    assert.deepEqual(early?.flags, ['degraded', 'reentrant']);
    assert.deepEqual(late?.flags, ['expiring', 'degraded', 'reentrant']);
  });
});

describe('describeVerdict', () => {
  const c = (verdict: Verdict, holders: Record<string, number>, validityMs: number | null): Classification => ({
    verdict, flags: [], validityMs, quorum: 3, holders, quorumToken: Object.keys(holders).find((t) => holders[t] >= 3) ?? null,
  });
  it('tree descriptions', () => {
    assert.equal(describeVerdict(c('held', { t: 3 }, 4_200), 5), 'held 3/5 · 4.2 s');
    assert.equal(describeVerdict(c('held', { t: 3 }, null), 5), 'held 3/5 · no TTL');
    // One duration format on every surface (src/core/vocabulary/describe.ts): under a second in ms.
    assert.equal(describeVerdict(c('held', { t: 1 }, 0), 1), 'held 1/1 · 0 ms');
    assert.equal(describeVerdict(c('held', { t: 3 }, 294_000), 5), 'held 3/5 · 4 min 54 s');
    assert.equal(describeVerdict(c('split', { a: 2, b: 2 }, null), 5), 'split 2+2/5');
    assert.equal(describeVerdict(c('split', { a: 1, b: 3, c: 1 }, 9_000), 5), 'split 3+1+1/5');
    assert.equal(describeVerdict(c('partial', { t: 2 }, null), 5), 'partial 2/5');
    assert.equal(describeVerdict(c('unknown', { t: 2 }, null), 5), 'unknown 2/5');
  });
  it('from classify', () => {
    const got = run([held('t', 4_300), held('t', 4_300), held('t', 4_300), absent(), absent()]);
    assert.ok(got);
    assert.equal(describeVerdict(got, 5), 'held 3/5 · 4.2 s'); // 4255 ms: tenths round down
  });
});
