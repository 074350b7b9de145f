// The read scripts' Lua text and the bounds they read within. Every one reads only:
// SCAN, EXISTS, TYPE, PTTL, PEXPIRETIME, STRLEN, GETRANGE, HLEN, HGETALL, ZCARD, ZRANGE,
// MEMORY USAGE, OBJECT ENCODING and TIME.
import { INTERNAL_PREFIX } from '../bookkeeping/internalKeys';

/** Largest string value read; longer ones are reported by size only. */
export const MAX_VALUE_BYTES = 512;
/** Largest hash or zset read, in fields or members. */
export const MAX_ITEMS = 64;
/** Largest hash or zset read, in bytes (MEMORY USAGE ... SAMPLES 0), checked before any member is copied. */
export const MAX_SHAPE_BYTES = 64 * 1024;
/**
 * What one script call may read before it hands back a continuation: values created in
 * Lua and bytes copied. Keeps every call of the inspector far below a millisecond-scale
 * stall of the node, however fat the keys of a page are (docs/decisions.md "Bounded reads").
 */
export const CALL_ITEMS = 1024;
export const CALL_BYTES = 128 * 1024;
/**
 * A call's time on the node (ARGV[11] of SCAN_PAGE, ARGV[6] of INSPECT), checked every
 * CLOCK_EVERY keys: past it the call hands back a continuation. The budgets above keep a
 * page call near 3 ms on a node that has a core to itself; a node sharing its core with
 * other work took 11-17 ms for the same call (SLOWLOG), over the 10 ms no command of ours
 * may take. 2 ms, not 4: a call runs on for some ms past its clock check when the node
 * is descheduled or collects, and at 4 ms that tail crossed 10 ms on a quiet machine
 * (docs/decisions.md "Bounded reads"); the snapshot's time did not move.
 */
export const CALL_MICROS = 2000;
export const CLOCK_EVERY = 64;

/** A call's clock: `micros()` (nil where TIME is refused), and `started`, when the call began. */
const CALL_CLOCK = `
local function micros()
  local t = redis.pcall('TIME')
  if t.err then return nil end
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local started = micros()`;

/** Lua: true once `n` keys were read (at least one) and the call has run past `limit` microseconds. */
const pastCallTime = (n: string, limit: string): string =>
  `(started and ${n} > 0 and ${n} % ${CLOCK_EVERY} == 0 and (micros() or started) - started > ${limit})`;
/** A fence counter is at most 15 digits: its first 16 bytes tell whether a value is one. */
export const FENCE_BYTES = 16;

// Reads one key: type, pttl, payload, cost. A payload that is an integer means "not read":
// >= 0 is the size of a value over its bound (bytes, or items), -1 a type we do not read,
// -2 a hash or zset whose size cannot be known without MEMORY and is not compactly encoded. The cost (values
// created, bytes copied) feeds the call's budget.
export const READ_KEY = `
local function readKey(k, maxBytes, maxItems, maxShape, maxBytesArg, knownPttl, knownRange)
  -- knownPttl, knownRange: what the caller already read of this key (PTTL, the bounded
  -- GETRANGE's reply), so no command runs twice.
  local p = knownPttl or redis.call('PTTL', k)
  local t = 'none'
  local v = -1
  local items, bytes = 1, 0
  if p ~= -2 then
    -- Most keys under a lock pattern are strings: one bounded GETRANGE answers the type and
    -- the value, and never copies more than maxBytes + 1 bytes of a huge one.
    -- maxBytesArg is maxBytes as the caller's ARGV string: a Lua number argument is
    -- formatted anew on every call (a tenth of a page's time on the node).
    local s = knownRange
    if s == nil then s = redis.pcall('GETRANGE', k, '0', maxBytesArg) end
    if type(s) == 'string' then
      t = 'string'
      bytes = #s
      if #s > maxBytes then v = redis.call('STRLEN', k) else v = s end
    else
      t = redis.call('TYPE', k)['ok']
      if t == 'hash' or t == 'zset' then
        local n
        if t == 'hash' then n = redis.call('HLEN', k) else n = redis.call('ZCARD', k) end
        if n > maxItems then v = n else
          -- The exact size before a single member is copied: the default sample is fooled
          -- by one fat member among small ones, SAMPLES 0 counts them all (n <= maxItems).
          local mem = redis.pcall('MEMORY', 'USAGE', k, 'SAMPLES', '0')
          if type(mem) ~= 'number' then
            -- No MEMORY (renamed away, or not granted): a compact encoding bounds every
            -- member by the server's listpack limits (64 bytes by default), so reading n
            -- <= maxItems of them stays small; a hashtable or skiplist this small holds a
            -- fat member and is not read. With OBJECT refused too the guard is lost and
            -- the n members are read (docs/library.md "Supported servers").
            local enc = redis.pcall('OBJECT', 'ENCODING', k)
            if type(enc) == 'string' and enc ~= 'listpack' and enc ~= 'ziplist' then mem = -2 else mem = 0 end
          end
          if mem == -2 then v = -2
          elseif mem > maxShape then v = mem
          else
            bytes = mem
            if t == 'hash' then
              v = redis.call('HGETALL', k)
              items = items + #v
              for j = 1, #v do
                if #v[j] > maxBytes then v = n break end
              end
            else
              v = redis.call('ZRANGE', k, 0, -1)
              items = items + #v
              for j = 1, #v do
                if #v[j] > maxBytes then v = n break end
              end
            end
          end
        end
      end
    end
  end
  return t, p, v, items, bytes
end
`;

