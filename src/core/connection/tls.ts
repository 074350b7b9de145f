// TLS as a company configures it: a private CA to trust, a client certificate for
// servers that require one (mutual TLS), and a clear word when a plain redis:// URL is
// pointed at a TLS-only port. Decisions: docs/deployments.md.
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect as tlsConnect, ConnectionOptions, createSecureContext, rootCertificates, SecureContext, SecureContextOptions } from 'node:tls';
import { ReplyError, type Redis } from 'ioredis';
import { NodeConfigError } from './urls';

/** TLS settings of a node (PEM text, not paths); `NodeSetOptions.tls` applies them to every TLS node. */
export interface TlsSettings {
  /** CA certificate(s) to trust in addition to the system's, e.g. a company's private CA. */
  ca?: string | Buffer | Array<string | Buffer>;
  /** Client certificate chain, for servers started with `tls-auth-clients yes`. */
  cert?: string | Buffer;
  key?: string | Buffer;
  /** Passphrase of an encrypted `key`. Never printed. */
  passphrase?: string;
  /** false accepts any server certificate: a local test only, never production. */
  rejectUnauthorized?: boolean;
  /** Name to verify the certificate against when it differs from the URL's host. */
  servername?: string;
}

/** The same settings as file paths (CLI flags, extension settings). */
export interface TlsFiles {
  ca?: string;
  cert?: string;
  key?: string;
  passphrase?: string;
  insecure?: boolean;
}

export const PLAIN_ON_TLS = 'this port expects TLS (use rediss://)';

function readPem(what: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new NodeConfigError(`cannot read the TLS ${what} file ${path}${code ? ` (${code})` : ''}`);
  }
}

/**
 * Reads the files and checks that they make a usable TLS context (a key that matches its
 * certificate, a passphrase that opens the key) before any connection is opened.
 */
export function readTlsFiles(files: TlsFiles): TlsSettings | undefined {
  if (!files.ca && !files.cert && !files.key && !files.insecure) return undefined;
  if (Boolean(files.cert) !== Boolean(files.key)) {
    throw new NodeConfigError('a TLS client certificate needs both a certificate file and its key file');
  }
  const settings: TlsSettings = {};
  if (files.ca) settings.ca = readPem('CA', files.ca);
  if (files.cert) settings.cert = readPem('certificate', files.cert);
  if (files.key) settings.key = readPem('key', files.key);
  if (files.passphrase) settings.passphrase = files.passphrase;
  if (files.insecure) settings.rejectUnauthorized = false;
  checkTls(settings);
  return settings;
}

/** Throws a NodeConfigError naming the part that is wrong; messages never carry the passphrase. */
export function checkTls(settings: TlsSettings): void {
  try {
    contexts.set(settings, createSecureContext(contextOptions(settings)));
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    const firstLine = msg.split('\n')[0].replace(settings.passphrase ?? '\u0000', '***');
    const hint = settings.key !== undefined && !keyOpens(settings.key, settings.passphrase)
      ? ENCRYPTED_PEM.test(settings.key.toString())
        ? 'the TLS key cannot be opened (wrong or missing passphrase?)'
        : `the TLS key cannot be read: ${firstLine}`
      : /key values mismatch/i.test(msg)
        ? 'the TLS key does not belong to the client certificate'
        : `unusable TLS settings: ${firstLine}`;
    throw new NodeConfigError(hint);
  }
}

/** An encrypted PEM key: PKCS#8 ("BEGIN ENCRYPTED PRIVATE KEY") or the legacy "Proc-Type: 4,ENCRYPTED". */
const ENCRYPTED_PEM = /-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type:\s*4,ENCRYPTED/;

/**
 * Whether the key opens on its own with this passphrase. Asked apart because OpenSSL 3
 * words a wrong passphrase in more than one way: the key decrypts to garbage now and then
 * ("DECODER routines::unsupported") instead of failing its padding ("bad decrypt").
 */
function keyOpens(key: NonNullable<TlsSettings['key']>, passphrase: string | undefined): boolean {
  try {
    createPrivateKey({ key, passphrase: passphrase ?? '' });
    return true;
  } catch {
    return false;
  }
}

