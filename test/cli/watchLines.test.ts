import assert from 'node:assert/strict';
import { WatchLines } from '../../src/cli/watchLines';
import type { Flag, LockEntry, Observation } from '../../src/core/vocabulary/types';
import { judgeLiveness, livenessText, type ConnectionSignal, type RenewalSignal } from '../../src/core/vocabulary/liveness';

const IDS = ['127.0.0.1:7101', '127.0.0.1:7102', '127.0.0.1:7103', '127.0.0.1:7104', '127.0.0.1:7105'];

function copy(node: string, token: string | null, pttlMs = 5000): Observation {
  if (token === null) return { node, state: 'absent', token: null, pttlMs: null, type: null, format: null, holdCount: null, reason: null };
  return { node, state: 'present', token, pttlMs, type: 'string', format: 'string', holdCount: null, reason: null };
}

/** A lock from one token (or null) per node, classified the simple way for these tests. */
function entry(key: string, tokens: Array<string | null>, over: { pttl?: number[]; flags?: Flag[]; validityMs?: number | null } = {}): LockEntry {
  const nodes = tokens.map((t, i) => copy(IDS[i], t, over.pttl?.[i] ?? 5000));
  const holders = Object.create(null) as Record<string, number>;
  for (const o of nodes) if (o.token !== null) holders[o.token] = (holders[o.token] ?? 0) + 1;
  const counts = Object.values(holders).sort((a, b) => b - a);
  const verdict = counts.length > 1 ? 'split' : (counts[0] ?? 0) >= 3 ? 'held' : 'partial';
  return { key, verdict, flags: over.flags ?? [], validityMs: over.validityMs === undefined ? (verdict === 'held' ? 4000 : null) : over.validityMs, quorum: 3, holders, fence: null, fenceRisk: false, nodes };
}

