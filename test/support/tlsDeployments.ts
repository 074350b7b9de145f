// TLS-only deployments for one describe block, as managed services with in-transit
// encryption run them: no plain port anywhere (`port 0`), certificates from a private CA
// (tlsCerts.ts). A cluster of three masters whose bus is TLS too (`tls-cluster yes`), and
// a master with one sentinel, both on TLS ports, the sentinel reaching its master by TLS.
import { RedisServer, RedisServerOptions, startCluster } from '../../src/dev/redisServer';
import { makeTestPki, TestPki } from './tlsCerts';

function tlsOnly(pki: TestPki): NonNullable<RedisServerOptions['tls']> {
  // The cluster bus asks every peer for a client certificate: the servers present the
  // PKI's client certificate on their outgoing links.
  return { cert: pki.serverCert, key: pki.serverKey, ca: pki.ca, authClients: false, only: true, client: { cert: pki.clientCert, key: pki.clientKey } };
}

export interface TlsCluster {
  pki: TestPki;
  masters: RedisServer[];
  /** `rediss+cluster://` with every master's TLS port as a seed. */
  url: string;
}

/** Registers the block's hooks; the fields are set once its `before` has run. */
export function useTlsCluster(): TlsCluster {
  const fx = { masters: [] as RedisServer[], url: '' } as TlsCluster;
  before(async () => {
    fx.pki = makeTestPki();
    fx.masters = await startCluster(3, ['--tls-cluster', 'yes'], tlsOnly(fx.pki));
    fx.url = `rediss+cluster://${fx.masters.map((m) => `127.0.0.1:${m.port}`).join(',')}`;
  });
  after(async () => {
    await Promise.all(fx.masters.map((m) => m.dispose()));
    fx.pki?.dispose();
  });
  return fx;
}

export interface TlsSentinel {
  pki: TestPki;
  master: RedisServer;
  sentinel: RedisServer;
  /** The master's password (`requirepass`): it must never show in any output. */
  password: string;
  /** `rediss+sentinel://:password@127.0.0.1:port/mymaster`. */
  url: string;
}

/** Registers the block's hooks; the fields are set once its `before` has run. */
export function useTlsSentinel(): TlsSentinel {
  const fx = { password: 'tls-sentinel-pw-9413' } as TlsSentinel;
  before(async () => {
    fx.pki = makeTestPki();
    fx.master = await RedisServer.start({ tls: tlsOnly(fx.pki), args: ['--requirepass', fx.password] });
    // The sentinel asks for the same password (ioredis sends it to the sentinels too).
    fx.sentinel = await RedisServer.start({ sentinelOf: { name: 'mymaster', port: fx.master.port, authPass: fx.password }, tls: tlsOnly(fx.pki), args: ['--requirepass', fx.password] });
    fx.url = `rediss+sentinel://:${fx.password}@127.0.0.1:${fx.sentinel.port}/mymaster`;
  });
  after(async () => {
    await Promise.all([fx.master, fx.sentinel].filter(Boolean).map((s) => s.dispose()));
    fx.pki?.dispose();
  });
  return fx;
}
