import assert from 'node:assert/strict';
import { renderHistory } from '../../src/cli/commands/history';
import type { LockEvent } from '../../src/core';

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
