// The language model tools, invoked the way a chat invokes them (vscode.lm.invokeTool),
// on real nodes seeded with a held lock, a split lock and a key outside the view's patterns.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { Redlock } from '../../../src/core';
import type { RedlockInspectorApi } from '../../../src/extension/extension';
import { startNodes, type RedisServer } from '../../../src/dev/redisServer';
import { configure, getApi, resetSettings, waitFor } from './helpers';

function resultText(r: vscode.LanguageModelToolResult): string {
  return r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('\n');
}

async function invoke(name: string, input: object): Promise<string> {
  return resultText(await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }));
}

describe('language model tools', function () {
  this.timeout(30_000);
  let servers: RedisServer[];
  let api: RedlockInspectorApi;
  const held = 'lock:lm:held';
  const split = 'lock:lm:split';
  const outside = 'jobs:lm:outside';
  const tokenA = 'aaaa1111bbbb2222';
  const tokenB = 'cccc3333dddd4444';

  before(async () => {
    servers = await startNodes(3);
    await Promise.all(
      servers.map(async (s, i) => {
        const c = s.client();
        try {
          await c.set(held, tokenA, 'PX', 60_000);
          await c.set(outside, tokenB, 'PX', 60_000);
          // Split: node 0 holds A, node 1 holds B, node 2 has no copy.
          if (i < 2) await c.set(split, i === 0 ? tokenA : tokenB, 'PX', 60_000);
        } finally {
          c.disconnect();
        }
      }),
    );
    api = await getApi();
    await configure({ nodes: servers.map((s) => s.url), refreshIntervalMs: 60_000, keyPatterns: ['lock:lm:*'] });
    await api.refresh();
  });

  after(async () => {
    await resetSettings();
    await api.refresh();
    await Promise.all(servers.map((s) => s.dispose()));
  });

  it('contributes both tools, referencable in prompts, with their input schemas', async () => {
    const tools = await waitFor('the tools to register', () => {
      const mine = vscode.lm.tools.filter((t) => t.name === 'redlock_status' || t.name === 'redlock_explain');
      return mine.length === 2 ? mine : undefined;
    });
    const explain = tools.find((t) => t.name === 'redlock_explain');
    assert.deepEqual((explain?.inputSchema as { required?: string[] }).required, ['key']);
  });

  it('redlock_status lists the view\u2019s locks with their verdict sentence', async () => {
    const text = await invoke('redlock_status', {});
    assert.match(text, /^2 locks; 3 of 3 nodes answered \(quorum 2\)\./);
    assert.match(text, /- "lock:lm:held": Held by aaaa…22 on 3 of 3 nodes; valid for \d+\.\d s/);
    assert.match(text, /- "lock:lm:split": Split: aaaa…22 on 1 node, cccc…44 on 1 node; no holder has a quorum/);
    assert.doesNotMatch(text, /jobs:lm:outside/);
    // The JSON part carries the whole tokens for a later compare-and-set.
    assert.match(text, /"token":"aaaa1111bbbb2222"/);
  });

  it('redlock_status reads other patterns once, without changing the view', async () => {
    const text = await invoke('redlock_status', { patterns: ['jobs:lm:*'] });
    assert.match(text, /^1 lock; 3 of 3 nodes answered/);
    assert.match(text, /- "jobs:lm:outside": Held by cccc…44 on 3 of 3 nodes/);
    assert.equal(api.snapshot()?.locks.some((l) => l.key === outside), false);
  });

  it('redlock_explain gives the sentence and every node\u2019s copy', async () => {
    const text = await invoke('redlock_explain', { key: split });
    const ids = servers.map((s) => `127.0.0.1:${s.port}`);
    assert.match(text, /^"lock:lm:split": Split: aaaa…22 on 1 node, cccc…44 on 1 node; no holder has a quorum/);
    assert.ok(text.includes(`- "${ids[0]}": present token "${tokenA}", `), text);
    assert.ok(text.includes(`- "${ids[1]}": present token "${tokenB}", `), text);
    assert.ok(text.includes(`- "${ids[2]}": absent`), text);
    assert.match(text, /not instructions/);
  });

  it('redlock_explain adds the holder and the recorded history of a lock taken with events on', async () => {
    const client = new Redlock(servers.map((s) => s.url), { events: true, holderName: 'lm-tools-test' });
    try {
      const lock = await client.acquire('lock:lm:recorded', 60_000);
      await client.quit();
      const text = await invoke('redlock_explain', { key: 'lock:lm:recorded' });
      assert.match(text, /^"lock:lm:recorded": Held by .+ on 3 of 3 nodes/);
      assert.match(text, /^holder: "lm-tools-test \(pid \d+( on [^)"]+)?\) for \d+ s"$/m);
      assert.match(text, /^recorded history, newest first:\n- \d{4}-\d\d-\d\dT[\d:.]+Z acquired by "lm-tools-test" \(pid \d+\)$/m);
      assert.ok(text.includes(`"history":[{`), text);
      assert.ok(text.includes(lock.token), 'the whole token, for a compare-and-set');
    } finally {
      await client.quit().catch(() => undefined);
    }
  });

  it('redlock_explain reads a key outside the view\u2019s patterns, and says when there is none', async () => {
    assert.match(await invoke('redlock_explain', { key: outside }), /^"jobs:lm:outside": Held by cccc…44 on 3 of 3 nodes/);
    assert.match(await invoke('redlock_explain', { key: 'lock:lm:none' }), /^"lock:lm:none": no copy on any node: released, expired or never acquired\.$/m);
  });
});
