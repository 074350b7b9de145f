// A rediss+cluster:// or rediss+sentinel:// whose servers refuse the TLS handshake (an
// unknown CA, a name the certificate does not carry, a client certificate missing) fails in
// ioredis with nothing but "Failed to refresh slots cache." or "All sentinels are
// unreachable ... Connection is closed.": the slot refresher and the sentinel connector
// swallow the connection's own error. One handshake per seed or sentinel, with the
// node's own TLS options, finds the words the user needs (docs/deployments.md, "TLS").
import { isIP } from 'node:net';
import { connect, ConnectionOptions } from 'node:tls';
import type { EventEmitter } from 'node:events';
import { formatHostPort, HostPort } from './urls';

/** A TCP connection that never got as far as a handshake: said elsewhere, not a TLS problem. */
const NO_CONNECTION = /ECONNREFUSED|EHOSTUNREACH|ENETUNREACH|ETIMEDOUT|ENOTFOUND|EAI_AGAIN/;

interface Watch {
  refusal?: string;
  probe?: Promise<void>;
}

const watches = new WeakMap<object, Watch>();

/**
 * Why a TLS handshake with `at` fails with `options`; undefined when it succeeds, or no
 * TCP connection or answer came within `ms` (a plain Redis never answers a handshake).
 */
function handshakeFailure(at: HostPort, options: ConnectionOptions, ms: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ ...options, host: at.host, port: at.port, servername: options.servername ?? (isIP(at.host) ? undefined : at.host) });
    const finish = (why: string | undefined): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(why);
    };
    const timer = setTimeout(() => finish(undefined), ms);
    socket.once('secureConnect', () => finish(undefined));
    socket.once('error', (e: NodeJS.ErrnoException) => {
      const text = `${e.code ?? ''} ${e.message}`;
      finish(NO_CONNECTION.test(text) ? undefined : `TLS handshake refused: ${e.message.split('\n')[0]}`);
    });
  });
}

/**
 * When `client` reports a failure matching `trigger` (every seed or sentinel failed),
 * probes the handshakes of `endpoints` (one round at a time) and remembers the first
 * refusal, until the client is ready again.
 */
export function watchTlsRefusals(client: EventEmitter & { status: string }, endpoints: readonly HostPort[], options: ConnectionOptions, ms: number, trigger: RegExp): void {
  const watch: Watch = {};
  watches.set(client, watch);
  client.on('ready', () => {
    watch.refusal = undefined;
  });
  client.on('error', (e: Error) => {
    if (watch.probe || watch.refusal !== undefined || !trigger.test(e?.message ?? '')) return;
    const round = endpoints.map((at) => handshakeFailure(at, options, ms).then((why) => (why ? `${formatHostPort(at)}: ${why}` : undefined)));
    watch.probe = Promise.all(round).then((found) => {
      watch.probe = undefined;
      if (client.status !== 'ready') watch.refusal = found.find((f) => f !== undefined);
    });
  });
}

/** The TLS refusal found for `client`'s seeds or sentinels, if any. */
export function tlsRefusal(client: object | undefined): string | undefined {
  return client ? watches.get(client)?.refusal : undefined;
}

/** Resolves once a probe under way for `client` has its answer; at once when none runs. */
export function tlsRefusalSettled(client: object): Promise<void> {
  return watches.get(client)?.probe ?? Promise.resolve();
}