/** The PEM parts as tls.createSecureContext takes them. A CA is trusted in addition to the system store, not instead of it. */
function contextOptions(settings: TlsSettings): SecureContextOptions {
  const o: SecureContextOptions = {};
  if (settings.ca !== undefined) o.ca = [...rootCertificates, ...(Array.isArray(settings.ca) ? settings.ca : [settings.ca])];
  if (settings.cert !== undefined) o.cert = settings.cert;
  if (settings.key !== undefined) o.key = settings.key;
  if (settings.passphrase !== undefined) o.passphrase = settings.passphrase;
  return o;
}

// Parsing the system CAs plus a private one takes tens of ms: once per settings object,
// not once per connection and reconnection.
const contexts = new WeakMap<TlsSettings, SecureContext>();

/** ioredis' `tls` option: one shared secure context, plus the checks of the handshake. */
export function connectionOptions(settings: TlsSettings | undefined): ConnectionOptions {
  const o: ConnectionOptions = {};
  if (!settings) return o;
  let context = contexts.get(settings);
  if (!context) contexts.set(settings, (context = createSecureContext(contextOptions(settings))));
  o.secureContext = context;
  if (settings.rejectUnauthorized === false) o.rejectUnauthorized = false;
  if (settings.servername !== undefined) o.servername = settings.servername;
  return o;
}

/**
 * Does a TLS server listen at host:port? A TLS handshake that completes, or that the
 * server ends with a TLS alert (e.g. a client certificate required), says yes; a plain
 * Redis answers the handshake with text, which is no.
 */
export function probeTls(host: string, port: number, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (v: boolean): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(v);
    };
    const socket = tlsConnect({ host, port, rejectUnauthorized: false, servername: /^[\d.:]+$/.test(host) ? undefined : host });
    const timer = setTimeout(() => finish(false), ms);
    socket.once('secureConnect', () => finish(true));
    socket.once('error', (e: NodeJS.ErrnoException) => finish(/alert|SSLV3_ALERT|TLSV1_ALERT|TLSV13_ALERT/i.test(`${e.code ?? ''} ${e.message}`)));
  });
}

interface PlainWatch {
  /** Settles once the connection's first exchange is understood (see watchPlainOnTls). */
  settled?: Promise<void>;
  probe?: Promise<void>;
  expectsTls: boolean;
}

const plainWatches = new WeakMap<object, PlainWatch>();

const RESET = /ECONNRESET|EPIPE|socket hang up|Connection is closed/i;

/**
 * A TLS-only port accepts a plain connection and then resets it: the only word the user
 * gets is ECONNRESET, and only after the first command already failed. So the first
 * time the connection is up, one PING finds out whether the server speaks; if the
 * connection is reset instead, one TLS handshake probe tells whether the port expects
 * TLS. The node's first call waits for that (within its bounded wait for connections).
 */
export function watchPlainOnTls(node: object, client: Redis, host: string, port: number, probeMs: number): void {
  const watch: PlainWatch = { expectsTls: false };
  plainWatches.set(node, watch);
  const startProbe = (): Promise<void> => {
    watch.probe ??= probeTls(host, port, probeMs).then((tls) => {
      watch.expectsTls = tls;
    });
    return watch.probe;
  };
  client.on('error', (e: Error) => {
    if (!watch.expectsTls && RESET.test(e.message) && !watch.settled) void startProbe();
  });
  client.once('ready', () => {
    watch.settled = client.ping().then(
      () => undefined,
      // A reply (even an error such as NOAUTH) proves a plain Redis; anything else is
      // a connection that ended without a word.
      (e: unknown) => (e instanceof ReplyError ? undefined : startProbe()),
    );
  });
}

/** Resolves once `node`'s first exchange (and any probe) is understood; at once when none runs. */
export function plainOnTlsSettled(node: object): Promise<void> {
  const watch = plainWatches.get(node);
  return watch?.settled ?? watch?.probe ?? Promise.resolve();
}

/** The reason to show for a connection failure of `node`, when a probe found a TLS port. */
export function plainOnTlsReason(node: object | undefined): string | undefined {
  return node && plainWatches.get(node)?.expectsTls ? PLAIN_ON_TLS : undefined;
}
