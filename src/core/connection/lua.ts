// The one seam between the core and a server's scripting: every Lua script reaches a node
// through here, either sent by hand (callScript: EVAL on a socket's first use, EVALSHA
// after) or as an ioredis command defined once per client (defineOnce).
import { createHash } from 'node:crypto';
import type Redis from 'ioredis';
import { Cluster } from 'ioredis';

/** A Lua script sent by hand (see callScript): its text and SHA1. */
export interface RawScript {
  lua: string;
  sha: string;
}

export function rawScript(lua: string): RawScript {
  return { lua, sha: createHash('sha1').update(lua).digest('hex') };
}

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
  const evalText = (): Promise<T> => (buffers ? client.callBuffer('EVAL', script.lua, numKeys, ...args) : client.eval(script.lua, numKeys, ...args)) as Promise<T>;
  if (client instanceof Cluster) return evalText();
  const socket = client.stream as object | undefined;
  let sent = sentOn.get(script);
  if (!sent) sentOn.set(script, (sent = new WeakSet()));
  if (!socket || !sent.has(socket)) {
    if (socket) sent.add(socket);
    return evalText();
  }
  const bySha = (buffers ? client.callBuffer('EVALSHA', script.sha, numKeys, ...args) : client.evalsha(script.sha, numKeys, ...args)) as Promise<T>;
  return bySha.catch((e: unknown) => {
    if (!(e instanceof Error) || !e.message.startsWith('NOSCRIPT')) throw e;
    sent.delete(socket);
    if (!resend) throw e;
    return callScript<T>(client, script, numKeys, args, false, buffers);
  });
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
