// The command line as commander parses it: per-command help, suggestions, exit 2 for every
// usage error, durations, escaping of what is echoed. All of these end before any
// connection is opened, so no Redis node is needed here.
import assert from 'node:assert/strict';
import { failOnParser } from '../../src/cli/failOn';
import { errorLine, main } from '../../src/cli/main';
import { durationParser, envFlag, parseTtl, splitNodeList } from '../../src/cli/options';
import { parseDurationMs } from '../../src/shared/duration';
import { memoryIo, MemoryIo } from './memoryIo';

async function run(argv: string[], env = {}): Promise<{ code: number; io: MemoryIo }> {
  const io = memoryIo(env);
  const code = await main(argv, io);
  return { code, io };
}

/** A usage error: exit 2, nothing on stdout, exactly one escaped line on stderr. */
async function usage(argv: string[], env = {}): Promise<string> {
  const { code, io } = await run(argv, env);
  assert.equal(code, 2, `exit 2 for ${JSON.stringify(argv)}; stderr ${JSON.stringify(io.stderr)}`);
  assert.deepEqual(io.stdout, []);
  assert.equal(io.stderr.length, 1, JSON.stringify(io.stderr));
  const line = io.stderr[0];
  assert.ok(!line.includes('\n') && !line.includes('\x1b') && !line.includes('\x07'), JSON.stringify(line));
  assert.ok(line.startsWith('redlock-inspector: '), line);
  return line;
}

