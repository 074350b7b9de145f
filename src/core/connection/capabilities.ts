// What one server can do for us, probed once per connection (docs/architecture.md
// "Their servers"): which server and version it is, and whether it runs scripts, read-only
// scripts, shebang flags, PEXPIRETIME, MEMORY USAGE, TIME, CONFIG and a native
// compare-and-delete. Managed services rename commands away and security teams hand out
// roles without them, so nothing here trusts COMMAND, ACL or a single INFO section: each
// capability is asked of the command itself, on a key nobody uses, and read from the
// words of its error. Nothing probed writes.
import type Redis from 'ioredis';
import { Cluster } from 'ioredis';
import { withDeadline, DeadlineError } from './deadline';
import type { NodeCapabilities } from '../vocabulary/types';

/** What a node can do, probed once per connection (vocabulary/types.ts NodeCapabilities). */
export type Capabilities = NodeCapabilities;

export interface ServerCapabilities {
  /** `redis`, `valkey`, or INFO's server_name; null when INFO would not say. */
  server: string | null;
  /** The server's own version (Valkey's valkey_version, not its compatibility redis_version). */
  version: string | null;
  capabilities: Capabilities;
  /** Which native compare-and-delete command, when `compareAndDelete`. */
  compareAndDeleteCommand: 'DELIFEQ' | 'DELEX' | null;
}

/** INFO text as field -> value (section headers and blank lines dropped). */
export function parseInfo(text: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0 && !line.startsWith('#')) m.set(line.slice(0, i), line.slice(i + 1).trim());
  }
  return m;
}

/** Server and version from INFO server fields: Valkey says server_name and valkey_version. */
export function serverOf(info: Map<string, string>): { server: string | null; version: string | null } {
  const named = info.get('server_name')?.toLowerCase();
  if (named === 'valkey' || info.has('valkey_version')) return { server: 'valkey', version: info.get('valkey_version') ?? info.get('redis_version') ?? null };
  if (named) return { server: named, version: info.get(`${named}_version`) ?? info.get('redis_version') ?? null };
  const v = info.get('redis_version');
  return { server: v === undefined ? null : 'redis', version: v ?? null };
}

function versionAtLeast(version: string | null, major: number, minor: number): boolean {
  const m = /^(\d+)\.(\d+)/.exec(version ?? '');
  if (!m) return false;
  const [a, b] = [Number(m[1]), Number(m[2])];
  return a > major || (a === major && b >= minor);
}

/**
 * The native compare-and-delete a server has, by its own version: Valkey 9 DELIFEQ, Redis
 * 8.4 DELEX ... IFEQ. Asking the command itself would be a write on a key: not from a probe.
 */
export function compareAndDeleteOf(server: string | null, version: string | null): 'DELIFEQ' | 'DELEX' | null {
  if (server === 'valkey' && versionAtLeast(version, 9, 0)) return 'DELIFEQ';
  if (server === 'redis' && versionAtLeast(version, 8, 4)) return 'DELEX';
  return null;
}

/**
 * What an error says about the command: renamed away or unknown, or denied to this user,
 * is "no" (false); anything else (a timeout, a broken connection) says nothing (null).
 */
export function missingCommand(message: string): boolean {
  return /unknown command|unknown redis command|NOPERM|no permissions|can't run this command|disabled|not allowed/i.test(message);
}

/** The key the probes ask about: never written, and reads of it find nothing. */
export const PROBE_KEY = 'redlock-inspector:capability-probe';

async function ask(p: Promise<unknown>, timeoutMs: number): Promise<boolean | null> {
  try {
    await withDeadline(p, timeoutMs);
    return true;
  } catch (e) {
    if (e instanceof DeadlineError) return null;
    return missingCommand(e instanceof Error ? e.message : String(e)) ? false : null;
  }
}

/**
 * Tests only: capabilities forced off, e.g. `scriptFlags` to run the Redis 6.2 read path on
 * a 7.0 server, which cannot rename flags away (see test/support/serverProfiles.ts).
 */
function forcedOff(): string[] {
  return (process.env.REDLOCK_INSPECTOR_TEST_CAPABILITIES_OFF ?? '').split(',').filter(Boolean);
}

/**
 * How a server takes a script declaring no-writes: run (true, flags understood), refused
 * as unknown or denied (scripts false), or rejected when compiling (scripts true, flags
 * false: Redis 6.2). Only a flagged script is sent, so even the probe is visibly read-only.
 */
async function askScript(p: Promise<unknown>, timeoutMs: number): Promise<{ runs: boolean | null; flags: boolean | null }> {
  try {
    await withDeadline(p, timeoutMs);
    return { runs: true, flags: true };
  } catch (e) {
    if (e instanceof DeadlineError) return { runs: null, flags: null };
    const message = e instanceof Error ? e.message : String(e);
    if (missingCommand(message)) return { runs: false, flags: null };
    return /compil|flag|shebang/i.test(message) ? { runs: true, flags: false } : { runs: null, flags: null };
  }
}

