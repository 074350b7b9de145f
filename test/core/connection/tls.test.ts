// TLS through the library: a private CA, mutual TLS with a client certificate (also with
// a passphrase-protected key), and the plain-URL-on-a-TLS-port message.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { NodeConfigError, PLAIN_ON_TLS, Redlock, RedlockError } from '../../../src/core';
import { RedisServer, withClient } from '../../../src/dev/redisServer';
import { useTlsNodes } from '../../support/tlsCerts';

describe('TLS with a private CA', function () {
  this.timeout(60_000);
  const fx = useTlsNodes();

  async function roundTrip(rl: Redlock, server: RedisServer, key: string): Promise<void> {
    try {
      const lock = await rl.acquire(key, 30_000);
      assert.equal(await withClient(server, (c) => c.get(key)), lock.token);
      const snap = await rl.inspect({ patterns: [key] });
      assert.equal(snap.locks[0].nodes[0].token, lock.token);
      assert.equal((await rl.release(lock)).nodes[0].outcome, 'released');
    } finally {
      await rl.quit();
    }
  }

  it('trusts a private CA given as an option for every TLS node', async () => {
    await roundTrip(new Redlock([`rediss://127.0.0.1:${fx.oneWay.tlsPort}`], { tls: { ca: readFileSync(fx.pki.ca) } }), fx.oneWay, 'lock:tls:ca');
  });

  it('refuses a server its CA did not sign, with a certificate reason', async () => {
    const rl = new Redlock([`rediss://127.0.0.1:${fx.oneWay.tlsPort}`], { tls: { ca: readFileSync(fx.pki.otherCa) }, connectTimeoutMs: 1000 });
    try {
      const err = await rl.acquire('lock:tls:untrusted', 5000).then(() => null, (e: unknown) => e);
      assert.ok(err instanceof RedlockError, String(err));
      assert.match(err.nodes[0].reason ?? '', /certificate/i);
    } finally {
      await rl.quit();
    }
  });

  it('mutual TLS: a per-node client certificate, also with a passphrase-protected key', async () => {
    const url = `rediss://127.0.0.1:${fx.mutual.tlsPort}`;
    const ca = readFileSync(fx.pki.ca);
    const cert = readFileSync(fx.pki.clientCert);
    await roundTrip(new Redlock([{ name: 'secure', url, tls: { ca, cert, key: readFileSync(fx.pki.clientKey) } }]), fx.mutual, 'lock:tls:mutual');
    await roundTrip(new Redlock([{ url, tls: { ca, cert, key: readFileSync(fx.pki.clientKeyEncrypted), passphrase: fx.pki.passphrase } }]), fx.mutual, 'lock:tls:pass');
    // Without a client certificate the server ends the handshake.
    const rl = new Redlock([url], { tls: { ca }, connectTimeoutMs: 1000 });
    try {
      const err = await rl.acquire('lock:tls:nocert', 5000).then(() => null, (e: unknown) => e);
      assert.ok(err instanceof RedlockError, String(err));
      assert.equal(await withClient(fx.mutual, (c) => c.exists('lock:tls:nocert')), 0);
    } finally {
      await rl.quit();
    }
  });

  it('a wrong passphrase or a stray TLS setting is a configuration error before any connection', () => {
    const url = `rediss://127.0.0.1:${fx.mutual.tlsPort}`;
    const tls = { cert: readFileSync(fx.pki.clientCert), key: readFileSync(fx.pki.clientKeyEncrypted), passphrase: 'wrong-one-99' };
    assert.throws(() => new Redlock([{ url, tls }]), (e: unknown) => e instanceof NodeConfigError && /passphrase/.test(e.message) && !e.message.includes('wrong-one-99'));
    assert.throws(() => new Redlock([{ url: `redis://127.0.0.1:${fx.mutual.port}`, tls: { ca: readFileSync(fx.pki.ca) } }]), /use rediss:\/\//);
  });

  it('a redis:// URL on a TLS-only port says the port expects TLS', async () => {
    const rl = new Redlock([`redis://127.0.0.1:${fx.mutual.tlsPort}`], { connectTimeoutMs: 1000 });
    try {
      const err = await rl.acquire('lock:tls:plain', 5000).then(() => null, (e: unknown) => e);
      assert.ok(err instanceof RedlockError, String(err));
      assert.equal(err.nodes[0].reason, PLAIN_ON_TLS);
      const snap = await rl.inspect();
      assert.equal(snap.nodes[0].error, PLAIN_ON_TLS);
    } finally {
      await rl.quit();
    }
  });
});
