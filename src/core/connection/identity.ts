// One server, one vote. Two configured entries that reach the same Redis server must not
// count twice toward a quorum, however they are spelled. Two stages (docs/decisions.md
// "Node identity"): aliases the configuration itself shows (the same host:port once
// spellings are normalised) are refused before any connection; aliases only the servers
// can tell (the same INFO run_id) are found at connect and refused at the first call.
import { NodeConfigError } from './urls';

/**
 * The canonical spelling of a host: `localhost` and 0.0.0.0 reach the IPv4 loopback, IPv4
 * shorthand (`127.1`, `2130706433`, `0x7f.1`) is what inet_aton makes of it, IPv6 is
 * compressed, names are lower case.
 */
export function normaliseHost(host: string): string {
  const h = host.trim().toLowerCase().replace(/\.$/, '');
  if (h === 'localhost' || h === '0.0.0.0' || h === '') return '127.0.0.1';
  try {
    // The WHATWG URL parser applies inet_aton's rules to IPv4-looking names and
    // compresses IPv6: exactly the normalisation a resolver would do.
    const parsed = new URL(h.includes(':') ? `http://[${h}]/` : `http://${h}/`).hostname;
    return parsed.startsWith('[') ? parsed.slice(1, -1) : parsed;
  } catch {
    return h;
  }
}

/** What a configured entry reaches, as far as the configuration can tell. */
export interface Reach {
  /** The entry's node id (never credentials). */
  id: string;
  /** The canonical address; undefined when it cannot be told (a cluster, a Unix socket). */
  server: string | undefined;
}

export function hostPortKey(host: string, port: number): string {
  return `${normaliseHost(host)}|${port}`;
}

/** Throws when two entries name the same server, whatever the db or the name. */
export function checkConfiguredAliases(entries: readonly Reach[]): void {
  const seen = new Map<string, string>();
  for (const e of entries) {
    if (e.server === undefined) continue;
    const first = seen.get(e.server);
    if (first !== undefined) throw aliasError(first, e.id, 'the same host and port');
    seen.set(e.server, e.id);
  }
}

export function aliasError(a: string, b: string, how: string): NodeConfigError {
  return new NodeConfigError(`nodes ${a} and ${b} reach the same Redis server (${how}): one server is one vote; configure each server once`);
}

/** `run_id` from an INFO server reply. */
export function runIdOf(info: string): string | null {
  const m = /(?:^|\r?\n)run_id:([0-9a-f]+)/.exec(info);
  return m ? m[1] : null;
}
