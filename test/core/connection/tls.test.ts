// TLS through the library: a private CA, mutual TLS with a client certificate (also with
// a passphrase-protected key), and the plain-URL-on-a-TLS-port message.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { NodeConfigError, PLAIN_ON_TLS, Redlock, RedlockError, Snapshot } from '../../../src/core';
import { RedisServer, withClient } from '../../../src/dev/redisServer';
import { useTlsNodes } from '../../support/tlsCerts';
import { useTlsCluster, useTlsSentinel } from '../../support/tlsDeployments';

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
    // OpenSSL words a wrong passphrase in more than one way (now and then the key decrypts
    // to garbage instead of failing its padding): every one is still named a passphrase.
    for (let i = 0; i < 200; i++) {
      const wrong = `wrong-${i}`;
      assert.throws(() => new Redlock([{ url, tls: { ...tls, passphrase: wrong } }]), (e: unknown) => e instanceof NodeConfigError && /passphrase/.test(e.message) && !e.message.includes(wrong), wrong);
    }
    assert.throws(() => new Redlock([{ url, tls: { cert: tls.cert, key: tls.key } }]), (e: unknown) => e instanceof NodeConfigError && /passphrase/.test(e.message), 'no passphrase at all');
    // A key that is not encrypted and still does not open is no passphrase's fault.
    const broken = Buffer.from('-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n');
    assert.throws(() => new Redlock([{ url, tls: { cert: tls.cert, key: broken } }]), (e: unknown) => e instanceof NodeConfigError && /^the TLS key cannot be read: /.test(e.message) && !/passphrase/.test(e.message));
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

// TLS beyond one node: a TLS-only Redis Cluster through rediss+cluster:// and a TLS-only
// Sentinel deployment through rediss+sentinel://, with a private CA; without the CA the
// certificate is refused in words, and a password never shows.
/** Inspects and acquires through `url` trusting only the system CAs: both must fail, naming the certificate. */
async function withoutCa(url: string): Promise<{ snap: Snapshot; err: RedlockError }> {
  const rl = new Redlock([url], { connectTimeoutMs: 1000, commandTimeoutMs: 500 });
  try {
    const snap = await rl.inspect();
    assert.equal(snap.nodes[0].reachable, false);
    const err = await rl.acquire('lock:tls:untrusted', 5000).then(() => null, (e: unknown) => e);
    assert.ok(err instanceof RedlockError, String(err));
    assert.match(err.nodes[0].reason ?? '', /TLS handshake refused: .*certificate/);
    return { snap, err };
  } finally {
    await rl.quit();
  }
}

describe('TLS deployments', function () {
  this.timeout(60_000);

  describe('a TLS-only Redis Cluster (port 0, tls-port, tls-cluster yes)', () => {
    const fx = useTlsCluster();
    const keys = ['lock:tls:a', 'lock:tls:b', 'lock:tls:c', 'lock:tls:d', 'lock:tls:e', 'lock:tls:f'];

    /** Acquires `keys`, checks each copy on its owning master, releases; returns the masters used. */
    async function lockCycle(rl: Redlock): Promise<Set<string>> {
      const locks = await Promise.all(keys.map((k) => rl.acquire(k, 30_000)));
      const snap = await rl.inspect();
      assert.deepEqual(snap.nodes.map((n) => [n.node, n.reachable]).sort(), fx.masters.map((m) => [`127.0.0.1:${m.port}`, true]).sort());
      assert.deepEqual(snap.locks.map((l) => l.key), keys);
      const owners = new Set<string>();
      for (const l of snap.locks) {
        assert.equal(l.verdict, 'held');
        const master = fx.masters.find((m) => `127.0.0.1:${m.port}` === l.nodes[0].node);
        assert.ok(master, l.nodes[0].node);
        assert.equal(await withClient(master, (c) => c.get(l.key)), l.nodes[0].token);
        owners.add(l.nodes[0].node);
      }
      for (const l of locks) assert.equal((await rl.release(l)).nodes[0].outcome, 'released');
      assert.equal((await rl.inspect()).locks.length, 0);
      return owners;
    }

    it('its slot map names the TLS ports, and rediss+cluster:// with the private CA inspects and locks on the owning masters', async () => {
      const slots = await withClient(fx.masters[0], (c) => c.call('CLUSTER', 'SLOTS')) as Array<[number, number, [string, number]]>;
      assert.deepEqual(slots.map((s) => s[2][1]).sort(), fx.masters.map((m) => m.port).sort());
      const rl = new Redlock([fx.url], { tls: { ca: readFileSync(fx.pki.ca) }, commandTimeoutMs: 500 });
      try {
        assert.equal(rl.quorum, 1);
        assert.ok((await lockCycle(rl)).size >= 2, 'keys spread over several masters');
      } finally {
        await rl.quit();
      }
    });

    it('a node\'s own TLS settings reach every member the slot map names, from one seed', async () => {
      const rl = new Redlock([{ name: 'tls-cluster', url: `rediss+cluster://127.0.0.1:${fx.masters[0].port}`, tls: { ca: readFileSync(fx.pki.ca) } }], { commandTimeoutMs: 500 });
      try {
        assert.ok((await lockCycle(rl)).size >= 2, 'keys spread over several masters');
      } finally {
        await rl.quit();
      }
    });

    it('without the CA the certificate is refused, in words, on reads and writes', async () => {
      const { snap } = await withoutCa(fx.url);
      assert.match(snap.nodes[0].error ?? '', /TLS handshake refused: .*certificate/);
    });

    it('TLS settings on a plain cluster URL are refused before connecting', () => {
      assert.throws(() => new Redlock([{ url: 'redis+cluster://127.0.0.1:1', tls: { ca: readFileSync(fx.pki.ca) } }]),
        (e: Error) => e instanceof NodeConfigError && /use rediss:\/\/, rediss\+sentinel:\/\/ or rediss\+cluster:\/\//.test(e.message));
    });
  });

  describe('a TLS-only Sentinel deployment (sentinel and master on TLS ports)', () => {
    const fx = useTlsSentinel();

    it('rediss+sentinel:// reaches the sentinel and the master it names over TLS; the password never shows', async () => {
      const rl = new Redlock([fx.url], { tls: { ca: readFileSync(fx.pki.ca) }, commandTimeoutMs: 500 });
      try {
        assert.equal(rl.nodes[0].id, `mymaster@127.0.0.1:${fx.sentinel.port}`);
        const lock = await rl.acquire('lock:tls:sentinel', 30_000);
        const snap = await rl.inspect();
        assert.equal(snap.locks[0].nodes[0].token, lock.token);
        const facts = await rl.nodeFacts();
        assert.equal(facts[0].role, 'master');
        assert.equal((await rl.release(lock)).nodes[0].outcome, 'released');
        assert.doesNotMatch(JSON.stringify([snap, facts, rl.nodes]), new RegExp(fx.password));
      } finally {
        await rl.quit();
      }
    });

    it('without the CA the sentinel\'s certificate is refused, in words, never with the password', async () => {
      const { snap, err } = await withoutCa(fx.url);
      assert.match(snap.nodes[0].error ?? '', new RegExp(`127\\.0\\.0\\.1:${fx.sentinel.port}: TLS handshake refused: .*certificate`));
      assert.doesNotMatch(`${JSON.stringify(snap)} ${err.message} ${JSON.stringify(err.nodes)}`, new RegExp(fx.password));
    });
  });
});
