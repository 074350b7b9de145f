// The extension's node settings (src/extension/model/nodeSettings.ts): `redlock.nodes` parsed,
// passwords kept out of them, per-node TLS refused on a plain URL and turned into files the core reads.
import assert from 'node:assert/strict';
import { homedir } from 'node:os';
import { parseNodeSettings, splitPassword, tlsPaths, withPassword } from '../../../src/extension/model/nodeSettings';

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

describe('extension node passwords', () => {
  it('keeps passwords out of settings and puts them into the URL for the core only', () => {
    assert.deepEqual(splitPassword('redis://:p%40ss@127.0.0.1:6379/2'), { url: 'redis://127.0.0.1:6379/2', password: 'p@ss' });
    assert.deepEqual(splitPassword('redis://user:pw@h:1'), { url: 'redis://user:@h:1', password: 'pw' });
    assert.deepEqual(splitPassword('redis://h:1'), { url: 'redis://h:1' });
    assert.equal(withPassword('redis://127.0.0.1:6379', 'a:b@c'), 'redis://:a%3Ab%40c@127.0.0.1:6379');
    assert.equal(withPassword('redis://user:@h:1', 'pw'), 'redis://user:pw@h:1');
    assert.equal(withPassword('redis://:given@h:1', 'pw'), 'redis://:given@h:1');
    const nodes = parseNodeSettings(['redis://127.0.0.1:7001', { name: 'b', url: 'redis://127.0.0.1:7002' }]);
    assert.deepEqual(nodes.map((n) => n.id), ['127.0.0.1:7001', 'b']);
    assert.throws(() => parseNodeSettings(['redis://127.0.0.1:7001', 'redis://127.0.0.1:7001']), /configured twice/);
    assert.throws(() => parseNodeSettings(['redis://:hunter2@127.0.0.1:x']), (e: Error) => !e.message.includes('hunter2'));
  });
});
