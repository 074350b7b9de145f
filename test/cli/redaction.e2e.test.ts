// No password in any output, whatever the shape of the URL: redaction happens before
// parsing, so malformed URLs (an unescaped '@' or '/' in the password, a missing or extra
// slash, no scheme) never print what stands before the host's '@'.
import assert from 'node:assert/strict';
import { parseNodeUrl, redactUrl, Redlock } from '../../src/core';
import { splitNodeList } from '../../src/cli/options';
import { splitPassword, withPassword } from '../../src/extension/model/nodeSettings';
import { runCli } from './runCli';
import { RedisServer, startNodes } from '../../src/dev/redisServer';

describe('no password in any output, whatever the URL shape', function () {
  this.timeout(60_000);
  let node: RedisServer;

  before(async () => {
    [node] = await startNodes(1);
  });
  after(async () => {
    await node.dispose();
  });

  /** Each shape with the fragments of its secret that must never be printed. */
  const shapes = (p: number): Array<{ url: string; secrets: string[]; code: number }> => [
    { url: `redis://user:p@ssw0rd-a1@127.0.0.1:${p}`, secrets: ['p@ssw0rd', 'ssw0rd-a1', 'p@ss'], code: 3 },
    { url: `redis:///user:secret-b2@127.0.0.1:${p}`, secrets: ['secret-b2'], code: 2 },
    { url: `redis:/user:secret-c3@127.0.0.1:${p}`, secrets: ['secret-c3'], code: 2 },
    { url: `redis//user:secret-d4@127.0.0.1:${p}`, secrets: ['secret-d4'], code: 2 },
    { url: `user:secret-e5@127.0.0.1:${p}`, secrets: ['secret-e5'], code: 2 },
    { url: `redis://user:Secr3t-f6/Pw@127.0.0.1:${p}`, secrets: ['Secr3t', 'f6/Pw'], code: 3 },
    // No username: the default user, which has no password here, lets it in (exit 0).
    { url: `redis://:pa@ss:wo/rd-g7@127.0.0.1:${p}/0`, secrets: ['pa@ss', 'wo/rd', 'rd-g7'], code: 0 },
  ];

  it('redactUrl hides everything before the last @ for every shape', () => {
    for (const { url, secrets } of shapes(6379)) {
      const shown = redactUrl(url);
      for (const s of secrets) assert.ok(!shown.includes(s), `${shown} shows ${s}`);
      assert.ok(shown.endsWith('@127.0.0.1:6379') || shown.endsWith('@127.0.0.1:6379/0'), shown);
      // Parsing either succeeds without the secret in the id, or fails without it in the message.
      try {
        const spec = parseNodeUrl(url);
        for (const s of secrets) assert.ok(!spec.id.includes(s), spec.id);
        assert.equal(spec.kind === 'standalone' && spec.host, '127.0.0.1');
      } catch (e) {
        for (const s of secrets) assert.ok(!(e as Error).message.includes(s), (e as Error).message);
      }
    }
    // An '@' or '/' in the password is the password's, not the host's.
    const spec = parseNodeUrl('redis://user:p@ss/w0rd@127.0.0.1:7000/3');
    assert.equal(spec.kind === 'standalone' && spec.password, 'p@ss/w0rd');
    assert.equal(spec.id, '127.0.0.1:7000/3');
    // The extension moves the whole password (to the last '@') into SecretStorage.
    const split = splitPassword('redis://user:p@ss/w0rd@127.0.0.1:7000');
    assert.deepEqual(split, { url: 'redis://user:@127.0.0.1:7000', password: 'p@ss/w0rd' });
    assert.deepEqual(parseNodeUrl(withPassword(split.url, split.password)), parseNodeUrl('redis://user:p@ss/w0rd@127.0.0.1:7000'));
    // REDLOCK_NODES: a malformed piece never becomes part of a neighbour's password.
    assert.deepEqual(splitNodeList('redis://127.0.0.1:1,user:pw@127.0.0.1:2'), ['redis://127.0.0.1:1', 'user:pw@127.0.0.1:2']);
  });

  it('through --node and REDLOCK_NODES, for status and acquire: the secret appears in no stdout or stderr', async () => {
    let n = 0;
    for (const { url, secrets, code } of shapes(node.port)) {
      for (const [args, env] of [
        [['--node', url], {}],
        [[], { REDLOCK_NODES: url }],
        [[], { REDLOCK_NODES: `${node.url},${url}` }],
      ] as Array<[string[], Record<string, string>]>) {
        for (const cmd of [['status'], ['acquire', `lock:redact:${n++}`, '--ttl', '5000', '--json']]) {
          const r = await runCli([...cmd, ...args], env);
          const out = r.stdout + r.stderr;
          for (const s of secrets) assert.ok(!out.includes(s), `${url} via ${JSON.stringify(env)}${args.join(' ')} printed ${s}: ${out}`);
          if (env.REDLOCK_NODES?.includes(',') !== true) assert.equal(r.code, code, `${url} ${cmd[0]}: ${r.stderr}`);
        }
      }
    }
  });

  it('the core: errors and node ids never carry the secret', async () => {
    for (const { url, secrets } of shapes(node.port)) {
      let rl: Redlock | undefined;
      try {
        rl = new Redlock([url], { connectTimeoutMs: 500, commandTimeoutMs: 200 });
        const err = await rl.acquire('lock:redact', 1000).then(() => null, (e: unknown) => e as Error);
        const text = `${rl.nodes.map(String).join(' ')} ${err?.message ?? ''} ${rl.nodes.map((n) => n.lastError ?? '').join(' ')}`;
        for (const s of secrets) assert.ok(!text.includes(s), text);
      } catch (e) {
        for (const s of secrets) assert.ok(!(e as Error).message.includes(s), (e as Error).message);
      } finally {
        await rl?.quit();
      }
    }
  });
});