// Each read script ends with the node's TIME, after its last PTTL. A PTTL in a script
// runs on the live clock (Redis 7.0: a script that spins 10 ms between two PTTLs of one
// key gets two values 10 ms apart), so a stamp taken first would be earlier than the
// PTTLs of a script descheduled halfway, and their expiries would look moved (a watch
// under load reported unchanged locks as changed). Taken last, the stamp is late by at
// most the call's own time, which the read's error (from sending the call to the stamp,
// inspect.ts stampError) covers. Both read at least one key, then stop once the call's
// budget is spent.

/**
 * Returns `out` packed (cmsgpack) when the caller asked for it and the server has cmsgpack;
 * rawget, because reading a global the server lacks is an error in Redis 7's scripts.
 */
const PACKED_WHEN_ASKED = (flag: string): string => `local packer = rawget(_G, 'cmsgpack')
if ${flag} == '1' and packer then return packer.pack(out) end`;

/** Sets the stamp (out[1], out[2]) at the end of a read script: see above. */
const STAMP = `
local now = redis.pcall('TIME')
if now.err then now = {0, 0} end
out[1], out[2] = now[1], now[2]
`;

/**
 * The given keys: [sec, usec, number read, then type (1 for string), pttl, payload per key
 * read]; packed as SCAN_PAGE's reply is when ARGV[7] is '1'.
 */
export const INSPECT = `#!lua flags=no-writes
${READ_KEY}
${CALL_CLOCK}
local out = { 0, 0, 0 }
local maxBytes, maxItems, maxShape = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local budgetItems, budgetBytes = tonumber(ARGV[4]), tonumber(ARGV[5])
local callMicros = tonumber(ARGV[6])
local items, bytes, n = 0, 0, 0
for i = 1, #KEYS do
  if n > 0 and (items >= budgetItems or bytes >= budgetBytes) then break end
  if ${pastCallTime('n', 'callMicros')} then break end
  local t, p, v, ci, cb = readKey(KEYS[i], maxBytes, maxItems, maxShape, ARGV[1])
  items, bytes, n = items + ci, bytes + cb, n + 1
  out[3 * i + 1] = t == 'string' and 1 or t
  out[3 * i + 2] = p
  out[3 * i + 3] = v
end
out[3] = n
${STAMP}
${PACKED_WHEN_ASKED('ARGV[7]')}
return out`;

// The internal keys beside key `k`, byte for byte as internalKey() names them
// (src/core/bookkeeping/internalKeys.ts): `<prefix><kind>:` then `=k` when k has a hash tag of its
// own, else `{k}`.
export const INTERNAL_KEY = `
local function besideOf(k)
  local open = string.find(k, '{', 1, true)
  if open then
    local close = string.find(k, '}', open + 1, true)
    if close and close > open + 1 then return '=' .. k end
  end
  return '{' .. k .. '}'
end
local function internalKey(kind, k)
  return '${INTERNAL_PREFIX}' .. kind .. ':' .. besideOf(k)
end
-- EXISTS over names[1..m]; nil when refused (an ACL may deny the internal keys: the
-- page's own reads still count, as they did when these were separate calls).
local function countOf(names, m)
  local r = redis.pcall('EXISTS', unpack(names, 1, m))
  if type(r) ~= 'number' then return nil end
  return r
end
-- How many internal keys of the given kinds beside keys[1..n] exist, in EXISTS calls of
-- 500 names at most (each key's tag looked up once for all kinds); nil: refused.
local function existing(kinds, keys, n)
  local found, names, m = 0, {}, 0
  for i = 1, n do
    local beside = besideOf(keys[i])
    for j = 1, #kinds do
      names[m + j] = '${INTERNAL_PREFIX}' .. kinds[j] .. ':' .. beside
    end
    m = m + #kinds
    if m + #kinds > 500 or i == n then
      local c = countOf(names, m)
      if c == nil then return nil end
      found, m = found + c, 0
    end
  end
  return found
end
`;

