// What a server can do: INFO parsing (Valkey's own INFO text: Valkey is not installable on
// this Debian, so its INFO is tested as text), the native compare-and-delete choice (no
// Valkey 9 or Redis 8.4 here either), the words that mean "missing", and the probe against
// real servers with commands renamed away or an ACL user without them.
import { strict as assert } from 'node:assert';
import Redis from 'ioredis';
import { compareAndDeleteOf, missingCommand, parseInfo, probeCapabilities, serverLabel, serverOf, unsupportedLine, UnsupportedError } from '../../../src/core/connection/capabilities';
import { readScript } from '../../../src/core/connection/lua';
import { nativeCompareAndDelete } from '../../../src/core/lock/writeScripts';
import { PEXPIRETIME_MISSING } from '../../../src/core/read/watchNode';
import { RedisServer } from '../../../src/dev/redisServer';
import { PROFILES, profileConfig } from '../../support/serverProfiles';

// The head of `INFO server` as Valkey 8.0.1 prints it.
const VALKEY_INFO = [
  '# Server', 'redis_version:7.2.4', 'server_name:valkey', 'valkey_version:8.0.1', 'redis_git_sha1:00000000',
  'redis_git_dirty:0', 'redis_build_id:1c7a0c3d5f2b0e1a', 'server_mode:standalone', 'redis_mode:standalone',
  'os:Linux 6.1.0-18-amd64 x86_64', 'arch_bits:64', 'run_id:7a1c2f3e4d5b6a7988776655443322110ffeeddc', 'tcp_port:6379', '',
].join('\r\n');

describe('capabilities: parsing and choices', () => {
  it('shows Valkey as Valkey with its own version, not the compatibility redis_version', () => {
    assert.deepEqual(serverOf(parseInfo(VALKEY_INFO)), { server: 'valkey', version: '8.0.1' });
    assert.equal(serverLabel({ server: 'valkey', version: '8.0.1' }), 'Valkey 8.0.1');
    assert.deepEqual(serverOf(parseInfo('# Server\r\nredis_version:6.2.14\r\n')), { server: 'redis', version: '6.2.14' });
    assert.deepEqual(serverOf(parseInfo('# Server\r\nserver_name:dragonfly\r\ndragonfly_version:df-v1.2\r\nredis_version:6.2.11\r\n')), { server: 'dragonfly', version: 'df-v1.2' });
    assert.deepEqual(serverOf(new Map()), { server: null, version: null });
  });

  it('picks the native compare-and-delete by server and version', () => {
    assert.equal(compareAndDeleteOf('valkey', '9.0.0'), 'DELIFEQ');
    assert.equal(compareAndDeleteOf('valkey', '8.1.1'), null);
    assert.equal(compareAndDeleteOf('redis', '8.4.0'), 'DELEX');
    assert.equal(compareAndDeleteOf('redis', '8.2.1'), null);
    assert.equal(compareAndDeleteOf('redis', '7.0.15'), null);
    assert.deepEqual(nativeCompareAndDelete('DELIFEQ', 'k', 't'), ['DELIFEQ', 'k', 't']);
    assert.deepEqual(nativeCompareAndDelete('DELEX', 'k', 't'), ['DELEX', 'k', 'IFEQ', 't']);
  });

  it('reads "missing" from what servers say, and names the server in an unsupported line', () => {
    for (const m of ["ERR unknown command 'pexpiretime', with args beginning with: 'x'", "NOPERM this user has no permissions to run the 'eval' command"]) assert.ok(missingCommand(m), m);
    assert.ok(!missingCommand('Connection is closed.'));
    for (const m of ['ERR Unknown Redis command called from script script: d9303..., on @user_script:1.', 'ERR Error running script (call to f_...): @user_script:1: @user_script: 1: Unknown Redis command called from Lua script']) assert.match(m, PEXPIRETIME_MISSING);
    assert.equal(unsupportedLine(new UnsupportedError('run read-only scripts', { server: 'redis', version: '6.2.14' })), 'this server (Redis 6.2.14) cannot run read-only scripts');
    assert.match(unsupportedLine(new Error('ERR Error compiling script (new function): user_script:1: unexpected symbol near \'#\''))!, /rejects their shebang flags/);
  });

  it('keeps a flagless spelling of each read script for servers without shebang flags', () => {
    const s = readScript('#!lua flags=no-writes\nreturn 1');
    assert.equal(s.plain.lua, 'return 1');
    assert.notEqual(s.plain.sha, s.flagged.sha);
  });
});

describe('capabilities: probed on real servers', function () {
  this.timeout(20_000);
  const servers: RedisServer[] = [];
  after(async () => {
    await Promise.all(servers.map((s) => s.dispose()));
  });

  async function probe(config: string[], user?: string): Promise<Awaited<ReturnType<typeof probeCapabilities>>> {
    const s = await RedisServer.start({ config });
    servers.push(s);
    const c = new Redis({ port: s.port, host: '127.0.0.1', ...(user ? { username: user, password: `${[...user].reverse().join('')}-pw` } : {}) });
    try {
      return await probeCapabilities(c, 2000);
    } finally {
      c.disconnect();
    }
  }

  it('a stock 7.0 server has everything but a native compare-and-delete', async () => {
    const p = await probe([]);
    assert.deepEqual({ server: p.server, version: p.version }, { server: 'redis', version: '7.0.15' });
    assert.deepEqual(p.capabilities, { scripts: true, readOnlyScripts: true, scriptFlags: true, pexpiretime: true, memoryUsage: true, time: true, config: true, compareAndDelete: false });
  });

  it('survives renamed COMMAND, ACL, CONFIG and MEMORY (memorystore), and a no-script service', async () => {
    const m = await probe(profileConfig(PROFILES.memorystore));
    assert.equal(m.capabilities.memoryUsage, false);
    assert.equal(m.capabilities.config, false);
    assert.equal(m.capabilities.scripts, true);
    const n = await probe(profileConfig(PROFILES.noscript));
    assert.deepEqual([n.capabilities.scripts, n.capabilities.readOnlyScripts, n.capabilities.scriptFlags], [false, false, false]);
    assert.equal(n.version, '7.0.15');
  });

  it('a least-privilege read role: EVAL_RO and MEMORY USAGE (@read) yes; EVAL, TIME and CONFIG no', async () => {
    const r = await probe(profileConfig(PROFILES.readRole), 'reader');
    assert.deepEqual(r.capabilities, { scripts: false, readOnlyScripts: true, scriptFlags: true, pexpiretime: true, memoryUsage: true, time: false, config: false, compareAndDelete: false });
  });
});
