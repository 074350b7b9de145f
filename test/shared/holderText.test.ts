import * as assert from 'node:assert/strict';
import { ageText, holderText, roughAgeText, whoSuffix } from '../../src/shared/holderText';
import { lockEntry, present } from '../support/entries';

describe('holderText', () => {
  const holder = { name: 'billing-worker', host: 'box', pid: 4121, since: 1_000_000, thread: null, library: 'redlock-inspector' };

  it('says a holder and its age, to the second by default', () => {
    assert.equal(holderText(holder, 1_012_000), 'billing-worker (pid 4121 on box) for 12 s');
    assert.equal(holderText(holder, 1_000_000 + 3 * 60_000), 'billing-worker (pid 4121 on box) for 3 min');
    assert.equal(ageText(59_999), '59 s');
  });

  it('a rough age does not move within the first minute, then reads as the exact one', () => {
    const seconds = [0, 1_000, 12_000, 59_999].map((ms) => holderText(holder, 1_000_000 + ms, roughAgeText));
    assert.deepEqual(new Set(seconds), new Set(['billing-worker (pid 4121 on box) for < 1 min']));
    assert.equal(roughAgeText(60_000), ageText(60_000));
    assert.equal(roughAgeText(2 * 3_600_000), '2 h');
  });

  it("a lock row's holder part takes the same rough age", () => {
    const e = { ...lockEntry('k', [present('a', 't'), present('b', 't'), present('c', 't')]), holder };
    assert.equal(whoSuffix(e, 1_005_000), ' · billing-worker (pid 4121) for 5 s');
    assert.equal(whoSuffix(e, 1_005_000, false, roughAgeText), ' · billing-worker (pid 4121) for < 1 min');
    assert.equal(whoSuffix(e, 1_006_000, false, roughAgeText), whoSuffix(e, 1_005_000, false, roughAgeText));
  });
});
