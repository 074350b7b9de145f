// The extension's per-node TLS settings: parsed from `redlock.nodes` objects, refused on
// a plain URL, and turned into files the core reads.
import assert from 'node:assert/strict';
import { homedir } from 'node:os';
import { parseNodeSettings, tlsPaths } from '../../../src/extension/model/nodeSettings';

describe('extension node TLS settings', () => {
  it('keeps ca/cert/key of a rediss:// node and refuses them on a plain URL', () => {
    const [n] = parseNodeSettings([{ name: 'prod', url: 'rediss://10.0.0.1:6380', tls: { ca: '/etc/ca.pem', cert: '/c.pem', key: '/k.pem', stray: 1 } }]);
    assert.deepEqual(n.tls, { ca: '/etc/ca.pem', cert: '/c.pem', key: '/k.pem' });
    assert.throws(() => parseNodeSettings([{ url: 'redis://10.0.0.1:6379', tls: { ca: '/etc/ca.pem' } }]), /need a TLS URL \(rediss:\/\/, rediss\+sentinel:\/\/ or rediss\+cluster:\/\/\)/);
    assert.throws(() => parseNodeSettings([{ url: 'redis+cluster://10.0.0.1:7000', tls: { ca: '/etc/ca.pem' } }]), /need a TLS URL/);
    // The TLS forms of a sentinel and a cluster take them like rediss://.
    for (const url of ['rediss+cluster://10.0.0.1:7000,10.0.0.2:7000', 'rediss+sentinel://10.0.0.1:26379/mymaster']) {
      assert.deepEqual(parseNodeSettings([{ url, tls: { ca: '/etc/ca.pem' } }])[0].tls, { ca: '/etc/ca.pem' }, url);
    }
    assert.throws(() => parseNodeSettings([{ url: 'rediss://10.0.0.1:6380', tls: { cert: '/c.pem' } }]), /go together/);
    assert.equal(parseNodeSettings(['rediss://10.0.0.1:6380'])[0].tls, undefined);
  });

  it('expands ~/ to the home directory', () => {
    assert.equal(tlsPaths({ ca: '~/pki/ca.pem' }).ca, `${homedir()}/pki/ca.pem`);
    assert.equal(tlsPaths({ ca: '/abs/ca.pem' }).ca, '/abs/ca.pem');
  });
});
