// The reader of a reply the server packed with its own cmsgpack: every value a read
// script returns, as the server's packer writes it, read back as the RESP reply gives it.
import assert from 'node:assert/strict';
import { PackedReply, PackedReplyError } from '../../../src/core/read/packedReply';
import { RedisServer, startNodes, withClient } from '../../../src/dev/redisServer';

describe('packedReply', function () {
  let server: RedisServer;
  before(async () => {
    [server] = await startNodes(1);
  });
  after(() => server.dispose());

  const packed = (lua: string): Promise<Buffer> => withClient(server, (c) => c.callBuffer('EVAL', `return cmsgpack.pack(${lua})`, '0') as Promise<Buffer>);

  it('reads back every integer width, floats, strings of every length, nested and empty arrays, booleans', async () => {
    const ints = [0, 127, 128, 255, 256, 65535, 65536, 2 ** 32 - 1, 2 ** 32, 2 ** 40, -1, -32, -33, -128, -129, -32768, -32769, -(2 ** 31), -(2 ** 31) - 1, -(2 ** 40)];
    const buf = await packed(`{ ${ints.join(', ')}, 1.5, '', 'a', string.rep('b', 31), string.rep('c', 32), string.rep('d', 300), string.rep('e', 70000), {}, { 1, { 2, { 3 } } }, true, false, '\\0\\255\\128' }`);
    const r = new PackedReply(buf);
    const n = r.array();
    assert.equal(n, ints.length + 12);
    for (const i of ints) assert.equal(r.value(), i);
    assert.equal(r.value(), 1.5);
    for (const [ch, len] of [['', 0], ['a', 1], ['b', 31], ['c', 32], ['d', 300], ['e', 70000]] as const) {
      assert.ok(r.isStr());
      r.str();
      assert.equal(r.end - r.start, len);
      assert.equal(buf.toString('latin1', r.start, r.end), ch.repeat(len));
    }
    assert.deepEqual(r.value(), []);
    assert.deepEqual(r.value(), [1, [2, [3]]]);
    assert.equal(r.value(), true);
    assert.equal(r.value(), false);
    // Bytes stay bytes: a string is a view of the reply, never decoded as text.
    assert.deepEqual(r.value(), Buffer.from([0, 255, 128]));
    assert.throws(() => r.value(), PackedReplyError, 'nothing is left');
    // Passing over values, nested arrays and long strings included, lands where reading them does.
    const skipped = new PackedReply(buf);
    skipped.array();
    skipped.skip(ints.length + 1 + 6);
    assert.deepEqual(skipped.value(), []);
    skipped.skip(1);
    assert.equal(skipped.value(), true);
  });

  it('refuses what is no reply of ours: a map where an array was expected, a string cut short, a number expected', async () => {
    const map = await packed(`{ a = 1 }`);
    assert.throws(() => new PackedReply(map).array(), /an array was expected/);
    const long = await packed(`{ string.rep('x', 300) }`);
    const cut = new PackedReply(long.subarray(0, 100));
    cut.array();
    assert.throws(() => cut.str(), /ends early/);
    const text = new PackedReply(await packed(`{ 'seven' }`));
    text.array();
    assert.throws(() => text.number(), /a number was expected/);
  });
});
