// One read-only script per SCAN batch: TYPE, PTTL and a bounded value for every key,
// so a batch costs one round trip and the value reads never leave their bounds.
import type Redis from 'ioredis';
import type { Cluster } from 'ioredis';
import type { RawValue } from './formats';

/** Largest string value read; longer ones are reported by size only. */
export const MAX_VALUE_BYTES = 512;
/** Largest hash or zset read, in fields or members. */
export const MAX_ITEMS = 64;

// Per key three slots: type, pttl, payload. A payload that is an integer means "not read":
// >= 0 is the size of a value over the bound, -1 a type we do not read.
const INSPECT = `#!lua flags=no-writes
local maxBytes = tonumber(ARGV[1])
local maxItems = tonumber(ARGV[2])
local out = {}
for i = 1, #KEYS do
  local k = KEYS[i]
  local t = redis.call('TYPE', k)['ok']
  local v = -1
  if t == 'string' then
    local n = redis.call('STRLEN', k)
    if n > maxBytes then v = n else v = redis.call('GET', k) end
  elseif t == 'hash' then
    local n = redis.call('HLEN', k)
    if n > maxItems then v = n else
      local fields = redis.call('HKEYS', k)
      v = {}
      for j = 1, #fields do
        local f = fields[j]
        if #f > maxBytes or redis.call('HSTRLEN', k, f) > maxBytes then v = n break end
        v[#v + 1] = f
        v[#v + 1] = redis.call('HGET', k, f)
      end
    end
  elseif t == 'zset' then
    local n = redis.call('ZCARD', k)
    if n > maxItems then v = n else
      v = redis.call('ZRANGE', k, 0, -1)
      for j = 1, #v do
        if #v[j] > maxBytes then v = n break end
      end
    end
  end
  out[#out + 1] = t
  out[#out + 1] = redis.call('PTTL', k)
  out[#out + 1] = v
end
return out`;

export interface KeyRead {
  type: string;
  pttlMs: number;
  raw: RawValue;
}

interface InspectCommand {
  rliInspectBuffer(numKeys: number, ...args: Array<Buffer | string>): Promise<unknown[]>;
}

const defined = new WeakSet<object>();

function inspectCommand(client: Redis | Cluster): InspectCommand {
  if (!defined.has(client)) {
    client.defineCommand('rliInspect', { lua: INSPECT, readOnly: true });
    defined.add(client);
  }
  return client as unknown as InspectCommand;
}

function decodeRaw(type: string, payload: unknown): RawValue {
  if (typeof payload === 'number') {
    return payload >= 0 ? { type, tooLarge: true, size: payload } : { type };
  }
  if (type === 'string') return { type, value: payload as Buffer };
  if (type === 'hash') {
    const flat = payload as Buffer[];
    const entries: Array<[Buffer, Buffer]> = [];
    for (let i = 0; i + 1 < flat.length; i += 2) entries.push([flat[i], flat[i + 1]]);
    return { type, entries };
  }
  if (type === 'zset') return { type, members: payload as Buffer[] };
  return { type: 'none' };
}

/** Reads a batch of keys on one client; results in key order. */
export async function readKeys(client: Redis | Cluster, keys: Buffer[]): Promise<KeyRead[]> {
  if (keys.length === 0) return [];
  const flat = await inspectCommand(client).rliInspectBuffer(keys.length, ...keys, String(MAX_VALUE_BYTES), String(MAX_ITEMS));
  const reads: KeyRead[] = new Array(keys.length);
  for (let i = 0, j = 0; i < keys.length; i++, j += 3) {
    const type = String(flat[j]);
    reads[i] = { type, pttlMs: Number(flat[j + 1]), raw: type === 'none' ? { type: 'none' } : decodeRaw(type, flat[j + 2]) };
  }
  return reads;
}
