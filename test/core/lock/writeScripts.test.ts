// Scripts sent by hand (callScript): the text on a connection's first use, the SHA after,
// and no grant resent out of order once the node has forgotten the script.
import assert from 'node:assert/strict';
import { acquireKeysOn, releaseKeysOn } from '../../../src/core/lock/writeScripts';
import { RedisServer, withClient } from '../../../src/dev/redisServer';
import { waitFor } from '../../support/wait';
import { openMonitor } from '../../support/monitor';

describe('scripts sent by hand', function () {
  this.timeout(20_000);
  let server: RedisServer;

  before(async () => {
    server = await RedisServer.start();
  });
  after(async () => {
    await server.dispose();
  });

  /** The script commands `run` sends, as the node's MONITOR lists them (eval / evalsha). */
  async function scriptCommands(run: () => Promise<unknown>): Promise<string[]> {
    const { monitor, close } = await openMonitor(server);
    const seen: string[] = [];
    let marked = false;
    monitor.on('monitor', (_t: string, args: string[]) => {
      const name = args[0].toLowerCase();
      if (name === 'eval' || name === 'evalsha') seen.push(name);
      if (name === 'echo' && args[1] === 'scripts-test-marker') marked = true;
    });
    try {
      await run();
      // MONITOR lists commands in the order the node ran them: once it lists this marker,
      // it has listed every command of `run`.
      await withClient(server, (c) => c.call('ECHO', 'scripts-test-marker'));
      await waitFor(() => marked, 2_000, 'MONITOR to list the marker');
    } finally {
      close();
    }
    return seen;
  }

  it('sends the text first on each connection, the SHA after, and never meets NOSCRIPT', async () => {
    const c = server.client();
    try {
      await c.script('FLUSH');
      await c.config('RESETSTAT');
      const first = await scriptCommands(() => acquireKeysOn(c, ['s:a', 's:b'], 'tok', '10000'));
      assert.deepEqual(first, ['eval']);
      const then = await scriptCommands(async () => {
        assert.equal(await releaseKeysOn(c, ['s:a', 's:b'], 'tok'), 2);
        assert.equal(await acquireKeysOn(c, ['s:a'], 'tok2', '10000'), 0);
        assert.equal(await releaseKeysOn(c, ['s:a'], 'tok2'), 1);
      });
      assert.deepEqual(then, ['eval', 'evalsha', 'evalsha'], 'release: text once; acquire: the SHA');
      // A new connection (as after a reconnect to a restarted node) sends the text again.
      const other = server.client();
      try {
        assert.deepEqual(await scriptCommands(() => acquireKeysOn(other, ['s:c'], 't', '10000')), ['eval']);
      } finally {
        other.disconnect();
      }
      const stats = String(await c.info('errorstats'));
      assert.doesNotMatch(stats, /NOSCRIPT/);
    } finally {
      c.disconnect();
    }
  });

  it('a node that forgot the script: the grant fails there and writes nothing, the next one sends the text', async () => {
    const c = server.client();
    try {
      await c.ping();
      await acquireKeysOn(c, ['f:warm'], 'w', '10000');
      await c.script('FLUSH');
      await assert.rejects(acquireKeysOn(c, ['f:a', 'f:b'], 'tok', '10000'), /NOSCRIPT/);
      assert.equal(await c.exists('f:a', 'f:b'), 0, 'no grant resent behind later commands');
      assert.equal(await acquireKeysOn(c, ['f:a', 'f:b'], 'tok', '10000'), 0);
      await c.script('FLUSH');
      // A compare-and-delete is right whenever it lands: resent.
      assert.equal(await releaseKeysOn(c, ['f:a', 'f:b'], 'tok'), 2);
    } finally {
      c.disconnect();
    }
  });
});
