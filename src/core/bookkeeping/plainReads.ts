// Our bookkeeping read where no script runs (DESIGN "Reading without scripts"): the same
// replies as the read scripts in waiters.ts and events.ts, from plain read commands.
import type Redis from 'ioredis';
import { Cluster } from 'ioredis';
import { capabilitiesOf, scriptsRefused } from '../connection/capabilities';

/** Whether reads on this client go out as plain commands; probes the connection once. */
export async function withoutScripts(client: Redis | Cluster): Promise<boolean> {
  if (client instanceof Cluster) return false;
  await capabilitiesOf(client);
  return scriptsRefused(client);
}

/** A member over `maxBytes` comes back as its size, as the scripts send it. */
const bounded = (items: Buffer[], maxBytes: number): Array<Buffer | number> => items.map((m) => (m.length > maxBytes ? m.length : m));

/** READ_WAITING's reply: per set its live members (score after the node's now), -1 for another type. */
export async function readWaitingPlain(client: Redis, keys: string[], limit: number, maxBytes: number): Promise<unknown[]> {
  const caps = await capabilitiesOf(client);
  // The node's clock where TIME is granted, as the script reads it; else the client's.
  const t = caps.capabilities.time === false ? null : await client.time().catch(() => null);
  const now = t ? Number(t[0]) * 1000 + Math.floor(Number(t[1]) / 1000) : Date.now();
  const p = client.pipeline();
  for (const k of keys) p.zrangebyscoreBuffer(k, String(now), '+inf', 'LIMIT', 0, limit);
  const replies = (await p.exec()) ?? [];
  return replies.map(([err, r]) => (err || !Array.isArray(r) ? -1 : bounded(r as Buffer[], maxBytes)));
}

/** The events READ script's reply: the newest `max` entries, or -1 for another type. */
export async function readEventsPlain(client: Redis, key: string, max: number, maxBytes: number): Promise<unknown> {
  try {
    return bounded(await client.lrangeBuffer(key, 0, max - 1), maxBytes);
  } catch (e) {
    if (e instanceof Error && /WRONGTYPE/.test(e.message)) return -1;
    throw e;
  }
}