describe('cli: watch says what changed', () => {
  it('names node, field and before→after for a token change, and the new token once', () => {
    const w = new WatchLines();
    w.seed([entry('lock:split:payments', ['tA', 'tA', 'tA', 'tA', null])], 0);
    const c = w.changed(entry('lock:split:payments', ['tA', 'tA', 'tB', 'tB', null], { pttl: [4500, 4500, 5000, 5000, 0] }), 500);
    assert.equal(c.text, 'lock:split:payments split 2+2/5: verdict held 4/5→split 2+2/5; 127.0.0.1:7103, 127.0.0.1:7104 token A→B');
    assert.deepEqual(c.legend, ['B = tB']);
    // B stays B; a third token gets C even after A is gone everywhere.
    const d = w.changed(entry('lock:split:payments', ['tC', 'tC', 'tB', 'tB', 'tB'], { pttl: [5000, 5000, 4600, 4600, 5000] }), 900);
    assert.equal(d.text, 'lock:split:payments split 3+2/5: verdict split 2+2/5→split 3+2/5; 127.0.0.1:7101, 127.0.0.1:7102 token A→C; 127.0.0.1:7105 copy -→B');
    assert.deepEqual(d.legend, ['C = tC']);
  });

  it('reports copies that appear, vanish or lose their TTL, and flag changes', () => {
    const w = new WatchLines();
    w.seed([entry('lock:x', ['t', 't', 't', null, null])], 0);
    const c = w.changed(entry('lock:x', ['t', 't', 't', 't', null], { pttl: [5000, 5000, 5000, -1, 0], flags: ['no-ttl'] }), 100);
    assert.equal(c.text, 'lock:x held 4/5 · 4.0 s: verdict held 3/5→held 4/5; flags +no-ttl; 127.0.0.1:7104 copy -→A');
    const d = w.changed(entry('lock:x', ['t', 't', 't', 't', null], { pttl: [5000, 5000, -1, 3000, 0], flags: ['no-ttl'] }), 200);
    assert.equal(d.text, 'lock:x held 4/5 · 4.0 s: 127.0.0.1:7103 TTL 4.9 s→no TTL; 127.0.0.1:7104 TTL no TTL→3.0 s');
  });

  it('a renewal (TTL jump, expiring flipping) is quiet; it shows when something else changes too', () => {
    const w = new WatchLines();
    w.seed([entry('lock:worker', ['t', 't', 't', 't', 't'], { pttl: [3000, 3000, 3000, 3000, 3000] })], 0);
    // Validity fell below the threshold: expiring only.
    assert.equal(w.changed(entry('lock:worker', ['t', 't', 't', 't', 't'], { pttl: [1500, 1500, 1500, 1500, 1500], flags: ['expiring'] }), 1500).text, null);
    // Renewed: TTLs jump back up, expiring clears.
    assert.equal(w.changed(entry('lock:worker', ['t', 't', 't', 't', 't'], { pttl: [3000, 3000, 3000, 3000, 3000] }), 1600).text, null);
    // Renewed on four nodes while the fifth lost its copy: printed, the jumps included.
    const c = w.changed(entry('lock:worker', ['t', 't', 't', 't', null], { pttl: [3000, 3000, 3000, 3000, 0] }), 3100);
    assert.equal(c.text, 'lock:worker held 4/5 · 4.0 s: verdict held 5/5→held 4/5; 127.0.0.1:7101, 127.0.0.1:7102, 127.0.0.1:7103, 127.0.0.1:7104 TTL 1.5 s→3.0 s; 127.0.0.1:7105 copy A→-');
  });

  it('a holder that stops renewing, or comes back, is printed with its liveness line; a first renewal or the same verdict stays quiet', () => {
    const w = new WatchLines();
    const renewing = (lastMs: number): RenewalSignal => ({ state: 'renewing', lastMs, everyMs: 1000 });
    const judged = (connection: ConnectionSignal, renewal: RenewalSignal) => judgeLiveness({ connection, process: null, renewal, heldMs: null, validityMs: 4000, noTtl: false });
    const base = entry('lock:job', ['t', 't', 't', 't', 't']);
    const connected: ConnectionSignal = { state: 'connected', connectedOn: 5, asked: 5, idleMs: 0 };
    w.seed([{ ...base, liveness: judged(connected, renewing(100)) }], 0);
    const at = (ms: number): LockEntry => entry('lock:job', ['t', 't', 't', 't', 't'], { pttl: [5000 - ms, 5000 - ms, 5000 - ms, 5000 - ms, 5000 - ms] });
    assert.equal(w.changed({ ...at(300), liveness: judged(connected, renewing(400)) }, 300).text, null);
    const stopped = judged(connected, { state: 'stopped', lastMs: 1600, everyMs: 1000 });
    assert.equal(w.changed({ ...at(1500), liveness: stopped }, 1500).text, `lock:job held 5/5 · 4.0 s: ${livenessText(stopped)}`);
    // Back to alive: said, since it had stopped; a first renewal of an unknown holder is not.
    const back = judged(connected, renewing(10));
    assert.equal(w.changed({ ...at(1600), liveness: back }, 1600).text, `lock:job held 5/5 · 4.0 s: ${livenessText(back)}`);
    const other = entry('lock:other', ['u', 'u', 'u', 'u', 'u']);
    w.seed([{ ...other, liveness: judged({ state: 'unknown', reason: 'its token names no client to look for' }, { state: 'never', lastMs: null, everyMs: null, watchedMs: 100 }) }], 0);
    assert.equal(w.changed({ ...entry('lock:other', ['u', 'u', 'u', 'u', 'u'], { pttl: [4900, 4900, 4900, 4900, 4900] }), liveness: judged({ state: 'unknown', reason: 'x' }, renewing(0)) }, 100).text, null);
    assert.match(livenessText(stopped)!, /^holder stopped renewing: connected on 5\/5 nodes, idle 0 ms; no renewal for 1\.6 s \(every 1\.0 s before\) · it expires in 4\.0 s by itself: wait, or force-release$/);
  });

  it('says when waiters come and go, and when a deadlock appears', () => {
    const w = new WatchLines();
    const base = entry('lock:w', ['t', 't', 't', 't', 't']);
    w.seed([{ ...base, waiters: [] }], 0);
    const waiter = { name: 'report', host: 'h', pid: 7, since: 1 };
    const c = w.changed({ ...base, waiters: [waiter, { ...waiter, pid: 8 }] }, 100);
    assert.equal(c.text, 'lock:w held 5/5 · 4.0 s: waiting 0→2');
    const d = w.changed({ ...base, flags: ['deadlock'], waiters: [waiter], cycle: ['lock:v', 'lock:w'] }, 200);
    assert.equal(d.text, 'lock:w held 5/5 · 4.0 s: flags +deadlock; waiting 2→1');
  });

  it('escapes key names and tokens', () => {
    const w = new WatchLines();
    w.seed([], 0);
    assert.deepEqual(w.added(entry('lock:\x1b[2J', ['t\x07', 't\x07', 't\x07', null, null]), 0), ['A = t\\x07']);
    const c = w.changed(entry('lock:\x1b[2J', ['t\x07', 't\u202e', 't\x07', null, null]), 10);
    assert.ok(c.text!.startsWith('lock:\\x1b[2J split 2+1/5: '), c.text!);
    assert.deepEqual(c.legend, ['B = t\\u{202e}']);
  });

  it('a key it has not seen is treated as new', () => {
    const w = new WatchLines();
    w.seed([], 0);
    assert.deepEqual(w.changed(entry('lock:late', ['t', 't', 't', null, null]), 0), { text: 'lock:late held 3/5 · 4.0 s', legend: ['A = t'] });
  });

  it('a new fence and a fencing risk are loud changes', () => {
    const w = new WatchLines();
    const a = { ...entry('lock:f', ['t1', 't1', 't1', null, null]), fence: 33 };
    w.seed([a], 0);
    const b = { ...a, fence: 34 };
    assert.match(w.changed(b, 100).text ?? '', /fence 33→34/);
    const c = { ...b, fenceRisk: true };
    assert.match(w.changed(c, 200).text ?? '', /\+fencing risk/);
  });
});
