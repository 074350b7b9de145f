// The extension's pure helpers (no VS Code needed): escaping, ids, ordering, countdown,
// node settings. Loaded here without an editor, so none of them may import `vscode`;
// eslint.config.mjs holds the layer boundaries.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import type { LockEntry, Observation } from '../../src/core';
import { lockEntry } from '../support/entries';
import { agedEntry, agedPttl } from '../../src/shared/countdown';
import { formatDuration } from '../../src/core/vocabulary/describe';
import { escapeText } from '../../src/core/vocabulary/tokens';
import { globToRegExp, keyMatcher } from '../../src/shared/glob';
import { compareLocks, isAnomaly, sortLocks } from '../../src/shared/lockOrder';
import { copyDescription, copyIcon, copyTokenMark, lockContextValue, lockDescription, lockIcon, lockRowText, rowToken } from '../../src/extension/words/lockText';
import { tokenLabels } from '../../src/shared/tokenLabels';
import { cell, escapeMarkdown, printable } from '../../src/extension/words/markdown';
import { parseNodeSettings, splitPassword, withPassword } from '../../src/extension/model/nodeSettings';
import { nodeDescription } from '../../src/extension/words/nodeText';
import { lockTooltipMarkdown } from '../../src/extension/views/tooltip';
import { judgeLiveness, livenessText } from '../../src/core/vocabulary/liveness';
import { elementId } from '../../src/extension/views/treeIds';

function obs(node: string, token: string | null, pttlMs: number | null = 10_000): Observation {
  return { node, state: token === null ? 'absent' : 'present', token, pttlMs: token === null ? null : pttlMs, type: token === null ? null : 'string', format: token === null ? null : 'string', holdCount: null, reason: null };
}

function entry(key: string, over: Partial<LockEntry> = {}): LockEntry {
  // The core's entry for three copies of `t`, with a round validity for the wording.
  return lockEntry(key, over.nodes ?? [obs('a', 't'), obs('b', 't'), obs('c', 't')], { validityMs: 5000, ...over });
}

/** Unescaped pipes in one Markdown line. */
const pipes = (line: string): number => line.match(/(?<!\\)\|/g)?.length ?? 0;

