import assert from 'node:assert/strict';
import fc from 'fast-check';
import { formatDuration, formatOffset, formatTtl } from '../../../src/core/vocabulary/describe';

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
