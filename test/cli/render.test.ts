import assert from 'node:assert/strict';
import { escapeText, globForKey, safeJson } from '../../src/cli/escape';
import { formatMs, renderForcePlan, renderStatus } from '../../src/cli/render';
import { styleFor, colourWanted } from '../../src/cli/style';
import type { LockEntry, Observation, Snapshot } from '../../src/core/types';
import { lockEntry } from '../support/entries';

const EVIL = 'lock:\x1b[31mred\x1b]0;title\x07\n\rnext\u202eevil\u2066x\u2069\x9b2J\x7f\u2028\u200b\ud800';

function obs(node: string, o: Partial<Observation> = {}): Observation {
  return { node, state: 'present', token: 't1', pttlMs: 5000, type: 'string', format: 'string', holdCount: null, reason: null, ...o };
}

function lock(key: string, nodes: Observation[], over: Partial<LockEntry> = {}): LockEntry {
  return lockEntry(key, nodes, { verdict: 'held', flags: [], validityMs: 4000, quorum: 2, ...over });
}

function snapshot(locks: LockEntry[], over: Partial<Snapshot> = {}): Snapshot {
  return {
    quorum: 2,
    nodes: [
      { node: 'a:1', reachable: true, latencyMs: 0.3, error: null },
      { node: 'b:2', reachable: true, latencyMs: 0.4, error: null },
      { node: 'c:3', reachable: false, latencyMs: null, error: 'connect ECONNREFUSED\x1b[2J' },
    ],
    locks,
    skipped: [],
    truncated: false,
    ...over,
  };
}

/** Nothing a terminal would interpret: no C0/C1/DEL, bidi, line separators, lone surrogates. */
function assertInert(text: string, allowNewlines: boolean): void {
  const bad = allowNewlines ? /[\x00-\x09\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]/ : /[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]/;
  const m = bad.exec(text);
  assert.equal(m, null, `raw control character U+${m?.[0].charCodeAt(0).toString(16)} in ${JSON.stringify(text)}`);
}

describe('cli: escaping untrusted text', () => {
  it('shows control, bidi and line-breaking characters as visible escapes', () => {
    const s = escapeText(EVIL);
    assertInert(s, false);
    assert.ok(s.startsWith('lock:\\x1b[31mred\\x1b]0;title\\x07\\n\\rnext\\u{202e}evil\\u{2066}x\\u{2069}\\x9b2J\\x7f\\u{2028}\\u{200b}\\u{d800}'), s);
    assert.equal(escapeText('plain key é 漢字 🙂'), 'plain key é 漢字 🙂');
  });

  it('safeJson parses back to the same value and is inert on a terminal', () => {
    const value = { key: EVIL, holders: JSON.parse('{"__proto__": 2}') as unknown };
    const text = safeJson(value, 2);
    assertInert(text, true);
    assert.deepEqual(JSON.parse(text), JSON.parse(JSON.stringify(value)));
    assert.ok(JSON.parse(text).key === EVIL.replace('\ud800', '\ud800'));
    const tag = safeJson({ k: 'a\u{e0001}b' });
    assert.equal(tag, '{"k":"a\\udb40\\udc01b"}');
    assert.equal(JSON.parse(tag).k, 'a\u{e0001}b');
  });

  it('globForKey matches exactly the key', () => {
    assert.equal(globForKey(Buffer.from('lock:[a]*?\\x')), 'lock:\\[a\\]\\*\\?\\\\x');
    assert.equal(globForKey(Buffer.from([0x6c, 0xff, 0x2a])), 'l?\\*');
  });

  it('colour only on a TTY without NO_COLOR or TERM=dumb', () => {
    assert.equal(colourWanted({ isTTY: true }, {}), true);
    assert.equal(colourWanted({ isTTY: false }, {}), false);
    assert.equal(colourWanted({}, {}), false);
    assert.equal(colourWanted({ isTTY: true }, { NO_COLOR: '1' }), false);
    assert.equal(colourWanted({ isTTY: true }, { NO_COLOR: '' }), false);
    assert.equal(colourWanted({ isTTY: true }, { TERM: 'dumb' }), false);
  });
});

describe('cli: human rendering', () => {
  it('status: one row per lock, full tokens, escaped keys, node health', () => {
    const snap = snapshot([
      lock(EVIL, [obs('a:1', { token: 'tok\x1bA' }), obs('b:2', { token: 'tok\x1bA' }), obs('c:3', { state: 'unreachable', token: null, pttlMs: null, reason: 'x' })], { flags: ['degraded'] }),
      lock('lock:split', [obs('a:1', { token: 'A1' }), obs('b:2', { token: 'B2', pttlMs: -1 }), obs('c:3', { state: 'absent', token: null, pttlMs: null })], { verdict: 'split', validityMs: null, flags: ['no-ttl'] }),
    ], { skipped: [{ key: 'lock:list', reason: 'wrong-type' }], truncated: true });
    const out = renderStatus(snap, null, { patterns: ['*lock*'] });
    assertInert(out, true);
    const lines = out.split('\n');
    const row = lines.find((l) => l.startsWith('lock:\\x1b[31mred'));
    assert.ok(row, out);
    assert.match(row!, /held 2\/3 · 4\.0 s\s+degraded\s+A 5\.0s  A 5\.0s  \?$/);
    assert.ok(lines.includes('    A = tok\\x1bA'), out);
    const split = lines.find((l) => l.startsWith('lock:split'))!;
    assert.match(split, /split 1\+1\/3\s+no-ttl\s+A 5\.0s  B no-TTL  -$/);
    assert.match(out, /Skipped 1 matching key that is not a lock \(1 wrong-type\)/);
    assert.match(out, /Truncated/);
    assert.match(out, /Nodes: 2 of 3 reachable, quorum 2/);
    assert.match(out, /c:3\s+unreachable: connect ECONNREFUSED\\x1b\[2J/);
  });

  it('colours only when asked, and never inside escaped text', () => {
    const snap = snapshot([lock('lock:a', [obs('a:1'), obs('b:2'), obs('c:3')])]);
    assert.ok(!renderStatus(snap, null, { patterns: ['*'] }).includes('\x1b'));
    assert.ok(renderStatus(snap, null, { patterns: ['*'], style: styleFor(true) }).includes('\x1b[32m'));
  });

  it('says when nothing matches', () => {
    assert.match(renderStatus(snapshot([]), null, { patterns: ['*lock*', 'mutex:*'] }), /^No locks match \*lock\*, mutex:\*\./);
  });

  it('force-release plan lists node, token and TTL', () => {
    const plan = renderForcePlan(lock('lock:x', [obs('a:1', { token: 'abc', pttlMs: 1234 }), obs('b:2', { state: 'absent', token: null, pttlMs: null }), obs('c:3', { state: 'unreachable', token: null, pttlMs: null, reason: 'timeout' })]));
    assert.match(plan, /2 copies|1 copy/);
    assert.match(plan, /a:1\s+delete\s+token abc\s+TTL 1\.2 s/);
    assert.match(plan, /b:2\s+absent/);
    assert.match(plan, /c:3\s+unreachable: timeout \(left alone\)/);
  });

  it('formats durations', () => {
    assert.equal(formatMs(-1), 'no TTL');
    assert.equal(formatMs(999), '999 ms');
    assert.equal(formatMs(4299), '4.2 s');
    assert.equal(formatMs(125_000), '2 min 5 s');
    assert.equal(formatMs(7_500_000), '2 h 5 min');
  });
});