describe('extension helpers (pure)', () => {
  describe('markdown escaping', () => {
    it('keeps any text on one line and inside one table cell', () => {
      fc.assert(
        fc.property(fc.string({ unit: 'binary' }), (s) => {
          const e = escapeMarkdown(s);
          assert.ok(!/[\n\r\u2028\u2029]/.test(e));
          assert.equal(pipes(e), 0);
          assert.doesNotMatch(e, /(?<!\\)[<>`*_[\]]/);
        }),
      );
    });

    it('shows control and bidi characters as visible escapes', () => {
      assert.equal(printable('a\nb\tc\u202ed'), 'a\\nb\\tc\\u{202e}d');
      // One escaper for every surface: the terminal's and the tooltips' are the same.
      assert.equal(printable('\x1b[2J\u200b'), escapeText('\x1b[2J\u200b'));
      assert.equal(escapeMarkdown('a|b'), 'a\\|b');
      assert.equal(cell(null), '—');
      assert.equal(cell('x'.repeat(100), 10), 'xxxxxxxxx…');
    });

    it('the tooltip shows the fence, and says when it is a fencing risk', () => {
      assert.doesNotMatch(lockTooltipMarkdown(entry('k'), 0, false), /Fence/);
      assert.match(lockTooltipMarkdown(entry('k', { fence: 34 }), 0, false), /^Fence: 34$/m);
      assert.match(lockTooltipMarkdown(entry('k', { fence: 34, fenceRisk: true }), 0, false), /^Fence: 34 · \*\*fencing risk\*\*: fewer than 2 reachable nodes hold it/m);
    });

    it('the tooltip shows the liveness line in livenessText\'s words, as a Markdown cell', () => {
      assert.doesNotMatch(lockTooltipMarkdown(entry('k'), 0, false), /Liveness/);
      const alive = judgeLiveness({ connection: { state: 'connected', connectedOn: 2, asked: 3, idleMs: 0 }, process: null, renewal: { state: 'renewing', lastMs: 3000, everyMs: 10_000 }, heldMs: 5000, validityMs: 4000, noTtl: false });
      const md = lockTooltipMarkdown(entry('k', { liveness: alive }), 0, false);
      assert.ok(md.split('\n').includes(`Liveness: ${cell(livenessText(alive)!, 600)}`), md);
      assert.equal(livenessText(alive), 'holder alive: connected on 2/3 nodes, idle 0 ms; renewed 3.0 s ago, every 10.0 s; held 5.0 s · wait');
    });

    it('builds a tooltip table whose rows keep their cells, whatever the key and tokens', () => {
      fc.assert(
        fc.property(fc.string(), fc.array(fc.string(), { minLength: 1, maxLength: 5 }), (key, tokens) => {
          const e = entry(key, { nodes: tokens.map((t, i) => obs(`n|${i}\n`, t)) });
          const md = lockTooltipMarkdown(e, 0, false);
          const rows = md.split('\n').filter((l) => l.startsWith('| '));
          assert.equal(rows.length, tokens.length + 2);
          for (const r of rows) assert.equal(pipes(r), 6, r);
        }),
      );
    });
  });

  it('builds injective tree ids for arbitrary keys', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), fc.string(), (a, b, c, d) => {
        if (a === c && b === d) return;
        assert.notEqual(elementId('copy', a, b), elementId('copy', c, d));
      }),
    );
    assert.notEqual(elementId('lock', 'a,b'), elementId('copy', 'a', 'b'));
  });

  it('never swaps two calm locks whose time left changes (watchdog renewals)', () => {
    const rw = (ms: number) => entry('lock:redisson-rw:catalog', { validityMs: ms });
    const ri = (ms: number) => entry('lock:redisson:inventory', { validityMs: ms });
    const orders = [[rw(29_000), ri(21_000)], [rw(21_000), ri(29_000)], [ri(25_000), rw(24_000)]].map((ls) => sortLocks(ls).map((e) => e.key));
    for (const o of orders) assert.deepEqual(o, orders[0]);
  });

  it('orders anomalies first (split, partial, unknown, no TTL), then by key, never by time left', () => {
    const locks = [
      entry('held-long', { validityMs: 9000 }),
      entry('no-ttl', { flags: ['no-ttl'], validityMs: null }),
      entry('held-short', { validityMs: 1000, flags: ['expiring'] }),
      entry('unknown', { verdict: 'unknown', validityMs: null }),
      entry('split', { verdict: 'split', validityMs: null }),
      entry('partial', { verdict: 'partial', validityMs: null }),
      entry('a-held', { validityMs: 20_000 }),
    ];
    assert.deepEqual(sortLocks(locks).map((e) => e.key), ['split', 'partial', 'unknown', 'no-ttl', 'a-held', 'held-long', 'held-short']);
    assert.equal(compareLocks(locks[0], locks[0]), 0);
    assert.ok(isAnomaly(locks[1]) && !isAnomaly(locks[0]));
  });

  it('ages validity and PTTLs for the countdown, flagging expiring like the core', () => {
    const e = entry('k', { validityMs: 5000 });
    const aged = agedEntry(e, 3500, 2000);
    assert.equal(aged.validityMs, 1500);
    assert.deepEqual(aged.flags, ['expiring']);
    assert.equal(agedEntry(e, 9000, 2000).validityMs, 0);
    assert.equal(agedEntry(entry('k', { validityMs: null }), 1000, 2000).validityMs, null);
    assert.equal(agedPttl(obs('a', 't', 800), 300), 500);
    assert.equal(agedPttl(obs('a', 't', -1), 300), -1);
  });

  it('describes rows and context values for menus', () => {
    assert.equal(formatDuration(4290), '4.2 s');
    assert.equal(rowToken('0123456789abcdef0123'), '0123456789abc…');
    assert.equal(copyDescription(obs('a', 'tok', -1), -1), 'tok · no TTL');
    assert.equal(copyDescription({ ...obs('a', null), state: 'unreachable', reason: 'ECONNREFUSED' }, null), 'unreachable: ECONNREFUSED');
    assert.equal(lockContextValue(entry('k'), true), 'lock;held;token;extendable;mine;');
    assert.match(lockContextValue(entry('k', { verdict: 'split' }), false), /^lock;split;/);
    assert.equal(lockIcon(entry('k', { verdict: 'split' }), false).id, 'error');
    assert.equal(nodeDescription(undefined, { node: 'a', reachable: false, latencyMs: null, error: 'NOAUTH\nx', outcome: 'auth' }), 'unreachable: NOAUTH\\nx');
  });

  it('leads a lock row with the verdict and the flags that change what to do, the key after', () => {
    const long = 'payments:settlement-batch:eu-west:lock';
    const noTtl = lockRowText(entry(long, { flags: ['no-ttl'], validityMs: null }));
    assert.equal(noTtl.label, `held 3/3 · no TTL — ${long}`);
    assert.deepEqual(noTtl.highlights.map(([a, b]) => noTtl.label.slice(a, b)), ['no TTL']);
    assert.equal(noTtl.description, '');
    const split = lockRowText(entry('k', { verdict: 'split', holders: { t: 2, u: 1 }, validityMs: null }));
    assert.equal(split.label, 'split 2+1/3 — k');
    assert.deepEqual(split.highlights.map(([a, b]) => split.label.slice(a, b)), ['split 2+1/3']);
    const skew = lockRowText(entry('k', { flags: ['ttl-skew', 'expiring'] }));
    assert.equal(skew.label, 'held 3/3 · TTL skew · expiring — k');
    assert.equal(skew.description, '5.0 s');
    const calm = lockRowText(entry('k'));
    assert.equal(calm.label, 'held 3/3 — k');
    assert.deepEqual(calm.highlights, []);
    // The same verdict words as every other surface.
    assert.ok(lockDescription(entry('k')).startsWith(calm.label.split(' — ')[0]));
  });

  it('gives every flag that changes what to do its own icon', () => {
    const specs = [
      lockIcon(entry('k', { verdict: 'split' }), false),
      lockIcon(entry('k', { flags: ['deadlock'] }), false),
      lockIcon(entry('k', { verdict: 'partial' }), false),
      lockIcon(entry('k', { verdict: 'unknown' }), false),
      lockIcon(entry('k', { flags: ['no-ttl'] }), false),
      lockIcon(entry('k', { flags: ['ttl-skew'] }), false),
      lockIcon(entry('k', { flags: ['degraded'] }), false),
      lockIcon(entry('k', { flags: ['expiring'] }), false),
      lockIcon(entry('k'), false),
    ];
    assert.equal(new Set(specs.map((i) => i.id)).size, specs.length, JSON.stringify(specs));
    assert.notDeepEqual(lockIcon(entry('k', { flags: ['no-ttl'] }), false), lockIcon(entry('k', { flags: ['ttl-skew'] }), false));
  });

  it('letters and colours the copies of a split as the CLI and the panel do', () => {
    const nodes = [obs('a', 'tokA'), obs('b', 'tokB'), obs('c', 'tokA'), { ...obs('d', null), state: 'absent' as const }];
    const e = entry('k', { verdict: 'split', nodes });
    assert.deepEqual(nodes.map((o) => copyTokenMark(e, o)), [
      { letter: 'A', color: 'charts.blue' }, { letter: 'B', color: 'charts.orange' }, { letter: 'A', color: 'charts.blue' }, null,
    ]);
    assert.deepEqual([...tokenLabels(e).values()], ['A', 'B']);
    assert.equal(copyTokenMark(entry('k'), obs('a', 't')), null, 'one holder: no letters');
    assert.deepEqual(copyIcon(nodes[1], copyTokenMark(e, nodes[1])), { id: 'key', color: 'charts.orange' });
  });

  it('filters with Redis globs, or by substring without wildcards', () => {
    assert.ok(globToRegExp('lock:*:a?c').test('lock:x:abc'));
    assert.ok(globToRegExp('l[a-c]ck').test('lbck'));
    assert.ok(!globToRegExp('l[^o]ck').test('lock'));
    assert.ok(globToRegExp('a.b(c)').test('a.b(c)'));
    assert.ok(keyMatcher('split')('lock:split:payments'));
    assert.ok(keyMatcher('')('anything'));
  });

  it('keeps passwords out of settings and puts them into the URL for the core only', () => {
    assert.deepEqual(splitPassword('redis://:p%40ss@127.0.0.1:6379/2'), { url: 'redis://127.0.0.1:6379/2', password: 'p@ss' });
    assert.deepEqual(splitPassword('redis://user:pw@h:1'), { url: 'redis://user:@h:1', password: 'pw' });
    assert.deepEqual(splitPassword('redis://h:1'), { url: 'redis://h:1' });
    assert.equal(withPassword('redis://127.0.0.1:6379', 'a:b@c'), 'redis://:a%3Ab%40c@127.0.0.1:6379');
    assert.equal(withPassword('redis://user:@h:1', 'pw'), 'redis://user:pw@h:1');
    assert.equal(withPassword('redis://:given@h:1', 'pw'), 'redis://:given@h:1');
    const nodes = parseNodeSettings(['redis://127.0.0.1:7001', { name: 'b', url: 'redis://127.0.0.1:7002' }]);
    assert.deepEqual(nodes.map((n) => n.id), ['127.0.0.1:7001', 'b']);
    assert.throws(() => parseNodeSettings(['redis://127.0.0.1:7001', 'redis://127.0.0.1:7001']), /configured twice/);
    assert.throws(() => parseNodeSettings(['redis://:hunter2@127.0.0.1:x']), (e: Error) => !e.message.includes('hunter2'));
  });
});
