// The one seam between the core and a server's scripting: every Lua script reaches a node
// through here, either sent by hand (callScript: EVAL on a socket's first use, EVALSHA
// after) or as an ioredis command defined once per client (defineOnce).
import { createHash } from 'node:crypto';
import type Redis from 'ioredis';
import { Cluster } from 'ioredis';
import { answeredCapabilities, capabilitiesOf, UnsupportedError, type ServerCapabilities } from './capabilities';

/** A Lua script sent by hand (see callScript): its text and SHA1. */
export interface RawScript {
  lua: string;
  sha: string;
}

export function rawScript(lua: string): RawScript {
  return { lua, sha: createHash('sha1').update(lua).digest('hex') };
}

// The script commands' names in lower case: ioredis lower-cases a command's name for each of
// its flag lookups (several per command sent), and copies one that is not already.
const EVAL = 'eval';
const EVALSHA = 'evalsha';
const EVAL_RO = 'eval_ro';
const EVALSHA_RO = 'evalsha_ro';

/** Per script, the sockets that have been sent its text (a reconnect is a new socket). */
const sentOn = new WeakMap<RawScript, WeakSet<object>>();

/**
 * EVAL on a connection's first use of the script, EVALSHA after, as ioredis' Script does,
 * without its command subclass, closure and promise per call (measurable on the hot
 * path). Never EVALSHA first: its NOSCRIPT fallback goes out later, behind commands
 * written meanwhile, and a grant landing after the undo that was meant to follow it
 * leaves a copy behind (docs/decisions.md "Scripts in order"). A NOSCRIPT all the same
 * (the node's script cache flushed under a live connection) fails this call when
 * `resend` is false, for scripts that may write a lock: the next call sends the text. A
 * Cluster routes per key: EVAL every time. `buffers`: replies as Buffers (binary tokens).
 */
export function callScript<T>(client: Redis | Cluster, script: RawScript, numKeys: number, args: ReadonlyArray<string | Buffer>, resend: boolean, buffers = false): Promise<T> {
  return send<T>(client, script, numKeys, args, resend, buffers, EVAL, EVALSHA);
}

function send<T>(client: Redis | Cluster, script: RawScript, numKeys: number, args: ReadonlyArray<string | Buffer>, resend: boolean, buffers: boolean, evalCmd: string, shaCmd: string): Promise<T> {
  const run = (cmd: string, body: string): Promise<T> => (buffers ? client.callBuffer(cmd, body, numKeys, ...args) : client.call(cmd, body, numKeys, ...args)) as Promise<T>;
  const evalText = (): Promise<T> => run(evalCmd, script.lua);
  if (client instanceof Cluster) return evalText();
  const socket = client.stream as object | undefined;
  let sent = sentOn.get(script);
  if (!sent) sentOn.set(script, (sent = new WeakSet()));
  if (!socket || !sent.has(socket)) {
    if (socket) sent.add(socket);
    return evalText();
  }
  return run(shaCmd, script.sha).catch((e: unknown) => {
    if (!(e instanceof Error) || !e.message.startsWith('NOSCRIPT')) throw e;
    sent.delete(socket);
    if (!resend) throw e;
    return send<T>(client, script, numKeys, args, false, buffers, evalCmd, shaCmd);
  });
}

/** A read script in both spellings: with its `#!lua flags=no-writes` line, and without (Redis 6.2). */
export interface ReadScript {
  flagged: RawScript;
  plain: RawScript;
}

export function readScript(lua: string): ReadScript {
  return { flagged: rawScript(lua), plain: rawScript(lua.replace(/^#!lua[^\n]*\n/, '')) };
}

/**
 * Runs a read script the way this server can: EVAL_RO/EVALSHA_RO wherever it has them (the
 * server itself then refuses any write, and a role granted only those runs it), else
 * EVAL/EVALSHA; without the shebang line where flags are not understood (Redis 6.2).
 * A server that runs no scripts at all is named (UnsupportedError): it answered. A cluster
 * routes per key through ioredis as before.
 *
 * Written at once where this socket's capabilities are known: a caller that asks for the
 * next page before decoding this one (scanNode) must have the call on the wire while it
 * decodes. Behind an await it went out only at the caller's next await, after the
 * decoding, and every page then cost the node's time and the client's one after the other.
 */
export function callReadScript<T>(client: Redis | Cluster, script: ReadScript, numKeys: number, args: ReadonlyArray<string | Buffer>, buffers = false): Promise<T> {
  if (client instanceof Cluster) return send<T>(client, script.flagged, numKeys, args, true, buffers, EVAL, EVALSHA);
  const known = answeredCapabilities(client);
  if (known === undefined) return capabilitiesOf(client).then((s) => sendRead<T>(client, s, script, numKeys, args, buffers));
  try {
    return sendRead<T>(client, known, script, numKeys, args, buffers);
  } catch (e) {
    return Promise.reject(e);
  }
}

function sendRead<T>(client: Redis, s: ServerCapabilities, script: ReadScript, numKeys: number, args: ReadonlyArray<string | Buffer>, buffers: boolean): Promise<T> {
  const c = s.capabilities;
  const text = c.scriptFlags === false ? script.plain : script.flagged;
  if (c.readOnlyScripts) return send<T>(client, text, numKeys, args, true, buffers, EVAL_RO, EVALSHA_RO);
  if (c.scripts === false) throw new UnsupportedError(c.readOnlyScripts === false ? 'run scripts (EVAL and EVAL_RO are refused)' : 'run scripts', s);
  return send<T>(client, text, numKeys, args, true, buffers, EVAL, EVALSHA);
}

/** Scripts defined together as ioredis commands: name -> text, and whether it only reads. */
export type ScriptSet = Readonly<Record<string, { lua: string; readOnly?: boolean }>>;

const definedOn = new WeakMap<ScriptSet, WeakSet<object>>();

/**
 * `client` with the commands of `set` defined, once per client and set: defineCommand
 * again would rebuild ioredis' Script objects and forget which sockets have the text.
 */
export function defineOnce<T>(client: Redis | Cluster, set: ScriptSet): T {
  let clients = definedOn.get(set);
  if (!clients) definedOn.set(set, (clients = new WeakSet()));
  if (!clients.has(client)) {
    for (const [name, def] of Object.entries(set)) client.defineCommand(name, def);
    clients.add(client);
  }
  return client as unknown as T;
}
