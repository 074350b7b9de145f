// The lock detail panel's history builder: consecutive states of one key -> events.
// Pure (no VS Code): loaded here without an editor; eslint.config.mjs holds the boundaries.
import * as assert from 'node:assert/strict';
import type { LockEntry, Observation } from '../../../src/core/vocabulary/types';
import { lockEntry } from '../../support/entries';
import { JUMP_TOLERANCE_MS } from '../../../src/core/read/watch';
import { appendHistory, buildHistory, historyDocument } from '../../../src/extension/panel/changeEvents';
import { isHistoryEvent, type HistoryEvent } from '../../../src/shared/protocol';

const A = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const B = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
const NODES = ['n1', 'n2', 'n3'];

function o(node: string, token: string | null | 'down', pttlMs: number | null = 10_000): Observation {
  if (token === 'down') return { node, state: 'unreachable', token: null, pttlMs: null, type: null, format: null, holdCount: null, reason: 'timeout' };
  if (token === null) return { node, state: 'absent', token: null, pttlMs: null, type: null, format: null, holdCount: null, reason: null };
  return { node, state: 'present', token, pttlMs, type: 'string', format: 'string', holdCount: null, reason: null };
}
/** An entry from per-node tokens (null absent, 'down' unreachable), classified by the core. */
function e(tokens: Array<string | null | 'down'>, pttl: number | Array<number | null> = 10_000): LockEntry {
  const nodes = tokens.map((t, i) => o(NODES[i], t, Array.isArray(pttl) ? pttl[i] : pttl));
  return lockEntry('k', nodes);
}
const kinds = (evs: HistoryEvent[]): Array<[string, string[], string | null]> => evs.map((x) => [x.kind, x.nodes, x.token]);

describe('panel history builder', () => {
  it('says nothing for no change, or for the countdown alone', () => {
    assert.deepEqual(buildHistory(null, null, 1000), []);
    assert.deepEqual(buildHistory(e([A, A, null]), e([A, A, null]), 1000), []);
    // Read 2 s later with 2 s less TTL: the same expiry instant.
    assert.deepEqual(buildHistory(e([A, A, null], 10_000), e([A, A, null], 8_000), 3000, { prevAt: 1000, nextAt: 3000 }), []);
  });

  it('reports an acquisition, grouped over nodes, with the verdict change', () => {
    const evs = buildHistory(null, e([A, A, null]), 5000, { nodes: NODES });
    assert.deepEqual(kinds(evs), [['acquired', ['n1', 'n2'], A], ['verdict-changed', [], null]]);
    assert.equal(evs[1].from, null);
    assert.equal(evs[1].to, 'held');
    assert.ok(evs.every((x) => x.at === 5000 && isHistoryEvent(x)));
  });

  it('tells an extension from the countdown by the expiry instant', () => {
    const evs = buildHistory(e([A, A, null], 3_000), e([A, A, null], 9_000), 2000, { prevAt: 1000, nextAt: 2000 });
    assert.deepEqual(kinds(evs), [['extended', ['n1', 'n2'], A]]);
    // Within the tolerance: not an extension.
    assert.deepEqual(buildHistory(e([A]), e([A], 10_000 + JUMP_TOLERANCE_MS), 1000), []);
  });

  it('tells an expiry from a release', () => {
    // TTL 1 s at t=1000, gone at t=5000: expired.
    const expired = buildHistory(e([A, A, null], 1_000), null, 5000, { prevAt: 1000, nextAt: 5000, nodes: NODES });
    assert.deepEqual(kinds(expired), [['expired', ['n1', 'n2'], A], ['verdict-changed', [], null]]);
    assert.equal(expired[1].to, null);
    // TTL 10 s left, gone after 1 s: released.
    const released = buildHistory(e([A, A, null], 10_000), e([null, A, null], 9_000), 2000, { prevAt: 1000, nextAt: 2000 });
    assert.deepEqual(kinds(released), [['released', ['n1'], A], ['verdict-changed', [], null]]);
    assert.equal(released[1].from, 'held');
    assert.equal(released[1].to, 'partial');
  });

  it('reports a holder change and a split', () => {
    const evs = buildHistory(e([A, A, A]), e([A, B, B]), 1000);
    assert.deepEqual(kinds(evs), [['holder-changed', ['n2', 'n3'], B], ['split-detected', [], null]]);
    assert.equal(evs[0].previousToken, A);
    assert.equal(evs[1].from, 'held');
    assert.equal(evs[1].to, 'split');
  });

  it('reports node outages and returns, and nothing else about an unreachable node', () => {
    const down = buildHistory(e([A, A, A]), e([A, A, 'down']), 1000);
    assert.deepEqual(kinds(down), [['node-unreachable', ['n3'], null]]);
    const back = buildHistory(e([A, A, 'down']), e([A, A, B]), 2000);
    assert.deepEqual(kinds(back), [['node-back', ['n3'], null], ['split-detected', [], null]]);
    assert.deepEqual(buildHistory(e([A, A, 'down']), e([A, A, 'down']), 3000), []);
  });

  it('keeps a bounded history and exports it newest first', () => {
    const h: HistoryEvent[] = [];
    for (let i = 0; i < 15; i++) appendHistory(h, buildHistory(null, e([A]), i * 1000), 10);
    assert.equal(h.length, 10);
    const doc = JSON.parse(historyDocument('lock:<img src=x>', h, Date.UTC(2026, 0, 1))) as { key: string; exportedAt: string; events: Array<{ at: string }> };
    assert.equal(doc.key, 'lock:<img src=x>');
    assert.equal(doc.exportedAt, '2026-01-01T00:00:00.000Z');
    assert.equal(doc.events.length, 10);
    assert.ok(doc.events[0].at > doc.events[9].at);
  });
});
