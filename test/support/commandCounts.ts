import type { RedisServer } from '../../src/dev/redisServer';

/** Calls of each command a node has run, those inside scripts included (INFO commandstats): name -> calls. */
export async function commandCalls(server: RedisServer, password?: string): Promise<Map<string, number>> {
  const c = server.client(password ? { password } : {});
  try {
    const calls = new Map<string, number>();
    for (const [, name, n] of String(await c.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(name, Number(n));
    return calls;
  } finally {
    c.disconnect();
  }
}

/**
 * SCAN calls a node has run, those inside scripts included. Every watch tick scans each
 * node, so a rise of n means n more ticks reached it: the event tests wait for instead of
 * a stretch of wall time.
 */
export async function scanCalls(server: RedisServer, password?: string): Promise<number> {
  return (await commandCalls(server, password)).get('scan') ?? 0;
}
