// A private certificate authority made with openssl in a temp dir: a CA, a server
// certificate for 127.0.0.1 and a client certificate (its key also in a
// passphrase-protected copy), as a company's own PKI would issue them; and two TLS-only
// redis-servers with its server certificate, for one describe block.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RedisServer } from '../../src/dev/redisServer';

export interface TestPki {
  dir: string;
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** The client key encrypted with `passphrase`. */
  clientKeyEncrypted: string;
  passphrase: string;
  /** A second CA that signed nothing here: trusting it alone must fail. */
  otherCa: string;
  dispose(): void;
}

function openssl(args: string[], cwd: string): void {
  const r = spawnSync('openssl', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')} failed: ${r.stderr}`);
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function makeCa(dir: string, name: string): void {
  openssl(['req', '-x509', ...EC, '-keyout', `${name}.key`, '-out', `${name}.crt`, '-days', '2', '-subj', `/CN=Redlock Test ${name}`,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'], dir);
}

function issue(dir: string, name: string, usage: 'serverAuth' | 'clientAuth'): void {
  openssl(['req', ...EC, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name === 'server' ? '127.0.0.1' : 'redlock-client'}`], dir);
  const ext = join(dir, `${name}.ext`);
  writeFileSync(ext, `extendedKeyUsage=${usage}\n${usage === 'serverAuth' ? 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' : ''}`);
  openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.crt`, '-days', '2', '-extfile', ext], dir);
}

export function makeTestPki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'redlock-pki-'));
  makeCa(dir, 'ca');
  makeCa(dir, 'other');
  issue(dir, 'server', 'serverAuth');
  issue(dir, 'client', 'clientAuth');
  const passphrase = 'pki-pass-4711';
  openssl(['pkey', '-in', 'client.key', '-aes256', '-passout', `pass:${passphrase}`, '-out', 'client-encrypted.key'], dir);
  const at = (f: string): string => join(dir, f);
  return {
    dir,
    ca: at('ca.crt'),
    serverCert: at('server.crt'),
    serverKey: at('server.key'),
    clientCert: at('client.crt'),
    clientKey: at('client.key'),
    clientKeyEncrypted: at('client-encrypted.key'),
    passphrase,
    otherCa: at('other.crt'),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface TlsNodes {
  pki: TestPki;
  /** TLS-only, no client certificate asked. */
  oneWay: RedisServer;
  /** TLS-only, a client certificate from the PKI's CA required. */
  mutual: RedisServer;
}

/** Registers the block's hooks; the fields are set once its `before` has run. */
export function useTlsNodes(): TlsNodes {
  const fx = {} as TlsNodes;
  before(async () => {
    fx.pki = makeTestPki();
    const files = { cert: fx.pki.serverCert, key: fx.pki.serverKey, ca: fx.pki.ca };
    [fx.oneWay, fx.mutual] = await Promise.all([
      RedisServer.start({ tls: { ...files, authClients: false } }),
      RedisServer.start({ tls: { ...files, authClients: true } }),
    ]);
  });
  after(async () => {
    await Promise.all([fx.oneWay, fx.mutual].filter(Boolean).map((s) => s.dispose()));
    fx.pki?.dispose();
  });
  return fx;
}
