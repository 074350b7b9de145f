// No lock the UI cannot let go: a lock this window holds or keeps extending is listed under
// "Held by this window" whatever the key patterns say, can be released and have its
// extension stopped without a row (palette, status bar), and is released when the window
// closes (docs/decisions.md, "Locks held by this window").
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { LockResult } from '../../../src/extension/commands/common';
import type { RedlockInspectorApi } from '../../../src/extension/extension';
import { startNodes, type RedisServer } from '../../../src/dev/redisServer';
import { configure, getApi, lockRows, onEvery, resetSettings, waitFor } from './helpers';

function pttls(servers: RedisServer[], key: string): Promise<number[]> {
  return onEvery(servers, (c) => c.pttl(key)) as Promise<number[]>;
}

/** The rows under "Held by this window", or undefined when the group is not shown. */
async function heldRows(api: RedlockInspectorApi): Promise<{ key: string; description: string; contextValue: string }[] | undefined> {
  const root = await lockRows(api);
  const group = root.find((r) => r.el.kind === 'heldGroup');
  if (!group) return undefined;
  assert.equal(root[0], group, 'the group comes first');
  const rows = await lockRows(api, group.el);
  return rows.map((r) => ({ key: r.label, description: r.description, contextValue: String(r.item.contextValue) }));
}

describe('locks held by this window', function () {
  this.timeout(30_000);
  let servers: RedisServer[];
  let api: RedlockInspectorApi;

  before(async () => {
    servers = await startNodes(3);
    api = await getApi();
    // orders:* matches no pattern: the trap the group closes.
    await configure({ nodes: servers.map((s) => s.url), keyPatterns: ['lock:*'], refreshIntervalMs: 60_000 });
    await api.refresh();
  });

  after(async () => {
    await api.mine.releaseAll();
    await resetSettings();
    await api.refresh();
    await Promise.all(servers.map((s) => s.dispose()));
  });

  it('lists a lock kept extending outside the key patterns, stops extending it, then releases it', async () => {
    const key = 'orders:99';
    assert.equal(await heldRows(api), undefined, 'no group while nothing is held');
    const start = Date.now();
    const got = (await vscode.commands.executeCommand('redlock.acquire', { resource: key, ttlMs: 1000, autoExtend: true })) as LockResult;
    assert.equal(got.autoExtend, true);
    await api.refresh();
    assert.ok(!api.snapshot()?.locks.some((e) => e.key === key), 'outside the patterns: the watch does not see it');
    const rows = await heldRows(api);
    assert.deepEqual(rows?.map((r) => [r.key, r.contextValue]), [[key, 'held;mine;extending;']]);
    assert.match(rows![0].description, /^kept extending \(TTL 1\.0 s\) · not matched by the key patterns$/);
    assert.match(api.heldStatusBar.text, /holding 1 lock, kept extending/);

    // Still held after several TTLs: the window keeps extending it.
    const first = api.mine.get(key)!.lock;
    await waitFor('one and a half TTLs', () => Date.now() - start > 1500, 3000);
    assert.notEqual(api.mine.get(key)!.lock, first, 'extended');
    assert.ok((await pttls(servers, key)).every((p) => p > 0), 'still held on every node');

    // Stop extending: still held and listed, no longer renewed; it expires at its TTL.
    const stopped = (await vscode.commands.executeCommand('redlock.stopExtending', { key })) as { key: string; remainingMs: number };
    assert.equal(stopped.key, key);
    assert.ok(stopped.remainingMs > 0 && stopped.remainingMs <= 1000);
    assert.deepEqual((await heldRows(api))?.map((r) => r.contextValue), ['held;mine;extendable;']);
    assert.doesNotMatch(api.heldStatusBar.text, /kept extending/);

    const released = (await vscode.commands.executeCommand('redlock.release', { key })) as { nodes: { outcome: string }[] };
    assert.deepEqual(released.nodes.map((n) => n.outcome), ['released', 'released', 'released']);
    assert.deepEqual(await pttls(servers, key), [-2, -2, -2]);
    assert.equal(api.mine.has(key), false);
    assert.equal(await heldRows(api), undefined, 'the group goes with the last lock');
  });

  it('a lock whose extension stops expires on its own and leaves the group', async () => {
    const key = 'orders:100';
    await vscode.commands.executeCommand('redlock.acquire', { resource: key, ttlMs: 600, autoExtend: true });
    await vscode.commands.executeCommand('redlock.stopExtending', { key });
    await waitFor('the TTL to run out on every node', async () => (await pttls(servers, key)).every((p) => p === -2), 3000);
    assert.ok(api.mine.has(key), 'listed until the model sees a change');
    // The next change the model sees reconciles: an expired lock outside the patterns is forgotten.
    await vscode.commands.executeCommand('redlock.acquire', { resource: 'lock:poke', ttlMs: 5000 });
    assert.equal(api.mine.has(key), false);
    await vscode.commands.executeCommand('redlock.release', { key: 'lock:poke' });
  });

  it('releases every lock the window holds when it closes, kept extending or not', async () => {
    await vscode.commands.executeCommand('redlock.acquire', { resource: 'orders:101', ttlMs: 30_000 });
    await vscode.commands.executeCommand('redlock.acquire', { resource: 'lock:held:102', ttlMs: 1000, autoExtend: true });
    assert.match(api.heldStatusBar.text, /holding 2 locks, 1 kept extending/);
    // What deactivate() runs when the window closes.
    const { released, failed } = await api.mine.releaseAll();
    assert.deepEqual([...released].sort(), ['lock:held:102', 'orders:101']);
    assert.deepEqual(failed, []);
    assert.deepEqual(await pttls(servers, 'orders:101'), [-2, -2, -2]);
    assert.deepEqual(await pttls(servers, 'lock:held:102'), [-2, -2, -2]);
    assert.equal(api.mine.all().length, 0);
  });
});
