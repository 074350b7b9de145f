// The lock detail panel's pure parts (no VS Code, no browser): the message protocol's
// validators, the verdict sentence, and the HTML / CSP shell.
import * as assert from 'node:assert/strict';
import type { LockEntry, Observation } from '../../src/core/vocabulary/types';
import { lockEntry } from '../support/entries';
import { makeNonce, panelCsp, panelHtml } from '../../src/extension/panel/html';
import { PROTOCOL_VERSION, isHostMessage, isPanelState, isWebviewMessage, type HistoryEvent, type LockView } from '../../src/shared/protocol';
import { shortToken as cutToken, TOKEN_IN_SENTENCE } from '../../src/core/vocabulary/describe';
import { agedEntryWithCopies, describeEvent, describeFormat, verdictBadge, verdictSentence } from '../../src/shared/verdictSentence';
import { formatDuration } from '../../src/core/vocabulary/describe';

const shortToken = (t: string): string => cutToken(t, TOKEN_IN_SENTENCE);

const T1 = '7f3a9b0c1d2e3f4a5b6c7d8e9f0a1bc2';
const T2 = '91bc4e5f6a7b8c9d0e1f2a3b4c5d6e0d';

function obs(node: string, state: Observation['state'], token: string | null = null, pttlMs: number | null = null, extra: Partial<Observation> = {}): Observation {
  return { node, state, token, pttlMs, type: state === 'present' ? 'string' : null, format: state === 'present' ? 'string' : null, holdCount: null, reason: state === 'unreachable' ? 'timeout' : null, ...extra };
}
function entry(verdict: LockEntry['verdict'], nodes: Observation[], validityMs: number | null, flags: LockEntry['flags'] = []): LockEntry {
  return lockEntry('k', nodes, { verdict, flags, validityMs });
}
const held = (): LockEntry => entry('held', [obs('node-a', 'present', T1, 5000), obs('node-b', 'present', T1, 5000), obs('node-c', 'present', T1, 5000), obs('node-d', 'absent'), obs('node-e', 'unreachable')], 4100, ['degraded']);
const view = (over: Partial<LockView> = {}): LockView => ({ key: 'k', nodes: ['node-a', 'node-b', 'node-c', 'node-d', 'node-e'], entry: held(), readAt: 1, sentAt: 2, readOnly: false, mine: true, expiringThresholdMs: 2000, ...over });
const event = (over: Partial<HistoryEvent> = {}): HistoryEvent => ({ at: 1, kind: 'acquired', nodes: ['node-a'], token: T1, previousToken: null, from: null, to: null, ...over });

