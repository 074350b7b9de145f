// `redlock.nodes` entries to core node inputs. Passwords come from SecretStorage and are
// put into the URL handed to the core only: node ids never carry them.
import { homedir } from 'node:os';
import { parseNodeUrl, type NodeSpec } from '../../core';

/** TLS files of one node (paths); the key's passphrase lives in SecretStorage. */
export interface NodeTlsSetting {
  ca?: string;
  cert?: string;
  key?: string;
}

export type NodeSetting = string | { name?: string; url: string; tls?: NodeTlsSetting };

export interface ConfiguredNode {
  id: string;
  url: string;
  name?: string;
  spec: NodeSpec;
  tls?: NodeTlsSetting;
}

function tlsSetting(raw: unknown): NodeTlsSetting | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const out: NodeTlsSetting = {};
  for (const k of ['ca', 'cert', 'key'] as const) {
    const v = (raw as Record<string, unknown>)[k];
    if (typeof v === 'string' && v.trim() !== '') out[k] = v.trim();
  }
  return Object.keys(out).length ? out : undefined;
}

/** Setting paths as files to read: `~/` is the user's home directory. */
export function tlsPaths(t: NodeTlsSetting): NodeTlsSetting {
  const expand = (p: string | undefined): string | undefined => (p && /^~[\\/]/.test(p) ? homedir() + p.slice(1) : p);
  return { ca: expand(t.ca), cert: expand(t.cert), key: expand(t.key) };
}

export function normalizeNodeSetting(raw: unknown): { url: string; name?: string; tls?: NodeTlsSetting } | undefined {
  if (typeof raw === 'string') return { url: raw };
  if (raw && typeof raw === 'object' && typeof (raw as { url?: unknown }).url === 'string') {
    const name = (raw as { name?: unknown }).name;
    const tls = tlsSetting((raw as { tls?: unknown }).tls);
    return { url: (raw as { url: string }).url, name: typeof name === 'string' && name !== '' ? name : undefined, ...(tls ? { tls } : {}) };
  }
  return undefined;
}

/** Parses every entry; throws the first configuration error (its message is redacted by the core). */
export function parseNodeSettings(raw: readonly unknown[]): ConfiguredNode[] {
  const out: ConfiguredNode[] = [];
  const ids = new Set<string>();
  raw.forEach((r, i) => {
    const n = normalizeNodeSetting(r);
    if (!n) throw new Error(`redlock.nodes[${i}]: expected a URL string or { "name", "url" }`);
    const spec = parseNodeUrl(n.url, n.name);
    if (ids.has(spec.id)) throw new Error(`redlock.nodes[${i}]: node "${spec.id}" is configured twice`);
    if (n.tls && !spec.tls) throw new Error(`redlock.nodes[${i}]: "tls" settings need a TLS URL (rediss://, rediss+sentinel:// or rediss+cluster://)`);
    if (n.tls && Boolean(n.tls.cert) !== Boolean(n.tls.key)) throw new Error(`redlock.nodes[${i}]: "tls.cert" and "tls.key" go together (a client certificate and its key)`);
    ids.add(spec.id);
    out.push({ id: spec.id, url: n.url, name: n.name, spec, ...(n.tls ? { tls: n.tls } : {}) });
  });
  return out;
}

/** The URL with `password` as its credential, unless the URL already carries one. */
export function withPassword(url: string, password: string | undefined): string {
  if (!password) return url;
  // Userinfo runs to the last '@', as the core parses it (a password may hold '@' or '/').
  const m = /^([a-z][a-z0-9+.-]*:\/\/)(?:(.*)@)?([^@]*)$/is.exec(url.trim());
  if (!m) return url;
  const [, scheme, userinfo, rest] = m;
  const enc = encodeURIComponent(password);
  if (userinfo === undefined) return `${scheme}:${enc}@${rest}`;
  const colon = userinfo.indexOf(':');
  // The core reads `user@` without a colon as a password: keep what the user wrote.
  if (colon < 0) return url;
  if (userinfo.slice(colon + 1) !== '') return url;
  return `${scheme}${userinfo.slice(0, colon)}:${enc}@${rest}`;
}

/** Splits a password out of a URL so the URL can go into settings and the password into SecretStorage. */
export function splitPassword(url: string): { url: string; password?: string } {
  // Userinfo runs to the last '@', as the core parses it (a password may hold '@' or '/').
  const m = /^([a-z][a-z0-9+.-]*:\/\/)(.*)@([^@]*)$/is.exec(url.trim());
  if (!m) return { url: url.trim() };
  const [, scheme, userinfo, rest] = m;
  const colon = userinfo.indexOf(':');
  const user = colon < 0 ? '' : userinfo.slice(0, colon);
  const pass = colon < 0 ? userinfo : userinfo.slice(colon + 1);
  let password: string | undefined;
  try {
    password = pass === '' ? undefined : decodeURIComponent(pass);
  } catch {
    password = pass;
  }
  return { url: user ? `${scheme}${user}:@${rest}` : `${scheme}${rest}`, password };
}
