// A lock's words in the tree: rows, menus' context values, icons, copies' letters (src/extension/words/lockText.ts).
import * as assert from 'node:assert/strict';
import { copyDescription, copyIcon, copyTokenMark, lockContextValue, lockDescription, lockIcon, lockRowText, rowToken } from '../../../src/extension/words/lockText';
import { tokenLabels } from '../../../src/shared/tokenLabels';
import { absent, heldEntry, present, unreachable } from '../../support/entries';

describe('lock words in the tree', () => {
  it('describes rows and context values for menus', () => {
    assert.equal(rowToken('0123456789abcdef0123'), '0123456789abc…');
    assert.equal(copyDescription(present('a', 'tok', -1), -1), 'tok · no TTL');
    assert.equal(copyDescription(unreachable('a', 'ECONNREFUSED'), null), 'unreachable: ECONNREFUSED');
    assert.equal(lockContextValue(heldEntry('k'), true), 'lock;held;token;extendable;mine;');
    assert.match(lockContextValue(heldEntry('k', { verdict: 'split' }), false), /^lock;split;/);
    assert.equal(lockIcon(heldEntry('k', { verdict: 'split' }), false).id, 'error');
  });

  it('leads a lock row with the verdict and the flags that change what to do, the key after', () => {
    const long = 'payments:settlement-batch:eu-west:lock';
    const noTtl = lockRowText(heldEntry(long, { flags: ['no-ttl'], validityMs: null }));
    assert.equal(noTtl.label, `held 3/3 · no TTL — ${long}`);
    assert.deepEqual(noTtl.highlights.map(([a, b]) => noTtl.label.slice(a, b)), ['no TTL']);
    assert.equal(noTtl.description, '');
    const split = lockRowText(heldEntry('k', { verdict: 'split', holders: { t: 2, u: 1 }, validityMs: null }));
    assert.equal(split.label, 'split 2+1/3 — k');
    assert.deepEqual(split.highlights.map(([a, b]) => split.label.slice(a, b)), ['split 2+1/3']);
    const skew = lockRowText(heldEntry('k', { flags: ['ttl-skew', 'expiring'] }));
    assert.equal(skew.label, 'held 3/3 · TTL skew · expiring — k');
    assert.equal(skew.description, '5.0 s');
    const calm = lockRowText(heldEntry('k'));
    assert.equal(calm.label, 'held 3/3 — k');
    assert.deepEqual(calm.highlights, []);
    // The same verdict words as every other surface.
    assert.ok(lockDescription(heldEntry('k')).startsWith(calm.label.split(' — ')[0]));
  });

  it('gives every flag that changes what to do its own icon', () => {
    const specs = [
      lockIcon(heldEntry('k', { verdict: 'split' }), false),
      lockIcon(heldEntry('k', { flags: ['deadlock'] }), false),
      lockIcon(heldEntry('k', { verdict: 'partial' }), false),
      lockIcon(heldEntry('k', { verdict: 'unknown' }), false),
      lockIcon(heldEntry('k', { flags: ['no-ttl'] }), false),
      lockIcon(heldEntry('k', { flags: ['ttl-skew'] }), false),
      lockIcon(heldEntry('k', { flags: ['degraded'] }), false),
      lockIcon(heldEntry('k', { flags: ['expiring'] }), false),
      lockIcon(heldEntry('k'), false),
    ];
    assert.equal(new Set(specs.map((i) => i.id)).size, specs.length, JSON.stringify(specs));
    assert.notDeepEqual(lockIcon(heldEntry('k', { flags: ['no-ttl'] }), false), lockIcon(heldEntry('k', { flags: ['ttl-skew'] }), false));
  });

  it('letters and colours the copies of a split as the CLI and the panel do', () => {
    const nodes = [present('a', 'tokA'), present('b', 'tokB'), present('c', 'tokA'), absent('d')];
    const e = heldEntry('k', { verdict: 'split', nodes });
    assert.deepEqual(nodes.map((o) => copyTokenMark(e, o)), [
      { letter: 'A', color: 'charts.blue' }, { letter: 'B', color: 'charts.orange' }, { letter: 'A', color: 'charts.blue' }, null,
    ]);
    assert.deepEqual([...tokenLabels(e).values()], ['A', 'B']);
    assert.equal(copyTokenMark(heldEntry('k'), present('a', 't')), null, 'one holder: no letters');
    assert.deepEqual(copyIcon(nodes[1], copyTokenMark(e, nodes[1])), { id: 'key', color: 'charts.orange' });
  });
});