/**
 * The internal keys beside the given keys (ARGV), looked up by name: [fences, waiters].
 * `fences`: 0 when no key has a fence counter, -1 when the node refused to say (read them
 * apart), else one entry per key: its counter's first 16 bytes (longer is not a counter:
 * FENCE_BYTES), false where none. `waiters`: 1 when no key has a waiter set, 0 when some
 * may (read them apart). What a page's keys need when the walk of the internal keys did
 * not finish (see SCAN_PAGE).
 */
export const INTERNAL_OF = `#!lua flags=no-writes
${INTERNAL_KEY}
local keys, n = ARGV, #ARGV
local out = { 0, 0 }
local any = existing({ 'fence', 'waiters' }, keys, n)
if any == nil then
  out[1] = -1
elseif any == 0 then
  out[2] = 1
else
  local f = existing({ 'fence' }, keys, n)
  if f == nil then
    out[1] = -1
  elseif f > 0 then
    local fences = {}
    for i = 1, n do
      local v = redis.pcall('GETRANGE', internalKey('fence', keys[i]), '0', '${FENCE_BYTES - 1}')
      fences[i] = type(v) == 'string' and #v > 0 and v or false
    end
    out[1] = fences
  end
  if existing({ 'waiters' }, keys, n) == 0 then out[2] = 1 end
end
return out`;

/**
 * One SCAN page run on the server, then each key read there: [sec, usec, cursor, number
 * read, internal cursor, internal keys, then key, pttl, payload per key read, then the
 * keys left unread when the budget ran out]. Saves sending every key name back. The
 * payload of a string read whole is the string itself; any other is { type, payload as
 * readKey gives it }.
 * The keys are read within the call's budgets: items and bytes (ARGV[7], ARGV[8]), and
 * ARGV[11] microseconds on the node's clock.
 * Beside it, when ARGV[9] is a cursor (not ''), one page of a second walk over the
 * internal keys of the whole keyspace (COUNT ARGV[10]): its next cursor, and a flat list
 * of name, value: a fence counter's first 16 bytes (FENCE_BYTES), 1 for a waiter set, 0
 * for a counter the node would not read or the budget left unread (read it apart). Once that walk is complete,
 * every internal key present throughout it has been listed, so the page's keys need no
 * lookup by name (docs/decisions.md "One call per SCAN page").
 * With ARGV[12] = '1' the reply is that array packed into one MessagePack string by the
 * server's cmsgpack, where it has one (packedReply.ts): one reply buffer per page instead
 * of three per key, and less of the node's time than RESP for the same array.
 * Standalone nodes only: a cluster refuses scripts touching undeclared keys.
 */
export const SCAN_PAGE = `#!lua flags=no-writes
${READ_KEY}
-- The call's time counts from here: both walks below, then the keys' reads.
${CALL_CLOCK}
local callMicros = tonumber(ARGV[11])
local page = redis.call('SCAN', ARGV[1], 'MATCH', ARGV[2], 'COUNT', ARGV[3])
local out = { 0, 0, page[1], 0, '', 0 }
local keys = page[2]
local maxBytes, maxItems, maxShape = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local budgetItems, budgetBytes = tonumber(ARGV[7]), tonumber(ARGV[8])
local maxBytesArg = ARGV[4]
local items, bytes, n = 0, 0, 0
if ARGV[9] ~= '' then
  local walk = redis.call('SCAN', ARGV[9], 'MATCH', '${INTERNAL_PREFIX}*', 'COUNT', ARGV[10])
  -- Counters read, at most the call's item budget: the rest are read apart.
  local found, m, reads = {}, 0, 0
  local from = ${INTERNAL_PREFIX.length + 1}
  for _, k in ipairs(walk[2]) do
    local kind = string.sub(k, from, from + 7)
    if string.sub(kind, 1, 6) == 'fence:' then
      -- A counter is at most 15 digits: 16 bytes tell whether a value is one.
      local v = 0
      if reads < budgetItems then
        v = redis.pcall('GETRANGE', k, '0', '${FENCE_BYTES - 1}')
        reads = reads + 1
        if type(v) ~= 'string' then v = 0 end
      end
      if v ~= '' then
        found[m + 1], found[m + 2], m = k, v, m + 2
      end
    elseif kind == 'waiters:' or string.sub(kind, 1, 7) == 'events:' then
      -- A waiter set or an event log: its name is all the client needs.
      found[m + 1], found[m + 2], m = k, 1, m + 2
    end
  end
  out[5], out[6] = walk[1], found
end
for i = 1, #keys do
  if n > 0 and (items >= budgetItems or bytes >= budgetBytes) then break end
  if ${pastCallTime('n', 'callMicros')} then break end
  local k = keys[i]
  local j = 3 * i
  -- Most keys are short strings: read here, without readKey's call and type (a tenth of
  -- the page's time on the node); readKey reads every other key on from these replies.
  local p = redis.call('PTTL', k)
  local s = false
  if p ~= -2 then s = redis.pcall('GETRANGE', k, '0', maxBytesArg) end
  out[j + 4] = k
  out[j + 5] = p
  if type(s) == 'string' and #s <= maxBytes then
    out[j + 6] = s
    items, bytes = items + 1, bytes + #s
  else
    local t, _, v, ci, cb = readKey(k, maxBytes, maxItems, maxShape, maxBytesArg, p, s)
    out[j + 6] = { t, v }
    items, bytes = items + ci, bytes + cb
  end
  n = n + 1
end
out[4] = n
for i = n + 1, #keys do out[#out + 1] = keys[i] end
${STAMP}
${PACKED_WHEN_ASKED('ARGV[12]')}
return out`;