/** Probes one client; every probe is a read (or a no-writes script that only returns) on PROBE_KEY. */
export async function probeCapabilities(client: Redis, timeoutMs: number): Promise<ServerCapabilities> {
  const flagged = '#!lua flags=no-writes\nreturn 1';
  const [info, rw, ro, pexpiretime, memoryUsage, time, config] = await Promise.all([
    withDeadline(client.info('server'), timeoutMs).catch(() => undefined),
    askScript(client.eval(flagged, 0), timeoutMs),
    askScript(client.call('EVAL_RO', flagged, '0'), timeoutMs),
    ask(client.call('PEXPIRETIME', PROBE_KEY), timeoutMs),
    ask(client.call('MEMORY', 'USAGE', PROBE_KEY), timeoutMs),
    // TIME answers or says why not; any other failure means the node did not answer, and
    // the probe fails (nothing cached) instead of recording "unknown" for everything.
    withDeadline(client.time(), timeoutMs).then(() => true, (e: unknown) => {
      if (!(e instanceof DeadlineError) && missingCommand(e instanceof Error ? e.message : String(e))) return false;
      throw e;
    }),
    ask(client.call('CONFIG', 'GET', 'maxmemory'), timeoutMs),
  ]);
  const scripts = rw.runs;
  const readOnlyScripts = ro.runs;
  const scriptFlags = rw.flags ?? ro.flags ?? (scripts === false && readOnlyScripts === false ? false : null);
  const { server, version } = info === undefined ? { server: null, version: null } : serverOf(parseInfo(info));
  const cad = compareAndDeleteOf(server, version);
  const capabilities: Capabilities = {
    scripts, readOnlyScripts, scriptFlags, pexpiretime, memoryUsage, time, config,
    compareAndDelete: server === null ? null : cad !== null,
  };
  for (const k of forcedOff()) if (k in capabilities) capabilities[k as keyof Capabilities] = false;
  return { server, version, capabilities, compareAndDeleteCommand: capabilities.compareAndDelete ? cad : null };
}

/** Per connection (socket): a reconnect may reach another server, so it is asked again. */
const probed = new WeakMap<object, Promise<ServerCapabilities>>();
const lastKnown = new WeakMap<object, ServerCapabilities>();
/** What each socket's probe found, once it answered: read without a promise on the write path. */
const answeredOn = new WeakMap<object, ServerCapabilities>();

const socketOf = (client: Redis): object => (client.stream as object | undefined) ?? client;

/** This client's capabilities, probed once per connection; a failed probe is asked again next time. */
export function capabilitiesOf(client: Redis | Cluster, timeoutMs = 2000): Promise<ServerCapabilities> {
  if (client instanceof Cluster) return Promise.resolve(CLUSTER_ASSUMED);
  const socket = socketOf(client);
  let p = probed.get(socket);
  if (!p) {
    p = probeCapabilities(client, timeoutMs).then((c) => {
      lastKnown.set(client, c);
      answeredOn.set(socket, c);
      return c;
    });
    probed.set(socket, p);
    p.catch(() => probed.delete(socket));
  }
  return p;
}

/** This connection's capabilities if its probe has answered, without asking (undefined: not yet). */
export function answeredCapabilities(client: Redis | Cluster): ServerCapabilities | undefined {
  return client instanceof Cluster ? CLUSTER_ASSUMED : answeredOn.get(socketOf(client));
}

/** The last capabilities probed on this client, without asking (null: never probed). */
export function knownCapabilities(client: Redis | Cluster): ServerCapabilities | null {
  return lastKnown.get(client) ?? null;
}

/** A cluster's masters are read as before: scripts with flags, per key. */
const CLUSTER_ASSUMED: ServerCapabilities = {
  server: null, version: null, compareAndDeleteCommand: null,
  capabilities: { scripts: true, readOnlyScripts: false, scriptFlags: true, pexpiretime: true, memoryUsage: true, time: true, config: null, compareAndDelete: null },
};

/** `Redis 6.2.14`, `Valkey 8.0.1`, or `unknown server`: how a line names the server. */
export function serverLabel(c: Pick<ServerCapabilities, 'server' | 'version'>): string {
  if (c.server === null) return 'unknown server';
  const name = c.server === 'redis' ? 'Redis' : c.server === 'valkey' ? 'Valkey' : c.server;
  return c.version ? `${name} ${c.version}` : name;
}

/** A read or write this server cannot serve as configured: the node answered, and says why. */
export class UnsupportedError extends Error {
  constructor(readonly what: string, readonly serverCaps: Pick<ServerCapabilities, 'server' | 'version'>) {
    super(`this server (${serverLabel(serverCaps)}) cannot ${what}`);
    this.name = 'UnsupportedError';
  }
}

/**
 * The one line for a failure that means "this server cannot do it as configured", or null:
 * our own UnsupportedError, or a script the server would not compile or run for a command
 * missing inside it (renamed away: "Unknown Redis command called from script"), named with
 * the server's label as far as it is known.
 */
export function unsupportedLine(err: unknown, client?: Redis | Cluster): string | null {
  if (err instanceof UnsupportedError) return err.message;
  const message = err instanceof Error ? err.message : '';
  const known = client ? knownCapabilities(client) : null;
  const label = serverLabel(known ?? { server: null, version: null });
  if (/Unknown Redis command called from (Lua )?script/i.test(message)) return `this server (${label}) cannot run the read scripts: a command they need is renamed away or unknown`;
  if (/Error compiling script|Unexpected flag|Invalid flag/i.test(message)) return `this server (${label}) cannot run the read scripts: it rejects their shebang flags`;
  return null;
}

/**
 * Whether this connection's probe found no script it may run (EVAL and EVAL_RO refused):
 * reads then go out as plain commands (DESIGN "Reading without scripts"). False until probed.
 */
export function scriptsRefused(client: Redis | Cluster): boolean {
  const c = client instanceof Cluster ? undefined : answeredOn.get(socketOf(client))?.capabilities ?? lastKnown.get(client)?.capabilities;
  return c !== undefined && c.readOnlyScripts !== true && c.scripts === false;
}
