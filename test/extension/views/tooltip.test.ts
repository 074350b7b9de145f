// A lock's tooltip in the tree (src/extension/views/tooltip.ts).
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { judgeLiveness, livenessText } from '../../../src/core/vocabulary/liveness';
import { lockTooltipMarkdown } from '../../../src/extension/views/tooltip';
import { cell } from '../../../src/extension/words/markdown';
import { heldEntry, present } from '../../support/entries';

/** Unescaped pipes in one Markdown line. */
const pipes = (line: string): number => line.match(/(?<!\\)\|/g)?.length ?? 0;

describe('lock tooltip', () => {
  it('shows the fence, and says when it is a fencing risk', () => {
    assert.doesNotMatch(lockTooltipMarkdown(heldEntry('k'), 0, false), /Fence/);
    assert.match(lockTooltipMarkdown(heldEntry('k', { fence: 34 }), 0, false), /^Fence: 34$/m);
    assert.match(lockTooltipMarkdown(heldEntry('k', { fence: 34, fenceRisk: true }), 0, false), /^Fence: 34 · \*\*fencing risk\*\*: fewer than 2 reachable nodes hold it/m);
  });

  it('shows the liveness line in livenessText\'s words, as a Markdown cell', () => {
    assert.doesNotMatch(lockTooltipMarkdown(heldEntry('k'), 0, false), /Liveness/);
    const alive = judgeLiveness({ connection: { state: 'connected', connectedOn: 2, asked: 3, idleMs: 0 }, process: null, renewal: { state: 'renewing', lastMs: 3000, everyMs: 10_000 }, heldMs: 5000, validityMs: 4000, noTtl: false });
    const md = lockTooltipMarkdown(heldEntry('k', { liveness: alive }), 0, false);
    assert.ok(md.split('\n').includes(`Liveness: ${cell(livenessText(alive)!, 600)}`), md);
    assert.equal(livenessText(alive), 'holder alive: connected on 2/3 nodes, idle 0 ms; renewed 3.0 s ago, every 10.0 s; held 5.0 s · wait');
  });

  it('builds a table whose rows keep their cells, whatever the key and tokens', () => {
    fc.assert(
      fc.property(fc.string(), fc.array(fc.string(), { minLength: 1, maxLength: 5 }), (key, tokens) => {
        const e = heldEntry(key, { nodes: tokens.map((t, i) => present(`n|${i}\n`, t)) });
        const md = lockTooltipMarkdown(e, 0, false);
        const rows = md.split('\n').filter((l) => l.startsWith('| '));
        assert.equal(rows.length, tokens.length + 2);
        for (const r of rows) assert.equal(pipes(r), 6, r);
      }),
    );
  });
});
