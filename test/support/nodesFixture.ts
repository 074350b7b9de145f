// Real nodes for one describe block, with a fresh Redlock over all of them for each test.
// After each test the Redlock is closed and every node is running, answering (a test may
// pause or stop one) and empty again; after the block the nodes are stopped.
import { Redlock, type RedlockOptions } from '../../src/core';
import { RedisServer, startNodes } from '../../src/dev/redisServer';

export interface NodesFixture {
  servers: RedisServer[];
  rl: Redlock;
}

/** Registers the block's hooks; the fields are set once its `before` has run. */
export function useNodes(count: number, options: RedlockOptions): NodesFixture {
  const fx = { servers: [] } as unknown as NodesFixture;
  before(async () => {
    fx.servers = await startNodes(count);
  });
  beforeEach(() => {
    fx.rl = new Redlock(fx.servers.map((s) => s.url), options);
  });
  afterEach(async () => {
    await fx.rl.quit();
    await resetNodes(fx.servers);
  });
  after(async () => {
    await Promise.all(fx.servers.map((s) => s.dispose()));
  });
  return fx;
}

/** Every node running, answering and empty again, whatever a test did to it. */
export async function resetNodes(servers: readonly RedisServer[]): Promise<void> {
  await Promise.all(servers.map(async (s) => {
    s.resume();
    if (!s.running) await s.restart();
    const c = s.client();
    await c.flushall();
    c.disconnect();
  }));
}
