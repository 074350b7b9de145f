import assert from 'node:assert/strict';
import { Redlock } from '../../../src/core';
import { RedisServer, startNodes } from '../../../src/dev/redisServer';
import { waitFor } from '../../support/wait';

// One node of a set with a wrong password: it is named as an auth failure on every
// surface (not a timeout or "not connected"), the other nodes still make the quorum, and
// the node comes back by itself once the server accepts the password.
describe('nodes: a wrong password on one node of a set', function () {
  this.timeout(30_000);
  let servers: RedisServer[];
  let secured: RedisServer;
  let redlock: Redlock;
  before(async () => {
    [secured, servers] = await Promise.all([RedisServer.start({ args: ['--requirepass', 'right-pass'] }), startNodes(2)]);
    redlock = new Redlock([`redis://:wrong-pass@127.0.0.1:${secured.port}`, ...servers.map((s) => s.url)], { commandTimeoutMs: 300, connectTimeoutMs: 1000 });
  });
  after(async () => {
    await redlock?.quit();
    await Promise.all([secured, ...servers].map((s) => s?.dispose()));
  });

  it('is reported as auth by acquire and inspect, never shows the password, and recovers once the server accepts it', async () => {
    const lock = await redlock.acquire('lock:one-wrong-password', 5_000);
    const attempts = await lock.settled;
    assert.equal(attempts[0].outcome, 'auth', JSON.stringify(attempts));
    assert.deepEqual(attempts.slice(1).map((a) => a.outcome), ['granted', 'granted']);
    await redlock.release(lock);

    const snap = await redlock.inspect({ patterns: ['lock:*'] });
    const node = snap.nodes[0];
    assert.equal(node.reachable, false);
    assert.equal(node.outcome, 'auth', JSON.stringify(node));
    assert.match(node.error ?? '', /WRONGPASS/);
    assert.ok(!JSON.stringify(snap).includes('wrong-pass'));

    // It keeps trying, gently: after a refused login the next attempt waits the longest delay.
    const client = redlock.nodes[0].client;
    const delay = await new Promise<number>((resolve) => client.once('reconnecting', resolve));
    assert.equal(delay, 2000);

    // The operator fixes the server side (here: it now takes the password given).
    const admin = secured.client({ password: 'right-pass' });
    try {
      await admin.config('SET', 'requirepass', 'wrong-pass');
    } finally {
      admin.disconnect();
    }
    await waitFor(async () => (await redlock.inspect({ patterns: ['lock:*'] })).nodes[0].reachable, 10_000, 'the node to answer with the password it now accepts');
    const again = await redlock.acquire('lock:one-wrong-password', 5_000);
    assert.deepEqual((await again.settled).map((a) => a.outcome), ['granted', 'granted', 'granted']);
    await redlock.release(again);
  });
});
