// The script seam against a real server: when a read script's call reaches the socket.
import { strict as assert } from 'node:assert';
import type { Socket } from 'node:net';
import type Redis from 'ioredis';
import { capabilitiesOf } from '../../../src/core/connection/capabilities';
import { callReadScript, readScript } from '../../../src/core/connection/lua';
import { RedisServer } from '../../../src/dev/redisServer';

const ECHO = readScript("#!lua flags=no-writes\nreturn ARGV[1]");

describe('lua: read scripts', () => {
  let server: RedisServer;
  let client: Redis;

  before(async () => {
    server = await RedisServer.start();
  });
  beforeEach(() => {
    client = server.client();
  });
  afterEach(() => client.disconnect());
  after(() => server.dispose());

  it('writes the call before returning once the socket is probed, so a caller decoding the last page overlaps the node reading the next', async () => {
    await capabilitiesOf(client);
    const socket = client.stream as Socket;
    const before = socket.bytesWritten;
    const reply = callReadScript<string>(client, ECHO, 0, ['page 2']);
    // Nothing awaited yet: the bytes are on the socket now, not after the caller's next await.
    assert.ok(socket.bytesWritten > before, 'the call was written before callReadScript returned');
    assert.equal(await reply, 'page 2');
    const again = socket.bytesWritten;
    const sha = callReadScript<string>(client, ECHO, 0, ['page 3']);
    assert.ok(socket.bytesWritten > again, 'the EVALSHA after it too');
    assert.equal(await sha, 'page 3');
  });

  it('probes a connection first when its capabilities are not known yet, and runs the script on its answer', async () => {
    assert.equal(await callReadScript<string>(client, ECHO, 0, ['first']), 'first');
  });
});
