import assert from 'node:assert/strict';
import { renderHistory } from '../../src/cli/commands/history';
import type { LockEvent } from '../../src/core';
import { RedisServer, startNodes } from '../../src/dev/redisServer';
import { runCli } from './runCli';

describe('history words', () => {
  const at = Date.UTC(2026, 10, 26, 10, 0, 0);
  const holder = { name: 'billing', host: 'h1', pid: 42, since: at - 1000 };

  it('a release that found its lock gone says so, never "released"', () => {
    const events: LockEvent[] = [
      { at: at + 2000, type: 'released', holder, token: 'tok-1', held: false },
      { at: at + 1000, type: 'released', holder, token: 'tok-0', held: true },
    ];
    const lines = renderHistory('orders:42', events, at + 3000).split('\n');
    assert.match(lines[1], /release refused \(not held\)/);
    assert.match(lines[2], /  released  /);
    assert.doesNotMatch(lines[2], /refused/);
  });
});

describe('history of a force-release (real nodes)', function () {
  this.timeout(30_000);
  let servers: RedisServer[];
  before(async () => {
    servers = await startNodes(3);
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.dispose()));
  });

  it('lists the holder\'s grant, then "force-released" with the token deleted', async () => {
    const nodes = servers.flatMap((s) => ['--node', s.url]);
    const acquired = await runCli(['acquire', 'orders:77', '--ttl', '60s', '--json', ...nodes]);
    const token = (JSON.parse(acquired.stdout) as { token: string }).token;
    const forced = await runCli(['force-release', 'orders:77', '--yes', ...nodes]);
    assert.equal(forced.code, 0, forced.stderr);
    const history = await runCli(['history', 'orders:77', '--json', ...nodes]);
    const events = (JSON.parse(history.stdout) as { events: LockEvent[] }).events;
    assert.deepEqual(events.map((e) => [e.type, e.token, e.forced ?? false]), [['released', token, true], ['acquired', token, false]]);
    const text = await runCli(['history', 'orders:77', ...nodes]);
    assert.match(text.stdout.split('\n')[1], /force-released/);
  });
});
