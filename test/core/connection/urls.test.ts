import assert from 'node:assert/strict';
import { NodeConfigError, parseNodeUrl, redactUrl } from '../../../src/core/connection/urls';
import { displayKey, displayToken, parseKeyArg, parseTokenArg } from '../../../src/core/vocabulary/tokens';

describe('node URLs', () => {
  it('derives ids from host:port and /db, never from credentials', () => {
    const a = parseNodeUrl('redis://user:s3cret@127.0.0.1:7000/2');
    assert.equal(a.id, '127.0.0.1:7000/2');
    assert.equal(a.kind === 'standalone' && a.password, 's3cret');
    assert.equal(parseNodeUrl('redis://127.0.0.1').id, '127.0.0.1:6379');
    assert.equal(parseNodeUrl('redis://[::1]:7001').id, '[::1]:7001');
    assert.equal(parseNodeUrl('redis://127.0.0.1:7001', 'node-a').id, 'node-a');
    const tls = parseNodeUrl('rediss://127.0.0.1:7002');
    assert.equal(tls.tls, true);
  });

  it('parses sentinel and cluster forms', () => {
    const s = parseNodeUrl('redis+sentinel://127.0.0.1:26379,127.0.0.1:26380/mymaster');
    assert.equal(s.kind, 'sentinel');
    assert.deepEqual(s.kind === 'sentinel' && s.sentinels.map((h) => h.port), [26379, 26380]);
    assert.equal(s.kind === 'sentinel' && s.masterName, 'mymaster');
    const c = parseNodeUrl('redis+cluster://127.0.0.1:7000,127.0.0.1:7001');
    assert.equal(c.kind, 'cluster');
    assert.equal(c.id, '127.0.0.1:7000,127.0.0.1:7001');
  });

  it('parses the TLS forms of sentinel and cluster (docs/deployments.md, "TLS")', () => {
    const s = parseNodeUrl('rediss+sentinel://:pw@127.0.0.1,127.0.0.1:26380/mymaster/2');
    assert.equal(s.kind, 'sentinel');
    assert.equal(s.tls, true);
    assert.deepEqual(s.kind === 'sentinel' && s.sentinels.map((h) => h.port), [26379, 26380]);
    assert.equal(s.id, 'mymaster@127.0.0.1:26379,127.0.0.1:26380/2');
    assert.equal(s.password, 'pw');
    const c = parseNodeUrl('REDISS+CLUSTER://127.0.0.1,127.0.0.1:7001');
    assert.equal(c.kind, 'cluster');
    assert.equal(c.tls, true);
    assert.equal(c.id, '127.0.0.1:6379,127.0.0.1:7001');
    for (const plain of ['redis+sentinel://127.0.0.1/m', 'redis+cluster://127.0.0.1:7000', 'redis://127.0.0.1']) assert.equal(parseNodeUrl(plain).tls, false, plain);
  });

  it('uses a default password only when the URL has none', () => {
    const a = parseNodeUrl('redis://127.0.0.1:1', undefined, 'fromenv');
    assert.equal(a.password, 'fromenv');
    const b = parseNodeUrl('redis://:inurl@127.0.0.1:1', undefined, 'fromenv');
    assert.equal(b.password, 'inurl');
  });

  for (const [url, pattern] of [
    ['http://127.0.0.1:6379', /unknown scheme "http:"/],
    ['127.0.0.1:6379', /not a node URL/],
    ['redis://127.0.0.1:99999', /invalid port/],
    ['redis://127.0.0.1:6379/x', /invalid database/],
    ['redis+sentinel://127.0.0.1:26379', /missing master name/],
    ['rediss+sentinel://127.0.0.1:26379', /missing master name \(rediss\+sentinel:\/\/host:port\/masterName\)/],
    ['rediss+cluster://127.0.0.1:7000/0', /a cluster URL takes no path/],
    ['rediss+redis://127.0.0.1:7000', /unknown scheme .*rediss\+sentinel, redis\+cluster or rediss\+cluster\)/],
    ['redis://a:1,b:2', /several hosts/],
    ['redis://', /missing host/],
  ] as const) {
    it(`rejects ${url} with a clear message`, () => {
      assert.throws(() => parseNodeUrl(url), (e: Error) => e instanceof NodeConfigError && pattern.test(e.message));
    });
  }

  it('never shows a password in an error', () => {
    assert.throws(() => parseNodeUrl('redis://u:hunter2@127.0.0.1:0'), (e: Error) => !e.message.includes('hunter2') && e.message.includes('u:***@'));
    assert.equal(redactUrl('redis://:hunter2@h:1'), 'redis://:***@h:1');
    for (const url of ['rediss+cluster://u:hunter2@127.0.0.1:0', 'rediss+sentinel://u:hunter2@127.0.0.1:1', 'rediss+sentinel://u:hunter2@127.0.0.1:1/m/x']) {
      assert.throws(() => parseNodeUrl(url), (e: Error) => !e.message.includes('hunter2') && e.message.includes('u:***@'), url);
    }
  });
});

describe('tokens as shown', () => {
  it('keeps printable UTF-8 and hex-encodes the rest', () => {
    assert.equal(displayToken(Buffer.from('7f3a9c')), '7f3a9c');
    assert.equal(displayToken(Buffer.from('tökén ✓')), 'tökén ✓');
    assert.equal(displayToken(Buffer.from([0xff, 0x00, 0x41])), 'hex:ff0041');
    assert.equal(displayToken('a\nb'), 'hex:610a62');
    assert.equal(displayToken('\u001b[31mred'), 'hex:1b5b33316d726564');
    // A token that looks like the hex form is itself encoded, so parsing round-trips.
    assert.equal(displayToken('hex:00'), 'hex:6865783a3030');
  });

  it('parses both forms back to the same bytes', () => {
    for (const raw of [Buffer.from('abc'), Buffer.from([0, 1, 2, 255]), Buffer.from('hex:00'), Buffer.from('__proto__')]) {
      assert.deepEqual(parseTokenArg(displayToken(raw)), raw);
    }
  });

  it('keeps printable UTF-8 keys and hex-encodes control, bidi and invalid bytes', () => {
    assert.equal(displayKey(Buffer.from('lock:<b> ✓ 🔒')), 'lock:<b> ✓ 🔒');
    assert.equal(displayKey(Buffer.from('lock:\n<b>')), 'hex:6c6f636b3a0a3c623e');
    assert.equal(displayKey(Buffer.from([0x6c, 0xff])), 'hex:6cff');
    // A real ESC and the text "\x1b" no longer look alike, and each round-trips.
    const esc = Buffer.from('lock:\x1b[0m');
    const text = Buffer.from('lock:\\x1b[0m');
    assert.notEqual(displayKey(esc), displayKey(text));
    assert.equal(displayKey(text), 'lock:\\x1b[0m');
    for (const raw of [esc, text, Buffer.from('a\u202eb'), Buffer.from('a\u200bb'), Buffer.from('hex:00')]) {
      assert.deepEqual(parseKeyArg(displayKey(raw)), raw);
      assert.equal(displayKey(raw.toString('utf8')), displayKey(raw), 'string and Buffer agree');
    }
  });
});