/** One SCAN page listed with one expiry command per key: [sec, usec, cursor, key, value, ...]. */
const listPage = (command: 'PTTL' | 'PEXPIRETIME'): string => `#!lua flags=no-writes
local page = redis.call('SCAN', ARGV[1], 'MATCH', ARGV[2], 'COUNT', ARGV[3])
local out = { 0, 0, page[1] }
local keys = page[2]
for i = 1, #keys do
  out[#out + 1] = keys[i]
  out[#out + 1] = redis.call('${command}', keys[i])
end
${STAMP}
return out`;

/** A watch tick's page: names and PTTLs only. */
export const SCAN_TTL_PAGE = listPage('PTTL');

/** The checksum a chunk gets when its keys without expiry are too costly to read in one call: never equal to a previous one. */
export const UNDIGESTED = '*'.repeat(16);

/** Keys per chunk of a page in PAGE_CHANGES: a changed key costs the watch its chunk's listing. */
export const CHUNK_KEYS = 8;
/**
 * How long a PAGE_CHANGES call goes on over quiet pages after its first (a quiet page of
 * 1,000 keys takes about 0.55 ms on this machine's nodes), and over how many at most.
 */
export const CHAIN_MICROS = 3000;
export const CHAIN_PAGES = 8;

/**
 * A watch tick's page where the server has PEXPIRETIME (7.0+). The page's checksum: its
 * key count, its keys' absolute expiries (stable to the millisecond while nothing touches
 * a key) in plain and position-weighted sums, and a SHA1 over the bounded values of keys
 * without expiry, whose value may change without touching any TTL. When it moved from the
 * last tick's (ARGV[11]), the page is cut into chunks of ARGV[9] keys in SCAN order, each
 * with a checksum of the same and its names, the first 64 bits of a SHA1: an unmoved one
 * means the same keys in the same places. Only the chunks whose checksum moved from the
 * last tick's (ARGV[10], 16 characters each in one string) come back, with names and
 * expiries: under churn a tick lists the changed keys' neighbours, not every page a change
 * fell on.
 * Then, while the call has run under ARGV[12] microseconds, it goes on to the pages the
 * caller expects next (ARGV[14] on: a cursor, that page's last checksum, ...) as long as
 * each is where expected and its checksum did not move: a quiet tick over many pages
 * takes a few calls, not one per page. It stops before a page that moved.
 * [sec, usec, cursor, page's key count, '' (a place kept), the page's checksum ('' when
 * it is ARGV[11]), quiet pages read after it, the cursor to go on from, then per moved
 * chunk of the first page: its index (1-based), its key count, its checksum, key, expiry
 * per key]. Only the moved chunks' checksums come back: the caller patches its copy of
 * ARGV[10] (a whole string of them per moved page was garbage at every tick under churn).
 * A checksum is UNDIGESTED when its keys without expiry would exceed the call's budget.
 * With ARGV[13] = '1' the reply is that array packed by cmsgpack where the server has it:
 * under churn every page moves, and a Buffer and a boxed expiry per listed key were most
 * of a tick's garbage.
 */
