// Lookalike key names: a key holding a real ESC byte and a key holding the text "\x1b"
// are shown differently, and the name shown, pasted back as an argument, names exactly
// that key (force-release deletes the one the user saw, never its twin).
import assert from 'node:assert/strict';
import { runCli } from './runCli';
import { RedisServer, startNodes, withClient } from '../../src/dev/redisServer';

describe('lookalike key names', function () {
  this.timeout(30_000);
  let node: RedisServer;

  before(async () => {
    [node] = await startNodes(1);
  });
  after(async () => {
    await node.dispose();
  });

  it('a real ESC and the literal text \\x1b: two names shown, each round-trips through force-release', async () => {
    const real = 'lock:\x1b[31m';
    const text = 'lock:\\x1b[31m';
    await withClient(node, async (c) => {
      await c.set(real, 'tok-real', 'PX', 60_000);
      await c.set(text, 'tok-text', 'PX', 60_000);
    });
    const s = await runCli(['status', '--json', '--node', node.url]);
    assert.equal(s.code, 0, s.stderr);
    const keys = (JSON.parse(s.stdout) as { locks: Array<{ key: string }> }).locks.map((l) => l.key).sort();
    assert.deepEqual(keys, ['hex:6c6f636b3a1b5b33316d', text].sort());
    const human = await runCli(['status', '--node', node.url]);
    assert.ok(human.stdout.includes('hex:6c6f636b3a1b5b33316d') && human.stdout.includes(text), human.stdout);

    // Paste the shown name of the real-ESC key: only that key goes.
    const f = await runCli(['force-release', 'hex:6c6f636b3a1b5b33316d', '--yes', '--node', node.url]);
    assert.equal(f.code, 0, f.stderr);
    assert.equal(await withClient(node, (c) => c.exists(real)), 0);
    assert.equal(await withClient(node, (c) => c.get(text)), 'tok-text');
    // And the text one by its shown name.
    const g = await runCli(['force-release', text, '--yes', '--node', node.url]);
    assert.equal(g.code, 0, g.stderr);
    assert.equal(await withClient(node, (c) => c.exists(text)), 0);
  });
});