describe('panel protocol validators', () => {
  it('accepts every well-formed host message', () => {
    assert.ok(isHostMessage({ type: 'init', version: PROTOCOL_VERSION, history: [event()], ...view() }));
    assert.ok(isHostMessage({ type: 'snapshot', ...view() }));
    assert.ok(isHostMessage({ type: 'snapshot', ...view({ entry: null }) }));
    assert.ok(isHostMessage({ type: 'events', key: 'k', events: [event(), event({ kind: 'verdict-changed', nodes: [], token: null, from: 'held', to: null })] }));
    // JSON round trip (what postMessage delivers), a `__proto__` token included.
    const e = held();
    e.holders['__proto__'] = 1;
    assert.ok(isHostMessage(JSON.parse(JSON.stringify({ type: 'snapshot', ...view({ entry: e }) }))));
  });

  it('rejects malformed host messages', () => {
    const bad: unknown[] = [
      null, 'init', 42, [], {},
      { type: 'nope' },
      { type: 'init', ...view() }, // no version / history
      { type: 'snapshot', ...view(), key: 5 },
      { type: 'snapshot', ...view(), readOnly: 'no' },
      { type: 'snapshot', ...view(), nodes: 'node-a' },
      { type: 'snapshot', ...view(), readAt: NaN },
      { type: 'snapshot', ...view({ entry: { ...held(), verdict: 'owned' as never } }) },
      { type: 'snapshot', ...view({ entry: { ...held(), flags: ['stuck' as never] } }) },
      { type: 'snapshot', ...view({ entry: { ...held(), key: 'other' } }) }, // entry of another key
      { type: 'snapshot', ...view({ entry: { ...held(), nodes: [{ node: 'a', state: 'gone' }] as never } }) },
      { type: 'snapshot', ...view({ entry: { ...held(), holders: { t: 'three' } as never } }) },
      { type: 'events', key: 'k', events: [{ ...event(), kind: 'exploded' }] },
      { type: 'events', key: 'k', events: [{ ...event(), at: '2026-01-01' }] },
      { type: 'events', key: 'k', events: [{ ...event(), nodes: [1] }] },
      { type: 'events', key: 'k' },
    ];
    for (const m of bad) assert.equal(isHostMessage(m), false, JSON.stringify(m));
  });

  it('accepts and rejects webview messages', () => {
    assert.ok(isWebviewMessage({ type: 'ready', version: 1 }));
    for (const kind of ['extend', 'release', 'forceRelease']) assert.ok(isWebviewMessage({ type: 'action', kind, key: 'lock:<img src=x>' }));
    assert.ok(isWebviewMessage({ type: 'exportHistory', key: 'k' }));
    assert.ok(isWebviewMessage({ type: 'copyToken', key: 'k', node: 'node-a' }));
    const bad: unknown[] = [
      undefined, { type: 'ready' }, { type: 'action', kind: 'delete', key: 'k' }, { type: 'action', kind: 'extend' },
      { type: 'action', kind: 'extend', key: 7 }, { type: 'exportHistory' }, { type: 'copyToken', key: 'k' },
      { type: 'run', command: 'workbench.action.terminal.new' }, { type: 'action', kind: 'extend', key: 'x'.repeat((1 << 20) + 1) },
    ];
    for (const m of bad) assert.equal(isWebviewMessage(m), false, JSON.stringify(m)?.slice(0, 80));
  });

  it('validates the saved panel state', () => {
    assert.ok(isPanelState({ key: 'k', history: [] }));
    assert.equal(isPanelState({ history: [] }), false);
    assert.equal(isPanelState(undefined), false);
  });
});

describe('panel verdict sentence', () => {
  it('phrases held, split, unknown and partial from the classification', () => {
    assert.equal(verdictSentence(held()), 'Held by 7f3a…c2 on 3 of 5 nodes; node-e unreachable; valid for 4.1 s');
    const split = entry('split', [obs('node-a', 'present', T1, 9000), obs('node-b', 'present', T1, 9000), obs('node-c', 'present', T2, 9000), obs('node-d', 'present', T2, 9000), obs('node-e', 'absent')], null);
    assert.equal(verdictSentence(split), 'Split: 7f3a…c2 on 2 nodes, 91bc…0d on 2 nodes; no holder has a quorum');
    const splitQuorum = entry('split', [obs('a', 'present', T1, 9000), obs('b', 'present', T1, 9000), obs('c', 'present', T1, 9000), obs('d', 'present', T2, 9000), obs('e', 'absent')], 8000);
    assert.equal(verdictSentence(splitQuorum), 'Split: 7f3a…c2 on 3 nodes, 91bc…0d on 1 node; 7f3a…c2 has a quorum of 3; valid for 8.0 s');
    const unknown = entry('unknown', [obs('a', 'present', 'short', 9000), obs('b', 'present', 'short', 9000), obs('c', 'absent'), obs('d', 'unreachable'), obs('e', 'unreachable')], null, ['degraded']);
    assert.equal(verdictSentence(unknown), 'Unknown: short on 2 of 5 nodes, short of the quorum of 3; with the unreachable nodes it might be held; d, e unreachable');
    const partial = entry('partial', [obs('a', 'present', T1, 900), obs('b', 'absent'), obs('c', 'absent')], null);
    assert.equal(verdictSentence(partial), 'Partial: 7f3a…c2 on 1 of 3 nodes, short of the quorum of 2 (a failed or decaying acquisition)');
    assert.equal(verdictSentence(null), 'No copy on any node: released, expired or never acquired');
  });

  it('adds the flags the core set, and counts validity down', () => {
    const noTtl = entry('held', [obs('a', 'present', T1, -1), obs('b', 'present', T1, -1), obs('c', 'present', T1, -1)], null, ['no-ttl']);
    assert.equal(verdictSentence(noTtl), 'Held by 7f3a…c2 on 3 of 3 nodes; never expires (no TTL on a quorum of copies)');
    const reentrant = entry('held', [obs('a', 'present', 'r:1', 30000, { format: 'redisson-lock', holdCount: 2 })], 29000, ['reentrant']);
    assert.equal(verdictSentence(reentrant), 'Held by r:1 on 1 of 1 node; valid for 29.0 s; re-entered (hold count 2)');
    const aged = agedEntryWithCopies(held(), 2500, 2000);
    assert.equal(aged.validityMs, 1600);
    assert.deepEqual(aged.flags, ['degraded', 'expiring']);
    assert.equal(aged.nodes[0].pttlMs, 2500);
    assert.equal(verdictSentence(aged), 'Held by 7f3a…c2 on 3 of 5 nodes; node-e unreachable; valid for 1.6 s (expiring)');
    assert.equal(verdictBadge(aged), 'held 3/5 · 1.6 s');
    assert.equal(agedEntryWithCopies(held(), 99_000, 2000).validityMs, 0);
  });

  it('shortens tokens, formats time, formats and events', () => {
    assert.equal(shortToken(T1), '7f3a…c2');
    assert.equal(shortToken('abc'), 'abc');
    assert.equal(formatDuration(4199), '4.1 s');
    // One duration format on every surface (src/core/vocabulary/describe.ts).
    assert.equal(formatDuration(7_200_000), '2 h 0 min');
    assert.equal(describeFormat(obs('a', 'present', 'x', 1, { format: 'redisson-lock', holdCount: 3 })), 'Redisson lock · hold 3');
    assert.equal(describeFormat(obs('a', 'present', 'x,y', 1, { format: 'semaphore' })), 'semaphore · 2 holders');
    assert.equal(describeEvent(event({ nodes: ['a', 'b'] })), 'Acquired by 7f3a…c2 on a, b');
    assert.equal(describeEvent(event({ kind: 'holder-changed', token: T2, previousToken: T1 })), 'Holder changed on node-a: 7f3a…c2 → 91bc…0d');
    assert.equal(describeEvent(event({ kind: 'split-detected', nodes: [], token: null, from: 'held', to: 'split' })), 'Split detected (held → split)');
    assert.equal(describeEvent(event({ kind: 'verdict-changed', nodes: [], token: null, from: 'held', to: null })), 'Verdict held → no copy');
  });
});

