import assert from 'node:assert/strict';
import { displayWidth } from '../../src/cli/displayWidth';
import { escapeText, safeJson } from '../../src/cli/escape';
import { renderForcePlan, renderStatus } from '../../src/cli/render';
import { styleFor, colourWanted } from '../../src/cli/style';
import { statusDocument } from '../../src/cli/commands/status';
import type { NodeFacts } from '../../src/core/vocabulary/inspectTypes';
import type { LockEntry, Observation, Snapshot } from '../../src/core/vocabulary/types';
import { lockEntry } from '../support/entries';
import { judgeLiveness, livenessText } from '../../src/core/vocabulary/liveness';

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
      { node: 'a:1', reachable: true, latencyMs: 0.3, error: null, outcome: 'ok' },
      { node: 'b:2', reachable: true, latencyMs: 0.4, error: null, outcome: 'ok' },
      { node: 'c:3', reachable: false, latencyMs: null, error: 'connect ECONNREFUSED\x1b[2J', outcome: 'unreachable' },
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
    // The escaped key is wider than the key column: it has a line of its own, its row follows.
    const at = lines.findIndex((l) => l.startsWith('lock:\\x1b[31mred'));
    assert.ok(at >= 0, out);
    assert.match(lines[at + 1], /^\s+held 2\/3 · 4\.0 s\s+degraded\s+A 5\.0 s\s+A 5\.0 s\s+\?$/);
    assert.ok(lines.includes('    A = tok\\x1bA'), out);
    const split = lines.find((l) => l.startsWith('lock:split'))!;
    assert.match(split, /split 1\+1\/3\s+no-ttl\s+A 5\.0 s\s+B no TTL\s+-$/);
    assert.match(out, /Skipped 1 matching key that is not a lock \(1 wrong-type\)/);
    assert.match(out, /Truncated/);
    // The count of a cut read is a floor, said on the first line.
    assert.match(out, /^Locks: 2 or more \(truncated\)/m);
    assert.match(out, /Nodes: 2 of 3 reachable, quorum 2/);
    assert.match(out, /c:3\s+unreachable: connect ECONNREFUSED\\x1b\[2J/);
  });

  it('status: each held lock\'s liveness line under its row, in livenessText\'s words, escaped; a gone holder in red', () => {
    const gone = judgeLiveness({ connection: { state: 'absent', asked: 2 }, process: { state: 'elsewhere', host: 'web\x1b[2J' }, renewal: { state: 'stopped', lastMs: 45_000, everyMs: 10_000 }, heldMs: 240_000, validityMs: 4000, noTtl: false });
    const snap = snapshot([lock('lock:job', [obs('a:1'), obs('b:2'), obs('c:3', { state: 'absent', token: null, pttlMs: null })], { liveness: gone })]);
    const out = renderStatus(snap, null, { patterns: ['*lock*'] });
    assertInert(out, true);
    assert.ok(out.split('\n').includes(`    ${escapeText(livenessText(gone)!)}`), out);
    assert.match(out, /holder gone: no connection on any of 2 nodes; runs on web\\x1b\[2J: its process cannot be checked from this host; no renewal for 45\.0 s \(every 10\.0 s before\); held 4 min 0 s · safe to force-release \(compare-and-delete on the token shown; connection and renewal agree\)/);
    assert.match(out, /^Locks: 1, 1 needs attention \(1 holder gone\)/m);
    assert.ok(renderStatus(snap, null, { patterns: ['*'], style: styleFor(true) }).includes(`\x1b[31m    holder gone:`));
  });

  it('colours only when asked, and never inside escaped text', () => {
    const snap = snapshot([lock('lock:a', [obs('a:1'), obs('b:2'), obs('c:3')])]);
    assert.ok(!renderStatus(snap, null, { patterns: ['*'] }).includes('\x1b'));
    assert.ok(renderStatus(snap, null, { patterns: ['*'], style: styleFor(true) }).includes('\x1b[32m'));
  });

  it('says when nothing matches, and never claims so when too few nodes were read', () => {
    assert.match(renderStatus(snapshot([]), null, { patterns: ['*lock*', 'mutex:*'] }), /^No locks match \*lock\*, mutex:\*\./);
    // A cut read found none in its part: that is all it can say.
    assert.match(renderStatus(snapshot([], { truncated: true }), null, { patterns: ['*lock*'] }), /^No locks match \*lock\* in the part read \(the scan budget cut the read short\)\./);
    const down = snapshot([], { quorum: 2, nodes: snapshot([]).nodes.map((n, i) => (i === 0 ? n : { ...n, reachable: false, outcome: 'unreachable' as const, error: 'timeout' })) });
    const text = renderStatus(down, null, { patterns: ['*lock*'] });
    assert.doesNotMatch(text, /No locks match/);
    assert.match(text, /^No locks listed: only 1 of 3 nodes answered \(quorum 2\), so it cannot be told which locks exist\./);
  });

  it('force-release plan lists node, token and TTL', () => {
    const plan = renderForcePlan(lock('lock:x', [obs('a:1', { token: 'abc', pttlMs: 1234 }), obs('b:2', { state: 'absent', token: null, pttlMs: null }), obs('c:3', { state: 'unreachable', token: null, pttlMs: null, reason: 'timeout' })]));
    assert.match(plan, /2 copies|1 copy/);
    assert.match(plan, /a:1\s+delete\s+token abc\s+TTL 1\.2 s/);
    assert.match(plan, /b:2\s+absent/);
    assert.match(plan, /c:3\s+unreachable: timeout \(left alone\)/);
  });
});


