// TLS through the CLI: --tls-ca for a private CA, --tls-cert/--tls-key for mutual TLS
// (REDLOCK_TLS_PASSPHRASE for an encrypted key), --tls-insecure's warning, and the
// message for a redis:// URL on a TLS-only port.
import assert from 'node:assert/strict';
import { useTlsNodes } from '../support/tlsCerts';
import { runCli } from './runCli';

describe('cli over TLS with a private CA', function () {
  this.timeout(60_000);
  const fx = useTlsNodes();

  async function lockCycle(node: string, args: string[], env: Record<string, string> = {}): Promise<void> {
    const a = await runCli(['acquire', 'lock:cli:tls', '--ttl', '30000', '--json', '--node', node, ...args], env);
    assert.equal(a.code, 0, a.stderr);
    const token = (JSON.parse(a.stdout) as { token: string }).token;
    const s = await runCli(['status', '--json', '--node', node, ...args], env);
    assert.equal(s.code, 0, s.stderr);
    assert.equal((JSON.parse(s.stdout) as { locks: Array<{ key: string }> }).locks[0].key, 'lock:cli:tls');
    const r = await runCli(['release', 'lock:cli:tls', '--token', token, '--node', node, ...args], env);
    assert.equal(r.code, 0, r.stderr);
  }

  it('--tls-ca trusts a private CA; without it the certificate is refused (exit 3)', async () => {
    const node = `rediss://127.0.0.1:${fx.oneWay.tlsPort}`;
    await lockCycle(node, ['--tls-ca', fx.pki.ca]);
    const r = await runCli(['status', '--node', node]);
    assert.equal(r.code, 3);
    assert.match(r.stderr, /certificate/i);
  });

  it('--tls-cert and --tls-key for a server that requires client certificates', async () => {
    const node = `rediss://127.0.0.1:${fx.mutual.tlsPort}`;
    await lockCycle(node, ['--tls-ca', fx.pki.ca, '--tls-cert', fx.pki.clientCert, '--tls-key', fx.pki.clientKey]);
    await lockCycle(node, ['--tls-ca', fx.pki.ca, '--tls-cert', fx.pki.clientCert, '--tls-key', fx.pki.clientKeyEncrypted], { REDLOCK_TLS_PASSPHRASE: fx.pki.passphrase });
    const without = await runCli(['status', '--node', node, '--tls-ca', fx.pki.ca]);
    assert.equal(without.code, 3, without.stderr);
  });

  it('bad TLS input exits 2 before connecting, never printing the passphrase', async () => {
    const node = `rediss://127.0.0.1:${fx.mutual.tlsPort}`;
    const missing = await runCli(['status', '--node', node, '--tls-ca', `${fx.pki.dir}/nope.crt`]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /cannot read the TLS CA file/);
    const half = await runCli(['status', '--node', node, '--tls-cert', fx.pki.clientCert]);
    assert.equal(half.code, 2);
    const wrong = await runCli(['status', '--node', node, '--tls-cert', fx.pki.clientCert, '--tls-key', fx.pki.clientKeyEncrypted], { REDLOCK_TLS_PASSPHRASE: 'not-it-1234' });
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /passphrase/);
    assert.doesNotMatch(wrong.stderr + wrong.stdout, /not-it-1234/);
  });

  it('--tls-insecure works against an unknown CA and warns loudly on stderr', async () => {
    const r = await runCli(['status', '--json', '--node', `rediss://127.0.0.1:${fx.oneWay.tlsPort}`, '--tls-insecure']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /WARNING: --tls-insecure: server certificates are NOT verified/);
  });

  it('a redis:// URL on a TLS-only port: "this port expects TLS (use rediss://)", exit 3', async () => {
    for (const args of [['status'], ['acquire', 'lock:plain', '--ttl', '5000']]) {
      const r = await runCli([...args, '--node', `redis://127.0.0.1:${fx.mutual.tlsPort}`]);
      assert.equal(r.code, 3, r.stderr);
      assert.match(r.stderr, /this port expects TLS \(use rediss:\/\/\)/);
      assert.doesNotMatch(r.stderr, /ECONNRESET/);
    }
  });
});
