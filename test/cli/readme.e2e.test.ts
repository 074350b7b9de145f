// README's examples, run as written against the demo's states on 5 real nodes: the CLI
// session, the library example (on the Node running the tests: 20 is what `engines`
// allows), and the MCP example's configuration. Ports 7101-7105 are the demo's; the test
// runs on free ports and substitutes them, nothing else.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { seedDemoStates, type DemoStates } from '../../src/dev/demoStates';
import { startNodes, type RedisServer } from '../../src/dev/redisServer';
import { runCli } from './runCli';

const ROOT = process.cwd();
// README and the pages it sends a newcomer to first: every example in them runs.
const README = ['README.md', 'docs/in-production.md'].map((f) => readFileSync(resolve(ROOT, f), 'utf8')).join('\n');
const DEMO_PORTS = [7101, 7102, 7103, 7104, 7105];

/** The fenced block that follows `heading` (a line of README). */
function blockAfter(heading: string): string {
  const at = README.indexOf(heading);
  assert.ok(at >= 0, `README has no ${JSON.stringify(heading)}`);
  const m = /```[a-z]*\n([\s\S]*?)```/.exec(README.slice(at));
  assert.ok(m, `no code block after ${heading}`);
  return m[1];
}

describe('README examples against the demo states', function () {
  this.timeout(60_000);
  let servers: RedisServer[];
  let demo: DemoStates;
  /** README's text with the demo's ports replaced by this run's. */
  let onThisRun: (text: string) => string;

  before(async () => {
    servers = await startNodes(5);
    demo = await seedDemoStates(servers);
    onThisRun = (text) => DEMO_PORTS.reduce((t, port, i) => t.replaceAll(String(port), String(servers[i].port)), text);
  });

  after(async () => {
    await demo?.stop();
  });

  it('the CLI session: the demo\'s 5 nodes, each command as written, the note and the history it promises', async () => {
    const session = blockAfter('What a session looks like:');
    const exported = /^export REDLOCK_NODES=(\S+)$/m.exec(session)?.[1];
    assert.equal(exported, DEMO_PORTS.map((p) => `redis://127.0.0.1:${p}`).join(','), 'the demo runs 5 nodes on 7101-7105');
    assert.match(readFileSync(resolve(ROOT, 'scripts/demo.ts'), 'utf8'), /FIRST_PORT = 7101;\nconst NODES = 5;/);
    const env = { REDLOCK_NODES: onThisRun(exported!) };
    const lines = session
      .split('\n')
      .filter((l) => l.startsWith('redlock-inspector '))
      .map((l) => l.replace(/\s+#.*$/, ''));
    let token = '';
    const seen: Record<string, { code: number | null; stdout: string }> = {};
    for (const line of lines) {
      // watch runs until Ctrl-C: its output is pinned by cli.e2e.test.ts.
      if (line.startsWith('redlock-inspector watch')) continue;
      const args = line
        .split(/\s+/)
        .slice(1)
        .map((a) => a.replace(/^'(.*)'$/, '$1'))
        .map((a) => (a === '3f9c...' ? token : a));
      const r = await runCli(args, env);
      seen[line] = r;
      if (line === 'redlock-inspector acquire orders:42 --ttl 30s') token = /^token (\S+)$/m.exec(r.stdout)?.[1] ?? '';
    }
    const code = (l: string): number | null => seen[l]?.code;
    assert.equal(code('redlock-inspector status'), 0);
    assert.equal(code('redlock-inspector status --json --fail-on split,no-ttl'), 4, 'the demo seeds a split and a lock without TTL');
    assert.equal(code('redlock-inspector acquire orders:42 --ttl 30s'), 0);
    assert.ok(token, 'acquire prints the token');
    assert.equal(code('redlock-inspector acquire orders:43 --ttl 30s --fencing'), 0);
    assert.match(seen['redlock-inspector acquire orders:43 --ttl 30s --fencing'].stdout, /fence/);
    assert.equal(code('redlock-inspector extend orders:42 --token 3f9c... --ttl 2m'), 0);
    assert.equal(code('redlock-inspector release orders:42 --token 3f9c...'), 0);
    // Released just before: nothing to ask about, so no --yes is needed off a terminal.
    assert.equal(code('redlock-inspector force-release orders:42'), 0);
    assert.match(seen['redlock-inspector force-release orders:42'].stdout, /^Nothing to release/m);
    const history = seen['redlock-inspector history orders:42'].stdout;
    for (const what of ['released', 'extended', 'acquired']) assert.match(history, new RegExp(`^  \\S+  ${what} `, 'm'), history);
    assert.equal(code('redlock-inspector acquire --help'), 0);
    assert.equal(code('redlock-inspector discover'), 0);
    assert.match(seen['redlock-inspector discover'].stdout, /orders:\*/, 'discover finds the name the default patterns miss');
    assert.ok([0, 4].includes(code('redlock-inspector audit --since 1h') ?? -1), 'audit: clean or findings');
    assert.equal(code('redlock-inspector status --stats --json'), 0);
  });

  it('the library example runs as written on this Node', () => {
    const code = onThisRun(blockAfter('## Library')).replace("from 'redlock-inspector/core'", `from ${JSON.stringify(resolve(ROOT, 'dist/core/index.mjs'))}`);
    assert.doesNotMatch(code, /^\s*\{?\s*await using/m, '`await using` is a SyntaxError on Node 20');
    const dir = mkdtempSync(join(tmpdir(), 'readme-library-'));
    try {
      const file = join(dir, 'example.mjs');
      writeFileSync(file, `${code}\nconsole.log('locks', snapshot.locks.length, entry === undefined ? 'no entry' : 'entry');\n`);
      const r = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 30_000 });
      assert.equal(r.status, 0, r.stderr);
      // It exits by itself: the snippet stops its watcher and quits.
      assert.match(r.stdout, /^locks [1-9]\d* (entry|no entry)$/m, 'the demo locks are seen');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the MCP example names a command a user can have on PATH', () => {
    const config = JSON.parse(blockAfter('redlock-inspector mcp [--node URL]')) as { mcpServers: { redlock: { command: string; args: string[] } } };
    const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    assert.ok(config.mcpServers.redlock.command in pkg.bin, 'the bin npm link and npm install -g put on PATH');
    assert.equal(config.mcpServers.redlock.args[0], 'mcp');
  });
});