describe('cli: status at a glance', () => {
  const three = (token: string | null, pttlMs: number | null = 5000): Observation[] =>
    ['a:1', 'b:2', 'c:3'].map((n) => (token === null ? obs(n, { state: 'absent', token: null, pttlMs: null }) : obs(n, { token, pttlMs })));
  const locks = (): LockEntry[] => [
    lock('lock:b-held-long', three('t1'), { validityMs: 9000 }),
    lock('lock:a-held-long', three('t1'), { validityMs: 9000 }),
    lock('lock:no-ttl', three('t1', -1), { validityMs: null, flags: ['no-ttl'] }),
    lock('lock:partial', [obs('a:1'), ...three(null).slice(1)], { verdict: 'partial', validityMs: null }),
    lock('lock:held-short', three('t1'), { validityMs: 1000, flags: ['expiring'] }),
    lock('lock:split', [obs('a:1', { token: 'A' }), obs('b:2', { token: 'B' }), obs('c:3', { state: 'absent', token: null, pttlMs: null })], { verdict: 'split', validityMs: null }),
    lock('lock:skew', three('t1'), { validityMs: 3000, flags: ['ttl-skew'] }),
  ];
  const rowKeys = (out: string): string[] => out.split('\n').filter((l) => l.startsWith('lock:')).map((l) => l.split(' ')[0]);

  it('lists anomalies first, in the tree order, then by key', () => {
    const out = renderStatus(snapshot(locks()), null, { patterns: ['*'] });
    assert.deepEqual(rowKeys(out), ['lock:split', 'lock:partial', 'lock:no-ttl', 'lock:a-held-long', 'lock:b-held-long', 'lock:held-short', 'lock:skew']);
    // The order does not depend on the order the core listed them in.
    assert.deepEqual(rowKeys(renderStatus(snapshot(locks().reverse()), null, { patterns: ['*'] })), rowKeys(out));
  });

  it('the summary counts the locks that need attention once each, then what they have, verdicts first', () => {
    const out = renderStatus(snapshot(locks()), null, { patterns: ['*'] });
    // expiring alone is a lock being renewed, not a trouble: the status bar counts the same.
    assert.match(out, /^Locks: 7, 4 need attention \(1 split, 1 partial, 1 no TTL, 1 TTL skew\);/);
    const calm = renderStatus(snapshot([lock('lock:x', three('t1'), { flags: ['reentrant'] })]), null, { patterns: ['*'] });
    assert.match(calm, /^Locks: 1; /);
    const down = renderStatus(snapshot([lock('lock:x', three('t1'), { verdict: 'unknown', flags: ['degraded'] }), lock('lock:y', three('t1'), { flags: ['degraded'] })]), null, { patterns: ['*'] });
    assert.match(down, /^Locks: 2, 2 need attention \(1 unknown, 2 degraded\);/);
  });

  it('a lock without TTL is never green', () => {
    const colour = styleFor(true);
    const out = renderStatus(snapshot(locks()), null, { patterns: ['*'], style: colour });
    const row = out.split('\n').find((l) => l.startsWith('lock:no-ttl'))!;
    assert.ok(!row.includes('\x1b[32m'), JSON.stringify(row));
    assert.ok(row.includes('\x1b[33mheld 3/3 · no TTL'), JSON.stringify(row));
    const healthy = out.split('\n').find((l) => l.startsWith('lock:a-held-long'))!;
    assert.ok(healthy.includes('\x1b[32m'), JSON.stringify(healthy));
  });

  it('columns line up by display width, with wide and combining characters in keys', () => {
    const wide = [
      lock('lock:漢字キー', three('t1'), { validityMs: 5000 }),
      lock('lock:e\u0301clair', three('t1'), { validityMs: 6000 }),
      lock('lock:🙂', three('t1'), { validityMs: 7000 }),
      lock('lock:plain', [obs('a:1', { pttlMs: 150_000 }), obs('b:2', { pttlMs: 800 }), obs('c:3', { state: 'absent', token: null, pttlMs: null })], { validityMs: 700, flags: ['expiring'] }),
    ];
    const out = renderStatus(snapshot(wide), null, { patterns: ['*'] });
    const table = out.split('\n').filter((l) => l.startsWith('lock:') || l.startsWith('KEY'));
    assert.equal(table.length, 5, out);
    // Every row's verdict, flags and each copy start at the header's columns.
    const header = table[0];
    const verdictAt = header.indexOf('VERDICT');
    for (const row of table.slice(1)) {
      const key = row.slice(0, row.indexOf('  '));
      assert.equal(displayWidth(key) + (row.indexOf('held') - key.length), verdictAt, JSON.stringify(row));
    }
    // Copies: each node's cell is padded to the widest in its column.
    const plain = table.find((l) => l.startsWith('lock:plain'))!;
    assert.match(plain, /A 2 min 30 s  A 800 ms  -$/);
    const kanji = table.find((l) => l.startsWith('lock:漢字'))!;
    assert.match(kanji, /A 5\.0 s {7}A 5\.0 s {3}A 5\.0 s$/);
  });

  it('a table of 150,000 locks: a row each, its columns as wide as the widest row, wherever that row is', function () {
    this.timeout(60_000);
    // Past about 120,000 rows, a width taken as Math.max(...rows) threw a RangeError.
    const n = 150_000;
    const locks = new Array<LockEntry>(n).fill(lock('lock:a', three('t1'), { validityMs: 5000 }));
    locks.push(lock('lock:zz-the-longest-key', three('t1'), { validityMs: 5000 }));
    const out = renderStatus(snapshot(locks), null, { patterns: ['*'] });
    const rows = out.split('\n').filter((l) => l.startsWith('lock:'));
    assert.equal(rows.length, n + 1);
    assert.equal(rows[0].indexOf('held'), 'lock:zz-the-longest-key'.length + 2);
  });
});

