// EventFeed: the event logs under the patterns, read whole only where something new was recorded.
import assert from 'node:assert/strict';
import { Redlock } from '../../../src/core';
import { useNodes } from '../../support/nodesFixture';

describe('EventFeed', function () {
  const fx = useNodes(3, { commandTimeoutMs: 500, readTimeoutMs: 1000 });

  it('gives each log under the patterns once, then only the logs with a new event', async () => {
    const recorder = new Redlock(fx.servers.map((s) => s.url), { events: true });
    const feed = fx.rl.reader.eventFeed();
    const changed = async (): Promise<string[]> => (await feed.read(['jobs:*'])).changed.map((c) => c.resource).sort();
    try {
      for (const key of ['jobs:a', 'jobs:b', 'other:c']) await recorder.release(await recorder.acquire(key, 5000));
      await recorder.quit(); // flushes the event logs
      const first = await feed.read(['jobs:*']);
      assert.deepEqual(first.changed.map((c) => c.resource).sort(), ['jobs:a', 'jobs:b']);
      assert.deepEqual(first.changed.find((c) => c.resource === 'jobs:a')?.events.map((e) => e.type), ['released', 'acquired']);
      assert.equal(first.cut, false);
      assert.deepEqual(await changed(), [], 'nothing new: nothing read whole');
      const again = new Redlock(fx.servers.map((s) => s.url), { events: true });
      await again.release(await again.acquire('jobs:b', 5000));
      await again.quit();
      assert.deepEqual(await changed(), ['jobs:b']);
    } finally {
      await recorder.quit();
    }
  });
});
