// The deployment doctor in the extension: the Nodes view's Deployment section, the
// status bar warning on error findings, and the redlock.doctor command.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { DoctorReport } from '../../../src/core';
import type { RedlockInspectorApi } from '../../../src/extension/extension';
import type { FindingElement, NodesTreeElement } from '../../../src/extension/views/nodesTree';
import { RedisServer } from '../../../src/dev/redisServer';
import { configure, getApi, resetSettings, waitFor } from './helpers';

async function section(api: RedlockInspectorApi): Promise<NodesTreeElement | undefined> {
  return ((await api.nodesProvider.getChildren()) ?? []).find((e) => e.kind === 'deployment');
}

describe('deployment doctor in the Nodes view', function () {
  this.timeout(30_000);
  let lru: RedisServer;
  let safe: RedisServer;
  let api: RedlockInspectorApi;

  before(async () => {
    [lru, safe] = await Promise.all([
      RedisServer.start({ args: ['--maxmemory', '64mb', '--maxmemory-policy', 'allkeys-lru'] }),
      RedisServer.start({ args: ['--appendonly', 'yes', '--appendfsync', 'always'] }),
    ]);
    api = await getApi();
  });

  after(async () => {
    await resetSettings();
    await api.refresh();
    await Promise.all([lru.dispose(), safe.dispose()]);
  });

  it('lists the findings under Deployment, and the status bar warns on an error finding', async () => {
    await configure({ nodes: [lru.url] });
    await api.refresh();
    const report = (await vscode.commands.executeCommand('redlock.doctor')) as DoctorReport | undefined;
    assert.ok(report, 'the command returns the report');
    assert.ok(report.findings.some((f) => f.code === 'eviction' && f.severity === 'error'));

    const deployment = await section(api);
    assert.ok(deployment, 'a Deployment section after the nodes');
    const item = await api.nodesProvider.getTreeItem(deployment);
    assert.equal(item.label, 'Deployment');
    assert.match(String(item.description), /^1 error/);
    const findings = ((await api.nodesProvider.getChildren(deployment)) ?? []) as FindingElement[];
    const eviction = findings.find((f) => f.finding.code === 'eviction');
    assert.ok(eviction);
    const row = await api.nodesProvider.getTreeItem(eviction);
    assert.equal(row.description, 'eviction');
    assert.match(String(row.label), /allkeys-lru/);
    await waitFor('status bar warning', () => api.statusBar.text.includes(', 1 deployment error'));
    assert.ok(api.statusBar.warning);
  });

  it('runs again when the nodes change; a safe node clears the warning', async () => {
    await configure({ nodes: [safe.url] });
    await api.refresh();
    await waitFor('doctor for the new node', () => api.doctor.findings?.every((f) => f.node === null || f.node === `127.0.0.1:${safe.port}`) && !api.doctor.isRunning);
    assert.equal(api.doctor.errorCount, 0);
    await waitFor('status bar without the shield', () => !api.statusBar.text.includes('deployment error'));
    const item = await api.nodesProvider.getTreeItem((await section(api))!);
    assert.equal(item.description, 'no problems found');
  });

  it('a restarted node\'s risk ends by itself: the doctor looks again when its time runs out, without being asked', async () => {
    const fresh = await RedisServer.start();
    try {
      // Up for a second or two, no persistence, a lock of 4 s on it: restart risk, for about 3 s.
      await configure({ nodes: [fresh.url], keyPatterns: ['lock:*'] });
      const c = fresh.client();
      await c.set('lock:restart', 'token-r', 'PX', 4000);
      c.disconnect();
      const report = (await vscode.commands.executeCommand('redlock.doctor')) as DoctorReport;
      const risk = report.findings.find((f) => f.code === 'restart-risk');
      assert.ok(risk, JSON.stringify(report.findings));
      assert.ok(risk.untilMs !== undefined && risk.untilMs > 0 && risk.untilMs <= 4000, String(risk.untilMs));
      await waitFor('the doctor to run again by itself', () => !api.doctor.findings?.some((f) => f.code === 'restart-risk') && !api.doctor.isRunning, 15_000);
      assert.equal(api.doctor.errorCount, 0);
    } finally {
      await fresh.dispose();
    }
  });
});
