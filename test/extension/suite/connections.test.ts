// Named connections in the editor: the picked connection's nodes and patterns are what the
// views read, its name is in the status bar, and a production one refuses writes until the
// user allows them for the session (docs/cli.md, "Named connections").
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { LockResult } from '../../../src/extension/commands/common';
import type { Refused } from '../../../src/extension/commands/readOnly';
import type { RedlockInspectorApi } from '../../../src/extension/extension';
import { startNodes, type RedisServer } from '../../../src/dev/redisServer';
import { configure, getApi, onEvery, resetSettings, waitFor } from './helpers';

describe('named connections', function () {
  this.timeout(30_000);
  let dev: RedisServer[];
  let prod: RedisServer[];
  let api: RedlockInspectorApi;

  before(async () => {
    [dev, prod] = [await startNodes(3), await startNodes(3)];
    api = await getApi();
    await onEvery(dev, (c) => c.set('jobs:dev', 'token-dev', 'PX', 60_000));
    await onEvery(prod, (c) => c.set('jobs:prod', 'token-prod', 'PX', 60_000));
    await configure({
      refreshIntervalMs: 60_000,
      connections: [
        { name: 'dev', nodes: dev.map((s) => s.url), patterns: ['jobs:*'] },
        { name: 'prod', nodes: prod.map((s) => s.url), production: true, patterns: ['jobs:*', 'orders:*'] },
      ],
    });
  });

  after(async () => {
    await api.mine.releaseAll();
    await resetSettings();
    await api.refresh();
    await Promise.all([...dev, ...prod].map((s) => s.dispose()));
  });

  it('reads the picked connection\'s nodes and patterns, and names it in the status bar', async () => {
    assert.equal(await vscode.commands.executeCommand('redlock.pickConnection', { name: 'dev' }), 'dev');
    await waitFor('the dev connection read', async () => (await api.refresh())?.locks.map((l) => l.key).join() === 'jobs:dev');
    assert.match(api.connectionStatusBar.text, /\$\(plug\) dev$/);
    assert.equal(api.connectionStatusBar.colour, undefined);
    assert.equal(await vscode.commands.executeCommand('redlock.pickConnection', { name: 'staging' }), undefined, 'an unknown name changes nothing');
    assert.equal(vscode.workspace.getConfiguration('redlock').get('activeConnection'), 'dev');
  });

  it('a production connection refuses writes, with nothing written, until they are allowed for the session', async () => {
    await vscode.commands.executeCommand('redlock.pickConnection', { name: 'prod' });
    await waitFor('the prod connection read', async () => (await api.refresh())?.locks.map((l) => l.key).join() === 'jobs:prod');
    assert.match(api.connectionStatusBar.text, /\$\(shield\) prod · read-only$/);
    assert.equal(api.connectionStatusBar.colour, 'error');

    const refused = (await vscode.commands.executeCommand('redlock.acquire', { resource: 'orders:1', ttlMs: 30_000, allowWrites: false })) as Refused;
    assert.deepEqual(refused, { refused: 'production' });
    assert.deepEqual(await onEvery(prod, (c) => c.exists('orders:1')), [0, 0, 0], 'nothing was written');

    const got = (await vscode.commands.executeCommand('redlock.acquire', { resource: 'orders:1', ttlMs: 30_000, allowWrites: true })) as LockResult;
    assert.equal(typeof got.token, 'string');
    assert.deepEqual(await onEvery(prod, (c) => c.exists('orders:1')), [1, 1, 1]);
    assert.match(api.connectionStatusBar.text, /\$\(shield\) prod · writes allowed$/);
    assert.equal(api.connectionStatusBar.colour, 'warning');
    // Allowed for the session: no second question.
    const released = await vscode.commands.executeCommand('redlock.release', { key: 'orders:1' });
    assert.ok(released && !('refused' in (released as object)), JSON.stringify(released));
    assert.deepEqual(await onEvery(prod, (c) => c.exists('orders:1')), [0, 0, 0]);
    // The dev connection never touched.
    assert.deepEqual(await onEvery(dev, (c) => c.exists('orders:1')), [0, 0, 0]);
  });
});
