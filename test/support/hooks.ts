// Root hooks: every redis-server a test started is stopped, pass or fail.
import { stopAll } from '../../src/dev/redisServer';

export const mochaHooks = {
  async afterAll(): Promise<void> {
    await stopAll();
  },
};