describe('cli: parsing on commander', () => {
  describe('options before the command', () => {
    it('are parsed as the command\'s own, and a value named like a command stays a value', async () => {
      // --ttl 0 is only known to acquire: reaching its range check proves the command was found.
      assert.match(await usage(['--node', 'redis://127.0.0.1:1', 'acquire', 'x', '--ttl', '0']), /invalid --ttl "0"/);
      assert.match(await usage(['--json', '--ttl', '0', 'acquire', 'x']), /invalid --ttl "0"/);
      const { code, io } = await run(['--read-only', 'release', 'status', '--token', 't']);
      assert.equal(code, 2);
      assert.match(io.stderr.join('\n'), /read-only/);
      assert.match(await usage(['--node', 'status']), /--node/);
    });
  });

  describe('help and version', () => {
    it('acquire --help prints the help of acquire, not the global help, and exits 0', async () => {
      for (const argv of [['acquire', '--help'], ['acquire', '-h'], ['help', 'acquire']]) {
        const { code, io } = await run(argv);
        assert.equal(code, 0, argv.join(' '));
        const text = io.stdout.join('\n');
        assert.match(text, /^Usage: redlock-inspector acquire \[options\] <resource\.\.\.>/);
        assert.match(text, /--ttl <duration>/);
        assert.match(text, /--retry <n>/);
        assert.match(text, /--read-only/, 'global options are listed too');
        assert.doesNotMatch(text, /force-release|--fail-on|--pattern/);
        assert.deepEqual(io.stderr, []);
      }
    });

    it('status --help documents --fail-on with every name; --help lists every command', async () => {
      const s = await run(['status', '--help']);
      assert.equal(s.code, 0);
      const text = s.io.stdout.join('\n').replace(/\s+/g, ' ');
      assert.match(text, /--fail-on <names>/);
      for (const name of ['split', 'partial', 'no-ttl', 'ttl-skew', 'degraded']) assert.ok(text.includes(name), name);
      const g = await run(['--help']);
      assert.equal(g.code, 0);
      for (const c of ['status', 'watch', 'acquire', 'extend', 'release', 'force-release', 'history', 'completion']) assert.match(g.io.stdout.join('\n'), new RegExp(`^  ${c} `, 'm'), c);
    });

    it('--version prints the version and exits 0', async () => {
      const { code, io } = await run(['--version']);
      assert.equal(code, 0);
      assert.equal(io.stdout.length, 1);
      assert.match(io.stdout[0], /^(\d+\.\d+\.\d+.*|unknown)$/);
    });

    it('no command at all: the help on stderr and exit 2', async () => {
      const { code, io } = await run([]);
      assert.equal(code, 2);
      assert.deepEqual(io.stdout, []);
      assert.match(io.stderr.join('\n'), /Usage: redlock-inspector/);
    });
  });

  describe('usage errors exit 2 (never commander\'s 1) with one line', () => {
    it('suggests the command meant by a typo', async () => {
      assert.equal(await usage(['stauts']), "redlock-inspector: unknown command 'stauts' (did you mean status?)");
      assert.match(await usage(['aquire', 'x']), /did you mean acquire\?/);
      assert.match(await usage(['frobnicate']), /unknown command 'frobnicate'$/);
    });

    it('suggests the option meant by a typo, per command', async () => {
      assert.match(await usage(['status', '--jsn']), /unknown option '--jsn' \(did you mean --json\?\)/);
      assert.match(await usage(['acquire', 'x', '--ttl', '5', '--tll', '5']), /unknown option '--tll' \(did you mean --ttl\?\)/);
      assert.match(await usage(['status', '--fail-onn', 'split']), /did you mean --fail-on\?/);
      // --ttl belongs to acquire and extend only.
      assert.match(await usage(['status', '--ttl', '5']), /unknown option '--ttl'/);
      assert.match(await usage(['release', 'x', '--token', 't', '--ttl', '5']), /unknown option '--ttl'/);
    });

    it('missing values, arguments and required options', async () => {
      assert.match(await usage(['acquire', 'x', '--ttl']), /--ttl <duration>' argument missing/);
      assert.match(await usage(['acquire', '--ttl', '5']), /missing required argument 'resource'/);
      assert.match(await usage(['acquire', 'x']), /required option '--ttl <duration>' not specified/);
      assert.match(await usage(['extend', 'x', '--ttl', '5']), /required option '--token <token>' not specified/);
      assert.match(await usage(['release', 'x']), /required option '--token <token>' not specified/);
      assert.match(await usage(['force-release']), /missing required argument 'resource'/);
      assert.match(await usage(['force-release', 'a', 'b']), /too many arguments/);
      assert.match(await usage(['history']), /missing required argument 'resource'/);
      assert.match(await usage(['history', 'a', 'b']), /too many arguments/);
      assert.match(await usage(['status', 'oops']), /too many arguments for 'status'/);
      assert.match(await usage(['completion']), /missing required argument 'shell'/);
      assert.match(await usage(['completion', 'fish']), /Allowed choices are bash, zsh/);
    });

    it('bad values: resources, tokens, nodes, patterns, retries', async () => {
      assert.match(await usage(['acquire', '', '--ttl', '5']), /empty resource name/);
      assert.match(await usage(['acquire', 'hex:', '--ttl', '5']), /empty resource name/);
      assert.match(await usage(['acquire', 'a', 'a', '--ttl', '5']), /resource "a" given twice/);
      assert.match(await usage(['release', 'a', '--token', '']), /empty --token/);
      assert.match(await usage(['status', '--pattern', '']), /empty --pattern/);
      assert.match(await usage(['status', '--node', ' ']), /empty --node/);
      assert.match(await usage(['acquire', 'x', '--ttl', '5', '--retry', '-1']), /invalid --retry "-1"/);
      assert.match(await usage(['acquire', 'x', '--ttl', '5', '--retry', '1001']), /invalid --retry/);
      assert.match(await usage(['status', '--node', 'http://user:hunter2@127.0.0.1:1']), /unknown scheme "http:"/);
      assert.match(await usage(['status']), /no Redis node configured/);
    });

    it('refusals before any connection: read-only (flag anywhere, or env) and force-release off a terminal', async () => {
      const node = ['--node', 'redis://127.0.0.1:1'];
      for (const argv of [['--read-only', 'acquire', 'x', '--ttl', '10s'], ['acquire', 'x', '--read-only', '--ttl', '10s'], ['release', 'x', '--token', 't', '--read-only'], ['extend', 'x', '--token', 't', '--ttl', '2m', '--read-only'], ['force-release', 'x', '--yes', '--read-only']]) {
        assert.match(await usage([...argv, ...node]), /read-only mode \(--read-only\): .* refused; nothing was sent/);
      }
      assert.match(await usage(['acquire', 'x', '--ttl', '5', ...node], { REDLOCK_READ_ONLY: 'yes' }), /read-only mode \(REDLOCK_READ_ONLY is set\)/);
      // Read-only wins over the --yes rule; without read-only, --yes is needed off a terminal.
      assert.match(await usage(['force-release', 'x', '--read-only', ...node]), /read-only/);
      assert.match(await usage(['force-release', 'x', ...node]), /needs --yes when stdin is not a terminal; nothing deleted/);
    });
  });

  describe('durations', () => {
    it('--ttl, --interval and --expiring-ms take 1500, 1500ms, 10s and 2m', () => {
      assert.equal(parseTtl('1500'), 1500);
      assert.equal(parseTtl('1500ms'), 1500);
      assert.equal(parseTtl('10s'), 10_000);
      assert.equal(parseTtl('2m'), 120_000);
      assert.equal(parseTtl('1.5s'), 1500);
      assert.equal(parseTtl('1h'), 3_600_000);
      assert.equal(parseTtl('1'), 1);
      assert.equal(parseTtl('2147483647'), 2 ** 31 - 1);
      assert.equal(parseTtl('2147483647ms'), 2 ** 31 - 1);
      assert.equal(durationParser('--expiring-ms', 0)('0'), 0);
      assert.equal(durationParser('--interval', 100)('1s'), 1000);
    });

    it('the shared parser refuses signs, blanks, exponents, unknown units and fractions of a ms', () => {
      for (const bad of ['', ' 5', '5 ', '+5', '-5', '1e3', '0x10', '1.5', '1.0005s', '5 s', '5sec', '5S', 's', '.5s', '5.s', '99999999999999999999']) {
        assert.equal(parseDurationMs(bad), undefined, JSON.stringify(bad));
      }
      assert.equal(parseDurationMs('0'), 0);
      assert.equal(parseDurationMs('0.25s'), 250);
    });

    it('a TTL outside 1..2^31-1 ms exits 2 naming the value', async () => {
      for (const bad of ['0', '0ms', '-1', 'abc', '2147483648', '2147484s', '25d', '1.5', '10 s']) {
        assert.match(await usage(['acquire', 'x', '--ttl', bad]), /^redlock-inspector: invalid --ttl ".*": expected a duration from 1 to 2147483647 ms \(1500, 1500ms, 10s, 2m\)$/, bad);
      }
      assert.match(await usage(['watch', '--interval', '50ms']), /invalid --interval "50ms"/);
      assert.match(await usage(['status', '--expiring-ms', '-1']), /invalid --expiring-ms/);
    });
  });

  describe('escaping what is echoed', () => {
    const OSC52 = '\x1b]52;c;aGVsbG8=\x07';

    it('an unknown option or command carrying OSC 52 or CSI never reaches the terminal raw', async () => {
      for (const argv of [['status', `--x${OSC52}`], [`st${OSC52}`], [`\x1b[2J\nstatus`], ['acquire', 'x', '--ttl', `5${OSC52}`], ['status', '--fail-on', `split,${OSC52}`], ['completion', OSC52], ['status', `--x\u202e`], ['status', `\x9b31m`]]) {
        const line = await usage(argv);
        assert.doesNotMatch(line, /[\x00-\x1f\x7f-\x9f\u202e]/, JSON.stringify(line));
      }
      assert.match(await usage(['status', `--x${OSC52}`]), /unknown option '--x\\x1b\]52;c;aGVsbG8=\\x07'/);
    });

    it('a forged suggestion inside an argument is escaped, not taken as ours', () => {
      const forged = "error: unknown command 'a\n(Did you mean \x1b[2J?)'\n(Did you mean status?)\n";
      const line = errorLine(forged);
      assert.ok(!line.includes('\n') && !line.includes('\x1b'), JSON.stringify(line));
      assert.match(line, /\(did you mean status\?\)$/);
    });
  });

  describe('status --fail-on names', () => {
    it('takes verdicts and flags, comma-separated and repeatable', () => {
      assert.deepEqual([...failOnParser('split,no-ttl', undefined)], ['split', 'no-ttl']);
      assert.deepEqual([...failOnParser('partial', failOnParser('split', undefined))], ['split', 'partial']);
      assert.deepEqual([...failOnParser(' held , expiring', undefined)], ['held', 'expiring']);
    });

    it('an unknown name exits 2 and lists the names', async () => {
      const line = await usage(['status', '--fail-on', 'split,splitt', '--node', 'redis://127.0.0.1:1']);
      assert.match(line, /invalid --fail-on "splitt" \(did you mean split\?\): expected verdicts or flags \(split, held, unknown, partial, no-ttl, ttl-skew, expiring, degraded, reentrant, deadlock\)/);
      assert.match(await usage(['status', '--fail-on', '']), /invalid --fail-on ""/);
      assert.match(await usage(['status', '--fail-on', 'splt']), /invalid --fail-on "splt" \(did you mean split\?\): expected verdicts or flags/);
      assert.match(await usage(['status', '--fail-on', 'nottl']), /\(did you mean no-ttl\?\)/);
      assert.doesNotMatch(await usage(['status', '--fail-on', 'bogus']), /did you mean/);
      assert.match(await usage(['status', '--fail-on', 'held,,split']), /invalid --fail-on "held,,split": an empty name/);
      assert.match(await usage(['status', '--fail-on', '__proto__']), /invalid --fail-on "__proto__"/);
      assert.match(await usage(['status', '--fail-on']), /argument missing/);
    });
  });

  describe('environment', () => {
    it('REDLOCK_NODES keeps sentinel and cluster URLs whole', () => {
      assert.deepEqual(splitNodeList('redis://a:1, redis+sentinel://s1:26379,s2:26379/mymaster ,redis+cluster://c1:7000,c2:7000,redis://b:2'), ['redis://a:1', 'redis+sentinel://s1:26379,s2:26379/mymaster', 'redis+cluster://c1:7000,c2:7000', 'redis://b:2']);
      assert.deepEqual(splitNodeList('rediss+sentinel://s1:26379,s2:26379/m,rediss+cluster://c1:7000,c2:7000'), ['rediss+sentinel://s1:26379,s2:26379/m', 'rediss+cluster://c1:7000,c2:7000']);
      assert.deepEqual(splitNodeList(''), []);
      assert.deepEqual(splitNodeList(' , '), []);
    });

    it('REDLOCK_READ_ONLY is on for any value but empty, 0, false, no, off', () => {
      for (const v of ['1', 'true', 'YES', 'on', 'anything']) assert.equal(envFlag(v), true, v);
      for (const v of [undefined, '', '0', 'false', 'No', 'off']) assert.equal(envFlag(v), false, String(v));
    });
  });

  describe('--fencing', () => {
    it('is an acquire option (in its help); other commands refuse it as unknown', async () => {
      const { code, io } = await run(['acquire', '--help']);
      assert.equal(code, 0);
      assert.match(io.stdout.join('\n'), /--fencing/);
      assert.match(await usage(['extend', 'x', '--token', 't', '--ttl', '1', '--fencing', '--node', 'redis://127.0.0.1:1']), /--fencing/);
      assert.match(await usage(['status', '--fencing', '--node', 'redis://127.0.0.1:1']), /--fencing/);
    });
  });
});
