// Node settings and passwords: SecretStorage only, never in settings files or the log.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { RedlockInspectorApi } from '../../../src/extension/extension';
import { RedisServer } from '../../../src/dev/redisServer';
import { configure, getApi, readText, resetSettings, waitFor, workspaceSettingsFile } from './helpers';

describe('nodes and passwords', function () {
  this.timeout(30_000);
  const password = 'pw-Secret|42:/@x';
  let secured: RedisServer;
  let open: RedisServer;
  let api: RedlockInspectorApi;

  before(async () => {
    [secured, open] = await Promise.all([RedisServer.start({ args: ['--requirepass', password] }), RedisServer.start()]);
    api = await getApi();
  });

  after(async () => {
    await resetSettings();
    await api.refresh();
    await Promise.all([secured.dispose(), open.dispose()]);
  });

  it('adds and removes nodes through the setting', async () => {
    await resetSettings();
    const r = (await vscode.commands.executeCommand('redlock.addNode', { url: open.url, name: 'open-node' })) as { id: string };
    assert.equal(r.id, 'open-node');
    assert.deepEqual(vscode.workspace.getConfiguration('redlock').get('nodes'), [{ name: 'open-node', url: open.url }]);
    await api.refresh();
    assert.deepEqual(api.snapshot()?.nodes.map((n) => [n.node, n.reachable]), [['open-node', true]]);
    const bad = (await vscode.commands.executeCommand('redlock.addNode', { url: 'http://nope' })) as { error: string };
    assert.match(bad.error, /unknown scheme/);
    await vscode.commands.executeCommand('redlock.removeNode', { id: 'open-node' });
    assert.deepEqual(vscode.workspace.getConfiguration('redlock').get('nodes'), []);
  });

  it('adds host:port as the redis:// URL it means, and says where it saved it', async () => {
    await resetSettings();
    const hostPort = `127.0.0.1:${open.port}`;
    const r = (await vscode.commands.executeCommand('redlock.addNode', { url: hostPort })) as { id: string };
    assert.equal(r.id, hostPort);
    assert.deepEqual(vscode.workspace.getConfiguration('redlock').get('nodes'), [`redis://${hostPort}`]);
    assert.ok(api.logLines().some((l) => l.includes(`added node ${hostPort} to the workspace settings (.vscode/settings.json)`)), 'says where');
    await vscode.commands.executeCommand('redlock.removeNode', { id: hostPort });
  });

  it('shows a configuration error in the views, never the password in it', async () => {
    await configure({ nodes: ['redis://:hunter2@127.0.0.1:notaport'] });
    assert.equal(await api.refresh(), undefined);
    assert.match(api.model.error ?? '', /invalid host/);
    assert.ok(!(api.model.error ?? '').includes('hunter2'));
    assert.ok(!api.logLines().join('\n').includes('hunter2'));
    assert.ok(api.statusBar.warning, 'the status bar shows the error');
  });

  it('asks for a password on NOAUTH, keeps it in SecretStorage, and never writes or logs it', async () => {
    const id = `127.0.0.1:${secured.port}`;
    await configure({ nodes: [secured.url] });
    await api.refresh();
    const status = api.snapshot()?.nodes[0];
    assert.equal(status?.reachable, false);
    assert.match(status?.error ?? '', /NOAUTH|WRONGPASS|auth/i);
    assert.equal(status?.outcome, 'auth');
    await waitFor('a password prompt', () => api.notifier.sent.includes(`auth: ${id}`));

    await vscode.commands.executeCommand('redlock.setPassword', { id, password });
    await api.refresh();
    assert.equal(api.snapshot()?.nodes[0].reachable, true, api.snapshot()?.nodes[0].error ?? '');

    const settingsText = await readText(workspaceSettingsFile());
    assert.ok(settingsText.includes(secured.url), 'the node URL is in the workspace settings');
    assert.ok(!settingsText.includes(password) && !settingsText.includes(encodeURIComponent(password)), 'no password in settings');
    const logged = api.logLines().join('\n');
    assert.ok(logged.includes(`password stored for node ${id}`));
    assert.ok(!logged.includes(password) && !logged.includes(encodeURIComponent(password)), 'no password in the log');
  });

  it('reads as a read-only ACL user; a write fails naming the node and its reason', async () => {
    const admin = open.client();
    try {
      await admin.call('ACL', 'SETUSER', 'reader', 'on', '>reader-pw', '~*', '&*', '+@all', '-@write', '-@dangerous', '+info');
      await admin.set('lock:acl:held', 'tok-acl', 'PX', 60_000);
      await configure({ nodes: [{ name: 'ro', url: `redis://reader:@127.0.0.1:${open.port}` }] });
      await vscode.commands.executeCommand('redlock.setPassword', { id: 'ro', password: 'reader-pw' });
      await api.refresh();
      assert.equal(api.snapshot()?.locks.find((e) => e.key === 'lock:acl:held')?.verdict, 'held');
      const [node] = (await api.nodesProvider.getChildren()) ?? [];
      assert.match(String((await api.nodesProvider.getTreeItem(node)).description), /^[\d.]+ ms · v/);
      const r = (await vscode.commands.executeCommand('redlock.acquire', { resource: 'lock:acl:new', ttlMs: 5000 })) as { error?: string };
      assert.match(r.error ?? '', /ro: refused \(NOPERM/);
      assert.equal(await admin.exists('lock:acl:new'), 0);
      assert.equal(await admin.get('lock:acl:held'), 'tok-acl');
    } finally {
      admin.disconnect();
    }
  });

  it('moves a password typed into a node URL to SecretStorage', async () => {
    await resetSettings();
    const url = `redis://:${encodeURIComponent(password)}@127.0.0.1:${secured.port}`;
    const r = (await vscode.commands.executeCommand('redlock.addNode', { url })) as { id: string };
    assert.equal(r.id, `127.0.0.1:${secured.port}`);
    assert.deepEqual(vscode.workspace.getConfiguration('redlock').get('nodes'), [secured.url]);
    await api.refresh();
    assert.equal(api.snapshot()?.nodes[0].reachable, true);
    assert.ok(!(await readText(workspaceSettingsFile())).includes(encodeURIComponent(password)));
    await vscode.commands.executeCommand('redlock.setPassword', { id: r.id, password: '' });
    await api.refresh();
    assert.equal(api.snapshot()?.nodes[0].reachable, false, 'without the password the node refuses');
  });
});
