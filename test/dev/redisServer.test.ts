// The test harness's servers: a port is never handed out twice, and a server that could
// not bind its port is never taken for one that did (another process answering there).
import assert from 'node:assert/strict';
import { freePort, RedisServer } from '../../src/dev/redisServer';

describe('dev: redis-server processes on free ports', function () {
  this.timeout(20_000);

  it('freePort never hands out the same port twice in one process', async () => {
    const ports = await Promise.all(Array.from({ length: 200 }, () => freePort()));
    assert.equal(new Set(ports).size, ports.length);
  });

  it('a server started on a port another server holds fails, naming the bind error, instead of passing for ready', async () => {
    const first = await RedisServer.start();
    try {
      await assert.rejects(RedisServer.start({ port: first.port }), (e: Error) => /exited: [\s\S]*Address already in use/.test(e.message));
      // The first still serves, on its own.
      const c = first.client();
      try {
        assert.equal(await c.ping(), 'PONG');
      } finally {
        c.disconnect();
      }
    } finally {
      await first.dispose();
    }
  });
});
