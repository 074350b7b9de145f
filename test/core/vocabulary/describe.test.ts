// The presentation vocabulary every surface shares (src/core/vocabulary/describe.ts).
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { answeredCount, AUTH_FAILURE, describeAnswer, formatDuration, formatOffset, formatTtl, noQuorumLine, shortToken, stateText, TOKEN_IN_ERROR, TOKEN_IN_ROW, TOKEN_IN_SENTENCE, ttlText } from '../../../src/core/vocabulary/describe';

describe('presentation vocabulary', () => {
  it('prints durations one way, rounding down', () => {
    assert.deepEqual([622, 8_799, 99_999, 294_000, 7_500_000, 2 * 86_400_000 + 3_600_000].map(formatDuration), ['622 ms', '8.7 s', '99.9 s', '4 min 54 s', '2 h 5 min', '2 d 1 h']);
    assert.equal(formatDuration(0.42), '0.4 ms');
    assert.deepEqual([null, -1, 4_200].map(ttlText), ['?', 'no TTL', '4.2 s']);
  });

  it('cuts tokens by code points, one rule with a size per place', () => {
    const t = '7f3a9b0c1d2e3f4a5b6c7d8e9f0a1bc2';
    assert.equal(shortToken(t, TOKEN_IN_SENTENCE), '7f3a…c2');
    assert.equal(shortToken(t, TOKEN_IN_ROW), '7f3a9b0c1d2e3…');
    assert.equal(shortToken(t, TOKEN_IN_ERROR), '7f3a9b0c1d2e…');
    assert.equal(shortToken('short', TOKEN_IN_ROW), 'short');
    // A surrogate pair is one character: never cut in half.
    assert.equal(shortToken('😀'.repeat(20), TOKEN_IN_SENTENCE), '😀😀😀😀…😀😀');
  });

  it('counts a refusal (NOPERM, READONLY) as an answer, and an auth failure or timeout as none', () => {
    const nodes = [
      { node: 'a', outcome: 'granted' },
      { node: 'b', outcome: 'refused', reason: 'NOPERM this user has no permissions', answered: true },
      { node: 'c', outcome: 'refused', reason: 'READONLY You can\'t write against a read only replica.', answered: true },
      { node: 'd', outcome: 'timeout', reason: 'no reply within 200 ms' },
      { node: 'e', outcome: 'auth', reason: 'WRONGPASS invalid username-password pair' },
    ];
    assert.equal(answeredCount(nodes), 3);
    const line = noQuorumLine({ operation: 'acquire', resources: ['lock:x'], attempts: 2, quorum: 3, nodes: nodes.slice(1) });
    assert.equal(line.split(':')[0], 'cannot acquire lock');
    assert.match(line, /^cannot acquire lock:x after 2 attempts: only 2 of 4 nodes answered, 3 needed: b refused \(NOPERM/);
    assert.equal(describeAnswer({ node: 'n', outcome: 'held-by-other', heldBy: '7f3a9b0c1d2e3f4a5b6c7d8e' }), 'n held by 7f3a9b0c1d2e…');
    assert.equal(stateText({ state: 'unreachable', reason: 'timeout' }), 'unreachable: timeout');
    assert.ok(AUTH_FAILURE.test('WRONGPASS invalid username-password pair') && AUTH_FAILURE.test('NOAUTH Authentication required.'));
    assert.ok(!AUTH_FAILURE.test('ECONNREFUSED 127.0.0.1:6379'));
  });
});

describe('durations: one format for every CLI output', () => {
  it('uses the unit a person would say, rounding down', () => {
    assert.equal(formatDuration(0), '0 ms');
    assert.equal(formatDuration(0.37), '0.3 ms');
    assert.equal(formatDuration(4), '4 ms');
    assert.equal(formatDuration(999), '999 ms');
    assert.equal(formatDuration(999.9), '999 ms');
    assert.equal(formatDuration(1000), '1.0 s');
    assert.equal(formatDuration(4299), '4.2 s');
    assert.equal(formatDuration(99_999), '99.9 s');
    assert.equal(formatDuration(125_000), '2 min 5 s');
    assert.equal(formatDuration(7_500_000), '2 h 5 min');
    assert.equal(formatDuration(2 * 86_400_000 + 3 * 3_600_000 + 59_000), '2 d 3 h');
    assert.equal(formatDuration(-5), '0 ms');
  });

  it('TTLs and offsets share it', () => {
    assert.equal(formatTtl(-1), 'no TTL');
    assert.equal(formatTtl(null), 'TTL ?');
    assert.equal(formatTtl(1500), '1.5 s');
    assert.equal(formatOffset(3), '+3 ms');
    assert.equal(formatOffset(-1250), '-1.2 s');
    assert.equal(formatOffset(0), '0 ms');
  });

  it('never promises more time than is left, and never grows shorter with more time', () => {
    // Reading the text back (in ms) never exceeds the input.
    const back = (t: string): number => {
      let ms = 0;
      for (const [, n, u] of t.matchAll(/([0-9.]+) (ms|s|min|h|d)/g)) ms += Number(n) * { ms: 1, s: 1000, min: 60_000, h: 3_600_000, d: 86_400_000 }[u]!;
      return ms;
    };
    fc.assert(fc.property(fc.integer({ min: 0, max: 10 * 86_400_000 }), fc.integer({ min: 0, max: 100_000 }), (ms, more) => {
      assert.ok(back(formatDuration(ms)) <= ms + 1e-9, formatDuration(ms));
      assert.ok(back(formatDuration(ms)) <= back(formatDuration(ms + more)));
    }));
  });
});
