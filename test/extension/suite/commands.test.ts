// Every lock command end to end, with arguments instead of prompts, on real nodes.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { LockDetailsPanel } from '../../../src/extension/panel/lockDetailsPanel';
import { PROTOCOL_VERSION, type HostMessage } from '../../../src/shared/protocol';
import type { ForceReleaseResult, ReleaseResult } from '../../../src/core';
import { parseTtlText, validateTtlText, type LockResult } from '../../../src/extension/commands/common';
import type { RedlockInspectorApi } from '../../../src/extension/extension';
import { startNodes, type RedisServer } from '../../../src/dev/redisServer';
import { configure, getApi, lockRows, onEvery, resetSettings, rowOf, waitFor } from './helpers';

describe('lock commands', function () {
  this.timeout(30_000);
  let servers: RedisServer[];
  let api: RedlockInspectorApi;

  before(async () => {
    servers = await startNodes(3);
    api = await getApi();
    await configure({ nodes: servers.map((s) => s.url), refreshIntervalMs: 60_000 });
    await api.refresh();
  });

  after(async () => {
    await resetSettings();
    await api.refresh();
    await Promise.all(servers.map((s) => s.dispose()));
  });

  it('acquire -> mine -> extend -> copy -> release', async () => {
    const key = 'lock:ext:mine';
    const got = (await vscode.commands.executeCommand('redlock.acquire', { resource: key, ttlMs: 20_000 })) as LockResult;
    assert.match(got.token ?? '', /^[0-9a-f]{32}\.[0-9a-z]+\.[A-Za-z0-9_-]+$/);
    assert.deepEqual(await onEvery(servers, (c) => c.get(key)), [got.token, got.token, got.token]);

    let row = await rowOf(api, key);
    assert.match(row.summary, /^held 3\/3 · 1\d\.\d s · vscode-redlock-inspector \(pid \d+\) for \d+ s$/);
    assert.match(String(row.item.contextValue), /;mine;/);
    assert.equal(row.item.contextValue, 'lock;held;token;extendable;mine;');

    const longer = (await vscode.commands.executeCommand('redlock.extend', row.el, undefined)) as LockResult;
    assert.equal(longer.token, got.token);
    const extended = (await vscode.commands.executeCommand('redlock.extend', { key, ttlMs: 60_000 })) as LockResult;
    assert.ok((extended.validityMs ?? 0) > 50_000);
    const pttls = (await onEvery(servers, (c) => c.pttl(key))) as number[];
    assert.ok(pttls.every((p) => p > 50_000), `${pttls}`);

    row = await rowOf(api, key);
    assert.equal(await vscode.commands.executeCommand('redlock.copyKey', row.el), key);
    assert.equal(await vscode.env.clipboard.readText(), key);
    assert.equal(await vscode.commands.executeCommand('redlock.copyToken', row.el), got.token);
    assert.equal(await vscode.env.clipboard.readText(), got.token);
    const [copy] = await lockRows(api, row.el);
    assert.equal(await vscode.commands.executeCommand('redlock.copyToken', copy.el), got.token);

    // The detail panel: one per key, fed by the model, with a ready handshake.
    const panel = (await vscode.commands.executeCommand('redlock.openDetails', row.el)) as LockDetailsPanel;
    const init = await new Promise<HostMessage>((resolve) => {
      const sub = panel.onDidPost((m) => {
        if (m.type === 'init') {
          sub.dispose();
          resolve(m);
        }
      });
      void panel.handleMessage({ type: 'ready', version: PROTOCOL_VERSION });
    });
    assert.equal(init.type === 'init' && init.key, key);
    assert.equal(init.type === 'init' && init.entry?.verdict, 'held');
    assert.equal(init.type === 'init' && init.mine, true);
    assert.equal(await vscode.commands.executeCommand('redlock.openDetails', row.el), panel, 're-focused, not a second panel');
    // An action message runs the same command as the tree (extend, with its argument).
    const extendedByPanel = (await panel.handleMessage({ type: 'action', kind: 'extend', key })) as LockResult;
    assert.equal(extendedByPanel.token, got.token);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');

    const released = (await vscode.commands.executeCommand('redlock.release', { key })) as ReleaseResult;
    assert.deepEqual(released.nodes.map((n) => n.outcome), ['released', 'released', 'released']);
    assert.deepEqual(await onEvery(servers, (c) => c.exists(key)), [0, 0, 0]);
    assert.ok(!api.mine.has(key));
    assert.ok(!(await lockRows(api)).some((r) => r.key === key));
  });

  it('takes hex: resources like the CLI, for keys that are not UTF-8', async () => {
    const key = 'hex:6c6f636b3aff'; // "lock:" + 0xff
    const got = (await vscode.commands.executeCommand('redlock.acquire', { resource: key, ttlMs: 20_000 })) as LockResult;
    assert.equal(got.key, key);
    assert.deepEqual(await onEvery(servers, (c) => c.get(Buffer.from('6c6f636b3aff', 'hex'))), [got.token, got.token, got.token]);
    assert.match(String((await rowOf(api, key)).item.contextValue), /;mine;/);
    await vscode.commands.executeCommand('redlock.release', { key });
    assert.deepEqual(await onEvery(servers, (c) => c.exists(Buffer.from('6c6f636b3aff', 'hex'))), [0, 0, 0]);
  });

  it('refuses to extend or release a lock it did not take', async () => {
    const key = 'lock:ext:theirs';
    await onEvery(servers, (c) => c.set(key, 'their-token', 'PX', 30_000));
    await api.refresh();
    const r = (await vscode.commands.executeCommand('redlock.release', { key })) as { error?: string };
    assert.match(r.error ?? '', /not acquired in this window/);
    assert.deepEqual(await onEvery(servers, (c) => c.get(key)), ['their-token', 'their-token', 'their-token']);
    const row = await rowOf(api, key);
    assert.doesNotMatch(String(row.item.contextValue), /;mine;/);
    await onEvery(servers, (c) => c.del(key));
  });

  it('extends a foreign lock only where the token the user saw is still there', async () => {
    const key = 'lock:ext:foreign';
    await onEvery(servers, (c) => c.set(key, 'their-token', 'PX', 30_000));
    await api.refresh();
    // The lock changes hands on one node after the snapshot the user looked at.
    await onEvery([servers[2]], (c) => c.set(key, 'new-owner', 'PX', 5_000));
    const r = (await vscode.commands.executeCommand('redlock.extend', { key, ttlMs: 120_000, confirm: true })) as LockResult;
    assert.equal(r.token, 'their-token');
    const pttls = (await onEvery(servers, (c) => c.pttl(key))) as number[];
    assert.ok(pttls[0] > 100_000 && pttls[1] > 100_000, String(pttls));
    assert.ok(pttls[2] <= 5_000, 'the new owner was not extended');
    assert.deepEqual(await onEvery(servers, (c) => c.get(key)), ['their-token', 'their-token', 'new-owner']);
    await onEvery(servers, (c) => c.del(key));
  });

  it('reports every node when acquire fails', async () => {
    const key = 'lock:ext:taken';
    await onEvery(servers, (c) => c.set(key, 'someone-else', 'PX', 30_000));
    const r = (await vscode.commands.executeCommand('redlock.acquire', { resource: key, ttlMs: 5000 })) as { error?: string };
    for (const s of servers) assert.ok(r.error?.includes(`127.0.0.1:${s.port}: held-by-other (held by someone-else)`), r.error);
    assert.ok(api.logLines().some((l) => l.includes('acquire lock:ext:taken failed')));
    await onEvery(servers, (c) => c.del(key));
  });

  it('TTL prompts take the durations the CLI takes', () => {
    assert.equal(validateTtlText('30s'), undefined);
    assert.equal(parseTtlText(' 30s '), 30_000);
    assert.equal(parseTtlText('1500'), 1500);
    assert.equal(parseTtlText('2m'), 120_000);
    assert.match(validateTtlText('thirty') ?? '', /^Enter a duration: 1500, 1500ms, 10s, 2m$/);
    assert.ok(validateTtlText('0'), 'zero is no TTL');
  });

  it('auto-extends a lock taken with autoExtend until it is released', async () => {
    const key = 'lock:ext:auto';
    const got = (await vscode.commands.executeCommand('redlock.acquire', { resource: key, ttlMs: 1000, autoExtend: true })) as LockResult;
    assert.equal(got.autoExtend, true);
    await new Promise((r) => setTimeout(r, 1800));
    assert.deepEqual(await onEvery(servers, (c) => c.exists(key)), [1, 1, 1], 'still held after its TTL');
    await api.refresh();
    assert.match(String((await rowOf(api, key)).item.contextValue), /;mine;/);
    await vscode.commands.executeCommand('redlock.release', { key });
    assert.deepEqual(await onEvery(servers, (c) => c.exists(key)), [0, 0, 0]);
  });

  it('force release deletes only the copies still holding the observed token', async () => {
    const key = 'lock:ext:stuck';
    await onEvery(servers.slice(0, 2), (c) => c.set(key, 'stuck-token'));
    await api.refresh();
    assert.equal((await rowOf(api, key)).summary, 'held 2/3 · no TTL');
    // After the snapshot, node 0's copy changes hands: it must survive.
    const c0 = servers[0].client();
    await c0.set(key, 'new-owner', 'PX', 30_000);
    const r = (await vscode.commands.executeCommand('redlock.forceRelease', { key, confirm: true })) as ForceReleaseResult;
    assert.deepEqual(r.nodes.map((n) => n.outcome), ['changed', 'deleted', 'absent']);
    assert.equal(await c0.get(key), 'new-owner');
    c0.disconnect();
    const cancelled = await vscode.commands.executeCommand('redlock.forceRelease', { key, confirm: false });
    assert.equal(cancelled, undefined);
    await onEvery(servers, (c) => c.del(key));
  });

  it('refuses every write in read-only mode before touching a node', async () => {
    await configure({ readOnly: true });
    try {
      const key = 'lock:ext:read-only';
      const r = await vscode.commands.executeCommand('redlock.acquire', { resource: key, ttlMs: 10_000 });
      assert.deepEqual(r, { refused: 'read-only' });
      assert.deepEqual(await onEvery(servers, (c) => c.exists(key)), [0, 0, 0]);
      for (const verb of ['extend', 'release', 'forceRelease']) {
        assert.deepEqual(await vscode.commands.executeCommand(`redlock.${verb}`, { key, confirm: true }), { refused: 'read-only' });
      }
      assert.ok(api.logLines().some((l) => l.includes('acquire refused: redlock.readOnly is on')));
    } finally {
      await configure({ readOnly: undefined });
    }
  });

  it('pauses and resumes polling', async () => {
    await configure({ refreshIntervalMs: 250 });
    try {
      await vscode.commands.executeCommand('redlock.pause');
      assert.equal(api.model.isPaused, true);
      const key = 'lock:ext:while-paused';
      await onEvery(servers, (c) => c.set(key, 'x', 'PX', 30_000));
      await new Promise((r) => setTimeout(r, 700));
      assert.ok(!api.snapshot()?.locks.some((e) => e.key === key), 'no poll while paused');
      await vscode.commands.executeCommand('redlock.resume');
      await waitFor('a poll after resume', () => api.snapshot()?.locks.some((e) => e.key === key));
      await onEvery(servers, (c) => c.del(key));
    } finally {
      await vscode.commands.executeCommand('redlock.resume');
      await configure({ refreshIntervalMs: 60_000 });
    }
  });
});