export const PAGE_CHANGES = `#!lua flags=no-writes
${READ_KEY}
${CALL_CLOCK}
local budgetItems, budgetBytes = tonumber(ARGV[7]), tonumber(ARGV[8])
local items, bytes = 0, 0
local extra = {}
-- The page's checksum, and each key's value where it has no expiry (in extra) and, given
-- kept, its expiry there: the first page's chunks take them from here instead of asking
-- each key again (a quiet page read on after it keeps none). It leaves the names out, as
-- hashing them all cost a quiet page 10-15% more time on the node: a chunk's has them, so
-- what a moved page keeps is exact.
local function pageChecksum(keys, kept)
  extra = {}
  local sum, weighted, unread = 0, 0, 0
  for i = 1, #keys do
    local k = keys[i]
    local e = redis.call('PEXPIRETIME', k)
    if kept then kept[i] = e end
    if e == -1 then
      if items >= budgetItems or bytes >= budgetBytes then return '${UNDIGESTED}' end
      -- No expiry (PEXPIRETIME -1) is PTTL -1: not asked again.
      local t, _, v, ci, cb = readKey(k, tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[4], -1)
      items, bytes = items + ci, bytes + cb
      if type(v) == 'table' then
        local parts = {}
        for j = 1, #v do parts[j] = #v[j] .. ':' .. v[j] end
        v = table.concat(parts, ',')
      end
      extra[i] = #k .. ':' .. k .. '=' .. t .. '/' .. tostring(v)
      unread = unread + 1
    else
      sum = sum + e
      weighted = weighted + e * i
    end
  end
  local whole = #keys .. ':' .. string.format('%.0f', sum) .. ':' .. string.format('%.0f', weighted)
  if unread > 0 then
    local parts = {}
    for i = 1, #keys do
      if extra[i] then parts[#parts + 1] = extra[i] end
    end
    whole = whole .. ':' .. redis.sha1hex(table.concat(parts, '\\n'))
  end
  return whole
end
local page = redis.call('SCAN', ARGV[1], 'MATCH', ARGV[2], 'COUNT', ARGV[3])
local keys = page[2]
local expiry = {}
local whole = pageChecksum(keys, expiry)
local function checksum(first, last, s, w)
  local parts = { (last - first + 1) .. ':' .. string.format('%.0f', s) .. ':' .. string.format('%.0f', w), table.concat(keys, '\\n', first, last) }
  for i = first, last do
    if extra[i] then parts[#parts + 1] = extra[i] end
  end
  return string.sub(redis.sha1hex(table.concat(parts, '\\n')), 1, 16)
end
local out = { 0, 0, page[1], #keys, '', '', 0, page[1] }
if whole == '${UNDIGESTED}' or whole ~= ARGV[11] then
  out[6] = whole
  local before = ARGV[10] or ''
  local size = tonumber(ARGV[9])
  local c = 0
  for first = 1, #keys, size do
    c = c + 1
    local last = math.min(first + size - 1, #keys)
    local s, w, undone = 0, 0, false
    for i = first, last do
      -- Asked here only past where the page's checksum gave up on its budget.
      local e = expiry[i]
      if e == nil then
        e = redis.call('PEXPIRETIME', keys[i])
        expiry[i] = e
      end
      if e ~= -1 then
        s = s + e
        w = w + e * (i - first + 1)
      elseif not extra[i] then undone = true end
    end
    local digest = '${UNDIGESTED}'
    if not undone then digest = checksum(first, last, s, w) end
    if digest == '${UNDIGESTED}' or digest ~= string.sub(before, 16 * c - 15, 16 * c) then
      out[#out + 1] = c
      out[#out + 1] = last - first + 1
      out[#out + 1] = digest
      for i = first, last do
        out[#out + 1] = keys[i]
        out[#out + 1] = expiry[i]
      end
    end
  end
end
local quiet, cursor, j = 0, page[1], 14
local limit = tonumber(ARGV[12]) or 0
while started and ARGV[j + 1] and cursor == ARGV[j] and (micros() or started) - started < limit do
  local next = redis.call('SCAN', cursor, 'MATCH', ARGV[2], 'COUNT', ARGV[3])
  local sum = pageChecksum(next[2])
  if sum == '${UNDIGESTED}' or sum ~= ARGV[j + 1] then break end
  quiet = quiet + 1
  cursor = next[1]
  j = j + 2
end
out[7], out[8] = quiet, cursor
${STAMP}
${PACKED_WHEN_ASKED('ARGV[13]')}
return out`;
