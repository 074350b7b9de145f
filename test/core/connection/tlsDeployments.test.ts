// TLS beyond one node: a TLS-only Redis Cluster through rediss+cluster:// and a TLS-only
// Sentinel deployment through rediss+sentinel://, with a private CA; without the CA the
// certificate is refused in words, and a password never shows.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { NodeConfigError, Redlock, RedlockError, Snapshot } from '../../../src/core';
import { withClient } from '../../../src/dev/redisServer';
import { useTlsCluster, useTlsSentinel } from '../../support/tlsDeployments';

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