describe('panel HTML and CSP', () => {
  const input = { cspSource: 'https://file+.vscode-resource.vscode-cdn.net', nonce: makeNonce(), scriptUri: 'https://x/dist/webview/main.js', styleUri: 'https://x/dist/webview/main.css', codiconUri: 'https://x/dist/webview/codicon.css' };

  it("allows nothing by default, scripts only with the nonce, styles/fonts/images only from the webview", () => {
    const csp = panelCsp(input.cspSource, 'abcdefghijklmnop1234');
    assert.equal(csp, "default-src 'none'; script-src 'nonce-abcdefghijklmnop1234'; style-src https://file+.vscode-resource.vscode-cdn.net; font-src https://file+.vscode-resource.vscode-cdn.net; img-src https://file+.vscode-resource.vscode-cdn.net");
    assert.doesNotMatch(csp, /unsafe/);
  });

  it('builds the shell: one module script with the nonce, the codicon link id, no inline handlers', () => {
    const html = panelHtml(input);
    assert.match(html, new RegExp(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'nonce-${input.nonce}';`));
    const scripts = html.match(/<script\b[^>]*>/g) ?? [];
    assert.equal(scripts.length, 1);
    assert.match(scripts[0], new RegExp(`^<script type="module" nonce="${input.nonce}" src="https://x/dist/webview/main.js">$`));
    assert.match(html, /<link rel="stylesheet" href="https:\/\/x\/dist\/webview\/codicon.css" id="vscode-codicon-stylesheet">/);
    assert.doesNotMatch(html, /\son[a-z]+=/i);
    assert.doesNotMatch(html, /style=/);
  });

  it('makes a fresh nonce per load and refuses bad input', () => {
    const a = makeNonce();
    const b = makeNonce();
    assert.match(a, /^[A-Za-z0-9]{32}$/);
    assert.notEqual(a, b);
    assert.throws(() => panelHtml({ ...input, nonce: "x' 'unsafe-inline" }));
    assert.throws(() => panelHtml({ ...input, cspSource: "https://x; script-src 'unsafe-inline'" }));
    assert.doesNotMatch(panelHtml({ ...input, scriptUri: 'https://x/"><script>alert(1)</script>' }), /"><script>alert/);
  });
});
