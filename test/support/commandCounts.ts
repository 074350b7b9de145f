import type { RedisServer } from '../../src/dev/redisServer';

/**
 * SCAN calls a node has run, those inside scripts included (INFO commandstats). Every
 * watch tick scans each node, so a rise of n means n more ticks reached it: the event
 * tests wait for instead of a stretch of wall time.
 */
export async function scanCalls(server: RedisServer, password?: string): Promise<number> {
  const c = server.client(password ? { password } : {});
  try {
    return Number(/cmdstat_scan:calls=(\d+)/.exec(await c.info('commandstats'))?.[1] ?? 0);
  } finally {
    c.disconnect();
  }
}
