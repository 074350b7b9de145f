import type Redis from 'ioredis';
import type { RedisServer } from '../../src/dev/redisServer';

/** A MONITOR connection to `server`, and `close` for it and the client it came from. */
export async function openMonitor(server: RedisServer): Promise<{ monitor: Redis; close: () => void }> {
  const base = server.client();
  // Ready first: its connect-time INFO must not reach a MONITOR still starting (ioredis
  // then reads that line as a reply and fails with a command queue state error).
  await base.ping();
  const monitor = await base.monitor();
  return {
    monitor,
    close: () => {
      monitor.disconnect();
      base.disconnect();
    },
  };
}
