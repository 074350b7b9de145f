// TLS-only Cluster and Sentinel deployments through the built CLI: rediss+cluster:// and
// rediss+sentinel:// with --tls-ca; without it the certificate is refused (exit 3), and a
// password never shows on stdout or stderr.
import assert from 'node:assert/strict';
import { useTlsCluster, useTlsSentinel } from '../support/tlsDeployments';
import { runCli } from './runCli';

describe('cli on TLS-only deployments', function () {
  this.timeout(60_000);

  describe('rediss+cluster://', () => {
    const fx = useTlsCluster();

    it('--tls-ca: acquire, status and release through the cluster; without it exit 3 naming the certificate', async () => {
      const tls = ['--node', fx.url, '--tls-ca', fx.pki.ca];
      const a = await runCli(['acquire', 'lock:cli:tls-cluster', '--ttl', '30000', '--json', ...tls]);
      assert.equal(a.code, 0, a.stderr);
      // The --tls-* files apply to this URL: no "none is configured" warning.
      assert.equal(a.stderr, '');
      const token = (JSON.parse(a.stdout) as { token: string }).token;
      const s = await runCli(['status', '--json', ...tls]);
      assert.equal(s.code, 0, s.stderr);
      const doc = JSON.parse(s.stdout) as { nodes: Array<{ node: string; reachable: boolean }>; locks: Array<{ key: string; nodes: Array<{ token: string }> }> };
      assert.deepEqual(doc.nodes.map((n) => n.reachable), [true, true, true]);
      assert.deepEqual(doc.locks.map((l) => [l.key, l.nodes[0].token]), [['lock:cli:tls-cluster', token]]);
      const r = await runCli(['release', 'lock:cli:tls-cluster', '--token', token, ...tls]);
      assert.equal(r.code, 0, r.stderr);

      for (const args of [['status'], ['acquire', 'lock:cli:tls-untrusted', '--ttl', '5000']]) {
        const refused = await runCli([...args, '--node', fx.url]);
        assert.equal(refused.code, 3, refused.stderr);
        assert.match(refused.stdout + refused.stderr, /TLS handshake refused: .*certificate/);
      }
    });
  });

  describe('rediss+sentinel://', () => {
    const fx = useTlsSentinel();

    it('--tls-ca: status through the sentinel; without it exit 3 naming the certificate; the password never shows', async () => {
      const ok = await runCli(['status', '--json', '--node', fx.url, '--tls-ca', fx.pki.ca]);
      assert.equal(ok.code, 0, ok.stderr);
      const nodes = (JSON.parse(ok.stdout) as { nodes: Array<{ node: string; reachable: boolean; error: string | null }> }).nodes;
      assert.deepEqual(nodes.map((n) => [n.node, n.reachable, n.error]), [[`mymaster@127.0.0.1:${fx.sentinel.port}`, true, null]]);
      const refused = await runCli(['status', '--node', fx.url]);
      assert.equal(refused.code, 3, refused.stderr);
      assert.match(refused.stdout + refused.stderr, /certificate/);
      for (const r of [ok, refused]) assert.doesNotMatch(r.stdout + r.stderr, new RegExp(fx.password));
    });
  });
});
