import assert from 'node:assert/strict';
import { Redlock } from '../../../src/core';
import { RedisServer, startNodes } from '../../../src/dev/redisServer';
import { elapsedSince } from '../../support/wait';

// A write's deadline bounds everything before it, the capability probe included: a node
// frozen before the Redlock was made accepts the connection and never answers its probe.
describe('writes never wait on a capability probe (writeSupport)', function () {
  let servers: RedisServer[];
  const opened: Redlock[] = [];

  before(async () => {
    servers = await startNodes(3);
  });
  afterEach(async () => {
    for (const s of servers) s.resume();
    await Promise.all(opened.splice(0).map((r) => r.quit()));
  });
  after(async () => {
    for (const s of servers) s.resume();
    await Promise.all(servers.map((s) => s.dispose()));
  });

  it('a node SIGSTOPped before construction holds neither acquire nor release past their deadlines', async () => {
    servers[2].pause();
    // Defaults: a 10 s TTL gives each write a 500 ms deadline, the probe 1000 ms, the connection 2000 ms.
    const rl = new Redlock(servers.map((s) => s.url));
    opened.push(rl);
    const writeDeadline = 500;
    const connectWait = 2000;
    const t0 = process.hrtime.bigint();
    const lock = await rl.acquire('lock:frozen-before', 10_000);
    const acquireMs = elapsedSince(t0);
    const t1 = process.hrtime.bigint();
    const r = await rl.release(lock);
    const releaseMs = elapsedSince(t1);
    // The connection wait and one write deadline at most, each with room for a busy machine.
    assert.ok(acquireMs < connectWait + writeDeadline + 100, `acquire took ${Math.round(acquireMs)} ms`);
    assert.ok(releaseMs < writeDeadline + 150, `release took ${Math.round(releaseMs)} ms`);
    assert.ok(r.nodes.filter((n) => n.outcome === 'released').length >= rl.quorum);
    assert.notEqual(r.nodes[2].outcome, 'released');
    // A second write finds the probes of the answering nodes known and waits for none.
    const t2 = process.hrtime.bigint();
    await rl.release(await rl.acquire('lock:frozen-before', 10_000));
    assert.ok(elapsedSince(t2) < 2 * writeDeadline + 150, `a second acquire+release took ${Math.round(elapsedSince(t2))} ms`);
  });

  it('a write on healthy nodes is refused or served as before once their probes answered', async () => {
    const rl = new Redlock(servers.map((s) => s.url));
    opened.push(rl);
    const lock = await rl.acquire('lock:healthy', 10_000);
    const r = await rl.release(lock);
    assert.deepEqual((await r.settled).map((n) => n.outcome), ['released', 'released', 'released']);
  });
});
