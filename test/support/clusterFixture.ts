// A Redis Cluster of three masters for one describe block: started before its tests,
// every master answering again (a test may pause one) and stopped after them.
import { RedisServer, startCluster } from '../../src/dev/redisServer';

export interface ClusterFixture {
  masters: RedisServer[];
  /** `redis+cluster://` with every master as a seed. */
  url: string;
}

/** The node id of a master, as a seed in a cluster URL. */
export function seedOf(m: RedisServer): string {
  return `127.0.0.1:${m.port}`;
}

/** Registers the block's hooks; the fields are set once its `before` has run. */
export function useCluster(args: string[] = []): ClusterFixture {
  const fx: ClusterFixture = { masters: [], url: '' };
  before(async () => {
    fx.masters = await startCluster(3, args);
    fx.url = `redis+cluster://${fx.masters.map(seedOf).join(',')}`;
  });
  after(async () => {
    for (const m of fx.masters) m.resume();
    await Promise.all(fx.masters.map((m) => m.dispose()));
  });
  return fx;
}
