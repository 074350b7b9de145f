// Node URLs (docs/architecture.md): parsing, node ids and redaction. Credentials never
// reach an id, an error message or a log line.

export interface HostPort {
  host: string;
  port: number;
}

interface Credentials {
  username?: string;
  password?: string;
  tls: boolean;
}

export type NodeSpec =
  | ({ kind: 'standalone'; id: string; host: string; port: number; db: number } & Credentials)
  | ({ kind: 'sentinel'; id: string; sentinels: HostPort[]; masterName: string; db: number } & Credentials)
  | ({ kind: 'cluster'; id: string; seeds: HostPort[] } & Credentials);

export class NodeConfigError extends Error {
  override name = 'NodeConfigError';
}

const SCHEME_FORM = /^([a-z][a-z0-9+.-]*):\/\/([\s\S]*)$/i;
const SCHEME_PREFIX = /^[a-z][a-z0-9+.-]*:\/\//i;
// The `rediss` forms are the same deployments over TLS (docs/deployments.md, "TLS").
const SCHEMES = ['redis', 'rediss', 'redis+sentinel', 'rediss+sentinel', 'redis+cluster', 'rediss+cluster'];

/**
 * The URL with its userinfo replaced, for any message about it. Redacts before parsing:
 * whatever stands before the last `@` (after a `scheme://`, if any) is secret, whatever
 * the shape: an unescaped `@` or `/` in a password, a missing or extra slash, no scheme.
 * A username before the first `:` stays visible, as it helps find the entry.
 */
export function redactUrl(url: string): string {
  const at = url.lastIndexOf('@');
  if (at < 0) return url;
  const prefix = SCHEME_PREFIX.exec(url)?.[0] ?? '';
  const start = at < prefix.length ? 0 : prefix.length;
  const userinfo = url.slice(start, at);
  const colon = userinfo.indexOf(':');
  const user = colon < 0 ? '' : userinfo.slice(0, colon);
  // A "user" that itself looks like part of a URL (a scheme, a slash) is shown as nothing.
  const shownUser = /^[A-Za-z0-9._~%!$&'()*+;=-]*$/.test(user) ? user : '';
  return `${url.slice(0, start)}${colon < 0 ? '' : `${shownUser}:`}***@${url.slice(at + 1)}`;
}

export function formatHostPort({ host, port }: HostPort): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

function parseHostPort(text: string, defaultPort: number, shown: string): HostPort {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+))(?::(\d+))?$/.exec(text.trim());
  if (!m) throw new NodeConfigError(`${shown}: invalid host "${text}"`);
  const port = m[3] === undefined ? defaultPort : Number(m[3]);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new NodeConfigError(`${shown}: invalid port "${m[3]}" (1-65535)`);
  }
  return { host: m[1] ?? m[2], port };
}

function decode(part: string, shown: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new NodeConfigError(`${shown}: invalid percent-encoding in credentials`);
  }
}

function parseDb(text: string | undefined, shown: string): number {
  if (text === undefined || text === '') return 0;
  if (!/^\d{1,5}$/.test(text)) throw new NodeConfigError(`${shown}: invalid database "${text}" (a number)`);
  return Number(text);
}

/**
 * Parses one node URL. `name` (from `{ name, url }` settings) replaces the derived id;
 * `defaultPassword` (e.g. REDLOCK_PASSWORD) applies when the URL carries none.
 */
export function parseNodeUrl(url: string, name?: string, defaultPassword?: string): NodeSpec {
  const shown = redactUrl(url);
  const m = SCHEME_FORM.exec(url.trim());
  const notUrl = (): NodeConfigError => new NodeConfigError(`${shown}: not a node URL (expected redis://host:port, rediss://, redis+sentinel://, rediss+sentinel://, redis+cluster:// or rediss+cluster://)`);
  if (!m) throw notUrl();
  const given = m[1].toLowerCase();
  if (!SCHEMES.includes(given)) {
    throw new NodeConfigError(`${shown}: unknown scheme "${m[1]}:" (use redis, rediss, redis+sentinel, rediss+sentinel, redis+cluster or rediss+cluster)`);
  }
  const tls = given.startsWith('rediss');
  // The deployment shape, whether over TLS or not.
  const scheme = tls ? `redis${given.slice('rediss'.length)}` : given;
  // The host starts after the last '@': a password may hold '@', '/' or ':' unescaped.
  let rest = m[2];
  const at = rest.lastIndexOf('@');
  const userinfo = at < 0 ? undefined : rest.slice(0, at);
  if (userinfo !== undefined) {
    rest = rest.slice(at + 1);
    // redis:///user:pw@host: a path where the host should be; never guess.
    if (userinfo.startsWith('/')) throw notUrl();
  }
  rest = rest.replace(/[?#][\s\S]*$/, '');
  const slash = rest.indexOf('/');
  const hostsText = slash < 0 ? rest : rest.slice(0, slash);
  const path = slash < 0 ? undefined : rest.slice(slash + 1);
  const creds: Credentials = { tls };
  if (userinfo !== undefined) {
    const colon = userinfo.indexOf(':');
    const user = colon < 0 ? '' : decode(userinfo.slice(0, colon), shown);
    const pass = decode(colon < 0 ? userinfo : userinfo.slice(colon + 1), shown);
    if (user) creds.username = user;
    if (pass) creds.password = pass;
  }
  if (creds.password === undefined && defaultPassword) creds.password = defaultPassword;
  if (!hostsText) throw new NodeConfigError(`${shown}: missing host`);

  if (scheme === 'redis') {
    if (hostsText.includes(',')) throw new NodeConfigError(`${shown}: several hosts need redis+sentinel:// or redis+cluster:// (rediss+sentinel://, rediss+cluster:// over TLS)`);
    const hp = parseHostPort(hostsText, 6379, shown);
    const db = parseDb(path, shown);
    const id = name ?? formatHostPort(hp) + (db ? `/${db}` : '');
    return { kind: 'standalone', id, ...hp, db, ...creds };
  }
  const hosts = hostsText.split(',').map((h) => parseHostPort(h, scheme === 'redis+sentinel' ? 26379 : 6379, shown));
  if (scheme === 'redis+sentinel') {
    const [masterName, dbText, ...rest] = (path ?? '').split('/');
    if (!masterName) throw new NodeConfigError(`${shown}: missing master name (${given}://host:port/masterName)`);
    if (rest.length) throw new NodeConfigError(`${shown}: unexpected path after the database`);
    const db = parseDb(dbText, shown);
    const master = decode(masterName, shown);
    const id = name ?? `${master}@${hosts.map(formatHostPort).join(',')}` + (db ? `/${db}` : '');
    return { kind: 'sentinel', id, sentinels: hosts, masterName: master, db, ...creds };
  }
  if (path) throw new NodeConfigError(`${shown}: a cluster URL takes no path or database`);
  return { kind: 'cluster', id: name ?? hosts.map(formatHostPort).join(','), seeds: hosts, ...creds };
}
