// acquire --retry on a terminal draws "waiting for ... (held by ...), attempt n/m" on
// stderr; off a terminal or with --json it adds nothing. In process through main(), on
// real nodes, with an Io whose stderr is (or is not) a terminal.
import assert from 'node:assert/strict';
import { main } from '../../../src/cli/main';
import { RedisServer, startNodes, withClient } from '../../../src/dev/redisServer';
import { memoryIo } from '../memoryIo';

describe('cli: acquire --retry progress (3 real nodes)', function () {
  let servers: RedisServer[];
  let nodes: string[];

  before(async () => {
    servers = await startNodes(3);
    nodes = servers.flatMap((s) => ['--node', s.url]);
  });
  beforeEach(async () => {
    for (const s of servers) await withClient(s, (c) => c.set('lock:busy', 'other-holder-token-1234', 'PX', 60_000));
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.dispose()));
  });

  it('on a terminal: one progress line per refused attempt, erased before the result', async () => {
    const io = memoryIo({}, { errIsTTY: true });
    const code = await main(['acquire', 'lock:busy', '--ttl', '5s', '--retry', '2', ...nodes], io);
    assert.equal(code, 1);
    assert.deepEqual(io.progressLines, [
      'waiting for lock:busy (held by othe…34), attempt 1/3',
      'waiting for lock:busy (held by othe…34), attempt 2/3',
      null,
    ]);
    assert.equal(io.stderr.length, 1, io.stderr.join('\n'));
    assert.match(io.stderr[0], /after 3 attempts|held by another token/);
  });

  it('on a terminal: the wait ends when the holder lets go', async () => {
    const io = memoryIo({}, { errIsTTY: true });
    const draw = io.progress;
    let released: Promise<unknown> | undefined;
    io.progress = (text) => {
      draw(text);
      // The holder lets go once the first progress line is out.
      released ??= Promise.all(servers.map((s) => withClient(s, (c) => c.del('lock:busy'))));
    };
    const code = await main(['acquire', 'lock:busy', '--ttl', '5s', '--retry', '20', ...nodes], io);
    await released;
    assert.equal(code, 0, io.stderr.join('\n'));
    assert.ok(io.progressLines.length >= 2, String(io.progressLines));
    assert.equal(io.progressLines.at(-1), null);
    assert.match(io.stdout.join('\n'), /^acquired lock:busy: validity /);
  });

  it('off a terminal, or with --json: nothing but the result', async () => {
    const pipe = memoryIo();
    assert.equal(await main(['acquire', 'lock:busy', '--ttl', '5s', '--retry', '1', ...nodes], pipe), 1);
    assert.deepEqual(pipe.progressLines, []);
    assert.equal(pipe.stderr.length, 1);
    const json = memoryIo({}, { errIsTTY: true });
    assert.equal(await main(['acquire', 'lock:busy', '--ttl', '5s', '--retry', '1', '--json', ...nodes], json), 1);
    assert.deepEqual(json.progressLines, []);
    assert.equal((JSON.parse(json.stdout.join('\n')) as { token: null }).token, null);
  });

  it('fits the progress line to the terminal width', async () => {
    const { fitWidth } = await import('../../../src/cli/displayWidth');
    assert.equal(fitWidth('waiting for lock:x', 80), 'waiting for lock:x');
    assert.equal(fitWidth('waiting for lock:x', 10), 'waiting f…');
    assert.equal(fitWidth('漢字漢字', 5), '漢字…');
  });
});