describe('cli: status --json document', () => {
  it('keeps every snapshot field and appends node facts and the time', () => {
    const snap = snapshot([lock('lock:a', [obs('a:1'), obs('b:2'), obs('c:3')])]);
    const facts: NodeFacts[] = [
      { node: 'b:2', reachable: true, latencyMs: 9, version: '7.2.4', role: 'master', clockOffsetMs: -3, uptimeS: 12, persistence: 'off', restartRisk: true, libraries: ['node-redlock'], error: null },
    ];
    const doc = statusDocument(snap, facts, 1_700_000_000_123);
    assert.deepEqual(Object.keys(doc), ['quorum', 'nodes', 'locks', 'skipped', 'truncated', 'at']);
    assert.equal(doc.at, 1_700_000_000_123);
    assert.deepEqual(doc.locks, snap.locks);
    // The snapshot's reachability, latency and error stay; facts come from the node's own entry.
    // server and capabilities are appended (null where the snapshot did not probe them).
    assert.deepEqual(doc.nodes[1], { ...snap.nodes[1], version: '7.2.4', role: 'master', clockOffsetMs: -3, uptimeS: 12, persistence: 'off', restartRisk: true, libraries: ['node-redlock'], server: null, capabilities: null, readPath: null });
    assert.deepEqual(doc.nodes[2], { ...snap.nodes[2], version: null, role: 'unknown', clockOffsetMs: null, uptimeS: null, persistence: 'unknown', restartRisk: 'unknown', libraries: [], server: null, capabilities: null, readPath: null });
  });
});
