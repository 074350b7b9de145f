// The MCP server as an MCP client sees it: the SDK's client spawns `redlock-inspector mcp`
// over stdio, initializes, lists the tools and calls them on seeded nodes.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { RedisServer, startNodes, withClient } from '../../src/dev/redisServer';
import { CLI } from './runCli';

function env(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('REDLOCK_')) out[k] = v;
  return out;
}

async function connect(args: string[], extraEnv: Record<string, string> = {}): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', ...args], env: { ...env(), ...extraEnv }, stderr: 'pipe' });
  const client = new Client({ name: 'redlock-inspector-test', version: '0.0.0' });
  await client.connect(transport);
  return client;
}

/** The JSON document a tool returns as its last text content. */
function doc<T>(r: unknown): T {
  const content = (r as CallToolResult).content;
  const last = content[content.length - 1];
  assert.equal(last.type, 'text');
  return JSON.parse((last as { text: string }).text) as T;
}

function summary(r: unknown): string {
  const first = (r as CallToolResult).content[0];
  return (first as { text: string }).text;
}

interface Copy {
  node: string;
  state: string;
  token: string | null;
}

describe('cli: mcp server', function () {
  this.timeout(60_000);
  let servers: RedisServer[];
  let nodeArgs: string[];
  before(async () => {
    servers = await startNodes(3);
    nodeArgs = servers.flatMap((s) => ['--node', s.url]);
  });
  beforeEach(async () => {
    await Promise.all(servers.map((s, i) => withClient(s, async (c) => {
      await c.flushall();
      await c.set('lock:job', 'tok-job', 'PX', 60_000);
      if (i < 2) await c.set('lock:split', i === 0 ? 'tok-a' : 'tok-b', 'PX', 60_000);
      await c.set('cache:other', 'x');
    })));
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.dispose()));
  });

  it('initializes, lists read-only tools, and answers redlock_status and redlock_explain', async () => {
    const client = await connect(nodeArgs);
    try {
      assert.equal(client.getServerVersion()?.name, 'redlock-inspector');
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), ['redlock_doctor', 'redlock_explain', 'redlock_status']);
      for (const t of tools) assert.equal(t.annotations?.readOnlyHint, true, t.name);
      const status = tools.find((t) => t.name === 'redlock_status')!;
      assert.deepEqual(Object.keys((status.inputSchema.properties ?? {}) as object), ['patterns']);
      assert.deepEqual(tools.find((t) => t.name === 'redlock_explain')!.inputSchema.required, ['key']);

      const all = await client.callTool({ name: 'redlock_status', arguments: {} });
      const snap = doc<{ quorum: number; locks: Array<{ key: string; verdict: string }> }>(all);
      assert.equal(snap.quorum, 2);
      assert.deepEqual(snap.locks.map((l) => [l.key, l.verdict]), [['lock:job', 'held'], ['lock:split', 'split']]);
      assert.match(summary(all), /^2 locks; 3 of 3 nodes answered \(quorum 2\)/);
      // A held lock's liveness: a plain token names no holder, a single read sees no pulse.
      const job = (snap.locks as Array<{ key: string; liveness?: { verdict: string; evidence: Array<{ kind: string; says: string }>; suggestion: string } }>)[0];
      assert.equal(job.liveness?.verdict, 'unknown');
      assert.deepEqual(job.liveness!.evidence.map((e) => e.kind), ['connection', 'renewal']);
      assert.equal(job.liveness!.suggestion, 'not enough evidence: watch it to see whether it renews');
      assert.match(summary(all), /^- "lock:job": .*; "holder unknown: its token names no client to look for; no renewal seen \(one read\) · not enough evidence: watch it to see whether it renews"/m);
      assert.equal(snap.locks[1].key, 'lock:split');
      assert.equal((snap.locks[1] as { liveness?: unknown }).liveness, undefined);

      const some = doc<{ locks: Array<{ key: string }> }>(await client.callTool({ name: 'redlock_status', arguments: { patterns: ['lock:j*'] } }));
      assert.deepEqual(some.locks.map((l) => l.key), ['lock:job']);

      const explained = await client.callTool({ name: 'redlock_explain', arguments: { key: 'lock:job' } });
      assert.match(summary(explained), /^"lock:job": Held by tok-job on 3 of 3 nodes; valid for/);
      assert.match(summary(explained), /^liveness: "holder unknown: its token names no client to look for; no renewal seen \(one read\) · /m);
      const explainedDoc = doc<{ lock: { verdict: string; nodes: Copy[] }; history: unknown[] }>(explained);
      // Seeded by plain SETs: no client recorded events for it.
      assert.deepEqual(explainedDoc.history, []);
      const lock = explainedDoc.lock;
      assert.equal(lock.verdict, 'held');
      assert.deepEqual(lock.nodes.map((n) => n.token), ['tok-job', 'tok-job', 'tok-job']);

      const none = await client.callTool({ name: 'redlock_explain', arguments: { key: 'lock:nothing' } });
      assert.match(summary(none), /no copy on any node/);
      assert.equal(doc<{ lock: null }>(none).lock, null);

      // Without --allow-writes a write tool does not exist.
      const refused = await client.callTool({ name: 'redlock_force_release', arguments: { key: 'lock:job', observed: [] } });
      assert.equal(refused.isError, true);
      assert.equal(await withClient(servers[0], (c) => c.get('lock:job')), 'tok-job');
    } finally {
      await client.close();
    }
  });

  it('--allow-writes adds compare-and-set write tools: a stale token deletes nothing, the shown one does', async () => {
    const client = await connect(['--allow-writes', ...nodeArgs]);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name).sort();
      assert.deepEqual(names, ['redlock_doctor', 'redlock_explain', 'redlock_extend', 'redlock_force_release', 'redlock_status']);
      const lock = doc<{ lock: { nodes: Copy[] } }>(await client.callTool({ name: 'redlock_explain', arguments: { key: 'lock:job' } })).lock;
      const observed = lock.nodes.map((n) => ({ node: n.node, token: n.token }));

      // The lock changed hands on one node after it was shown: that copy is left alone.
      await withClient(servers[1], (c) => c.set('lock:job', 'tok-new', 'PX', 60_000));
      const r = doc<{ nodes: Array<{ node: string; outcome: string }> }>(await client.callTool({ name: 'redlock_force_release', arguments: { key: 'lock:job', observed } }));
      assert.deepEqual(r.nodes.map((n) => n.outcome), ['deleted', 'changed', 'deleted']);
      assert.equal(await withClient(servers[1], (c) => c.get('lock:job')), 'tok-new');

      const ext = await client.callTool({ name: 'redlock_extend', arguments: { key: 'lock:job', token: 'tok-new', ttlMs: 120_000 } });
      // One copy of three: no quorum, so the extension fails and says which nodes refused.
      assert.equal(ext.isError, true);
      assert.match(JSON.stringify(doc(ext)), /not-held|held-by-other/);
    } finally {
      await client.close();
    }
  });

  it('loads the SDK from its own bundle, for mcp alone: every other command runs without it', () => {
    // The command and the CLI's bundle copied alone, without dist/cli-mcp-sdk.js beside them.
    const dir = mkdtempSync(join(tmpdir(), 'rli-cli-alone-'));
    try {
      const alone = join(dir, 'cli.js');
      copyFileSync(CLI, alone);
      copyFileSync(join(dirname(CLI), 'cli-main.js'), join(dir, 'cli-main.js'));
      const run = (args: string[]) => spawnSync(process.execPath, [alone, ...args], { env: { ...env(), XDG_CACHE_HOME: dir }, encoding: 'utf8', input: '', timeout: 20_000 });
      const status = run(['status', '--json', ...nodeArgs]);
      assert.equal(status.status, 0, status.stderr);
      assert.ok((JSON.parse(status.stdout) as { locks: Array<{ key: string }> }).locks.some((l) => l.key === 'lock:job'));
      const mcp = run(['mcp', ...nodeArgs]);
      assert.notEqual(mcp.status, 0);
      assert.match(mcp.stderr, /^redlock-inspector: unexpected failure: mcp needs the MCP SDK's bundle, cli-mcp-sdk\.js, beside the CLI/);
      assert.equal(mcp.stderr.trim().split('\n').length, 1, mcp.stderr);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--read-only wins over --allow-writes', async () => {
    const client = await connect(['--allow-writes', ...nodeArgs], { REDLOCK_READ_ONLY: '1' });
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(!names.includes('redlock_force_release') && !names.includes('redlock_extend'), names.join());
    } finally {
      await client.close();
    }
  });
});
