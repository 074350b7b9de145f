import assert from 'node:assert/strict';
import { envFlag, parseArgs, splitNodeList, UsageError } from '../../src/cli/args';

const N = ['--node', 'redis://127.0.0.1:7001'];

function usage(argv: string[], env = {}): string {
  try {
    parseArgs(argv, env);
  } catch (e) {
    assert.ok(e instanceof UsageError, `expected a UsageError, got ${String(e)}`);
    assert.ok(!e.message.includes('\n'), 'one line');
    return e.message;
  }
  assert.fail(`no error for ${JSON.stringify(argv)}`);
}

describe('cli: argument parsing', () => {
  it('parses status with repeatable --pattern and --node, and the defaults', () => {
    const c = parseArgs(['status', '--node', 'redis://a:1', '--node=redis://b:2', '--pattern', 'x*', '--pattern', 'y*', '--json', '--expiring-ms', '500']);
    assert.equal(c.name, 'status');
    if (c.name !== 'status') return;
    assert.deepEqual(c.nodes, ['redis://a:1', 'redis://b:2']);
    assert.deepEqual(c.patterns, ['x*', 'y*']);
    assert.equal(c.json, true);
    assert.equal(c.expiringMs, 500);
    const d = parseArgs(['status'], { REDLOCK_NODES: 'redis://a:1' });
    assert.ok(d.name === 'status' && d.patterns.length === 1 && d.patterns[0] === '*lock*' && d.expiringMs === undefined && !d.json);
  });

  it('--node replaces REDLOCK_NODES; REDLOCK_NODES keeps sentinel and cluster URLs whole', () => {
    const env = { REDLOCK_NODES: 'redis://a:1, redis+sentinel://s1:26379,s2:26379/mymaster ,redis+cluster://c1:7000,c2:7000,redis://b:2' };
    const c = parseArgs(['status'], env);
    assert.deepEqual(c.name === 'status' && c.nodes, ['redis://a:1', 'redis+sentinel://s1:26379,s2:26379/mymaster', 'redis+cluster://c1:7000,c2:7000', 'redis://b:2']);
    const d = parseArgs(['status', '--node', 'redis://x:9'], env);
    assert.deepEqual(d.name === 'status' && d.nodes, ['redis://x:9']);
    assert.deepEqual(splitNodeList(''), []);
    assert.deepEqual(splitNodeList(' , '), []);
  });

  it('parses acquire/extend/release with hex: resources and tokens as bytes', () => {
    const a = parseArgs(['acquire', 'lock:a', 'hex:00ff', '--ttl', '10000', '--retry', '3', ...N]);
    assert.ok(a.name === 'acquire');
    if (a.name !== 'acquire') return;
    assert.deepEqual(a.resources, [Buffer.from('lock:a'), Buffer.from([0, 255])]);
    assert.equal(a.ttlMs, 10000);
    assert.equal(a.retry, 3);
    const e = parseArgs(['extend', 'lock:a', '--token', 'hex:c3', '--ttl=5'], {});
    assert.ok(e.name === 'extend' && e.token.equals(Buffer.from([0xc3])) && e.ttlMs === 5);
    const r = parseArgs(['release', '--token', 'abc', 'lock:a', 'lock:b']);
    assert.ok(r.name === 'release' && r.token.toString() === 'abc' && r.resources.length === 2);
    assert.equal(parseArgs(['acquire', 'x', '--ttl', '1']).name, 'acquire');
    const x = parseArgs(['acquire', 'x', '--ttl', '2147483647']);
    assert.ok(x.name === 'acquire' && x.ttlMs === 2147483647 && x.retry === 0);
  });

  it('acquire takes --fencing (off by default); other commands refuse it', () => {
    const f = parseArgs(['acquire', 'x', '--ttl', '1', '--fencing']);
    assert.ok(f.name === 'acquire' && f.fencing === true);
    const p = parseArgs(['acquire', 'x', '--ttl', '1']);
    assert.ok(p.name === 'acquire' && p.fencing === false);
    assert.throws(() => parseArgs(['extend', 'x', '--token', 't', '--ttl', '1', '--fencing']), /fencing/);
  });

  it('rejects bad TTLs with one line naming the value', () => {
    for (const bad of ['0', '-1', 'abc', '2147483648', '1.5', '1e3', '', ' 5', '+5', '0x10', '99999999999999999999']) {
      const m = usage(['acquire', 'x', '--ttl', bad]);
      assert.match(m, /^invalid --ttl ".*": expected an integer number of milliseconds from 1 to 2147483647$/);
    }
    assert.match(usage(['acquire', 'x']), /needs --ttl/);
    assert.match(usage(['acquire', 'x', '--ttl']), /--ttl needs a value/);
    assert.match(usage(['extend', 'x', '--token', 't', '--ttl', '0']), /invalid --ttl/);
    assert.match(usage(['acquire', 'x', '--ttl', '5', '--retry', '-1']), /invalid --retry/);
  });

  it('rejects empty resources and tokens, duplicates, stray arguments and unknown options', () => {
    assert.match(usage(['acquire', '', '--ttl', '5']), /empty resource/);
    assert.match(usage(['acquire', 'hex:', '--ttl', '5']), /empty resource/);
    assert.match(usage(['acquire', '--ttl', '5']), /at least one RESOURCE/);
    assert.match(usage(['acquire', 'a', 'a', '--ttl', '5']), /given twice/);
    assert.match(usage(['release', 'a', '--token', '']), /empty --token/);
    assert.match(usage(['release', 'a']), /needs --token/);
    assert.match(usage(['force-release']), /exactly one RESOURCE/);
    assert.match(usage(['force-release', 'a', 'b']), /exactly one RESOURCE/);
    assert.match(usage(['status', 'oops']), /takes no arguments/);
    assert.match(usage(['status', '--ttl', '5']), /--ttl is not an option of status/);
    assert.match(usage(['acquire', 'a', '--ttl', '5', '--ttl', '6']), /more than once/);
    assert.match(usage(['status', '--bogus']), /unknown option --bogus/);
    assert.match(usage(['frobnicate']), /unknown command "frobnicate"/);
    assert.match(usage([]), /missing command/);
    assert.match(usage(['status', '--pattern', '']), /empty --pattern/);
    assert.match(usage(['status', '--node', '']), /empty --node/);
    assert.match(usage(['watch', '--interval', '5']), /invalid --interval/);
    assert.match(usage(['status', '--json=1']), /takes no value/);
  });

  it('escapes what it echoes', () => {
    const m = usage(['acquire', 'x', '--ttl', '\x1b[31m\n']);
    assert.ok(!m.includes('\x1b') && !m.includes('\n'));
    assert.ok(m.includes('\\x1b'));
  });

  it('-- ends options, so a resource may start with a dash', () => {
    const c = parseArgs(['acquire', '--ttl', '5', '--', '--weird', '-x']);
    assert.ok(c.name === 'acquire' && c.resources.map(String).join(' ') === '--weird -x');
  });

  it('read-only from the flag or REDLOCK_READ_ONLY; force-release --yes / -y', () => {
    assert.ok(parseArgs(['release', 'a', '--token', 't', '--read-only']).name === 'release');
    const r = parseArgs(['release', 'a', '--token', 't', '--read-only']);
    assert.ok('readOnly' in r && r.readOnly);
    const e = parseArgs(['acquire', 'a', '--ttl', '5'], { REDLOCK_READ_ONLY: '1' });
    assert.ok('readOnly' in e && e.readOnly);
    const off = parseArgs(['acquire', 'a', '--ttl', '5'], { REDLOCK_READ_ONLY: '0' });
    assert.ok('readOnly' in off && !off.readOnly);
    for (const v of ['1', 'true', 'YES', 'on', 'anything']) assert.equal(envFlag(v), true, v);
    for (const v of [undefined, '', '0', 'false', 'No', 'off']) assert.equal(envFlag(v), false, String(v));
    const f = parseArgs(['force-release', 'a', '-y', '--json']);
    assert.ok(f.name === 'force-release' && f.yes && f.json && f.resource.toString() === 'a');
    assert.ok(parseArgs(['force-release', 'a']).name === 'force-release');
  });

  it('help and version win over everything else', () => {
    assert.equal(parseArgs(['acquire', '--ttl', '0', '--help']).name, 'help');
    assert.equal(parseArgs(['-h']).name, 'help');
    assert.equal(parseArgs(['help']).name, 'help');
    assert.equal(parseArgs(['--version']).name, 'version');
  });

  it('takes REDLOCK_PASSWORD as the default password', () => {
    const c = parseArgs(['status'], { REDLOCK_PASSWORD: 'pw' });
    assert.ok(c.name === 'status' && c.password === 'pw');
    const d = parseArgs(['status'], { REDLOCK_PASSWORD: '' });
    assert.ok(d.name === 'status' && d.password === undefined);
  });
});
