// One node's part of a watch tick: each SCAN page answered by a checksum per chunk of its
// keys' absolute expiries, the chunks whose checksum moved listed in the same call, and a
// key read again only when it appeared, vanished, lost its TTL or its expiry jumped.
import type Redis from 'ioredis';
import { performance } from 'node:perf_hooks';
import { clockNow, withDeadline } from '../connection/deadline';
import { downStatus } from '../connection/nodes';
import { knownCapabilities, scriptsRefused } from '../connection/capabilities';
import { scanTtlPagePlain } from './plainRead';
import { INTERNAL_PREFIX, internalKey, parseInternalKey } from '../bookkeeping/internalKeys';
import type { InspectContext, NodeScan } from './context';
import { isIdOfRange, type KeyTable } from './keyTable';
import { readBatch, stampError } from './inspect';
import { factsOf } from './nodeReads';
import { CHAIN_PAGES, CHUNK_KEYS, pageChanges, scanTtlPage, type PageChanges } from './readScripts';
import { JUMP_TOLERANCE_MS } from './watchDiff';

/**
 * Waiter sets and event logs are scanned beside the user's patterns: their expiry moves at
 * every write, so a changed page points at the lock whose waiters or history changed.
 */
export const INTERNAL_PATTERN = `${INTERNAL_PREFIX}*`;

/** The lock id (latin1 bytes) an internal key id belongs to, or null. */
export function lockIdOfInternal(id: string): string | null {
  if (!id.startsWith(INTERNAL_PREFIX)) return null;
  const parsed = parseInternalKey(Buffer.from(id, 'latin1').toString('utf8'));
  return parsed === null ? null : Buffer.from(parsed.resource, 'utf8').toString('latin1');
}

/**
 * A pattern that starts and ends with `*` matches the internal keys of every resource it
 * matches (they contain the resource's name): the default `*lock*` needs no extra pass over
 * the keyspace.
 */
export function coversInternalKeys(patterns: readonly string[]): boolean {
  return patterns.every((p) => p === '*' || (p.length >= 2 && p.startsWith('*') && p.endsWith('*') && !p.endsWith('\\*')));
}

/**
 * Gives each of `ids` a node holds what the tick's listing found beside it, as a
 * snapshot's walk of the internal keys does (internalWalk.ts). The watch lists every
 * internal key with the user's patterns (INTERNAL_PATTERN), so once a listing is complete
 * a fence counter or waiter set missing from it is not on the node: the fence and waiters
 * stages ask the node only about the ones it listed. A waiter set written after the
 * listing moves a page at the next tick, which reads the lock's waiters then.
 */
export function factsFromListing(scans: readonly NodeScan[], ids: Iterable<string>): void {
  const complete = scans.filter((s) => !s.truncated);
  if (complete.length === 0) return;
  const listed = (scan: NodeScan, id: string): boolean => {
    const o = scan.reads.obsOf(id);
    return o !== undefined && o !== scan.absent;
  };
  for (const id of ids) {
    // Named once per lock, not once per node: a tick under churn names hundreds.
    const fence = internalKey('fence', id);
    const waiters = internalKey('waiters', id);
    for (const scan of complete) {
      const k = scan.reads.numberOf(id);
      // A counter the listing holds is still read apart: its value is not in the listing.
      if (k >= 0) scan.reads.setFactsAt(k, factsOf(listed(scan, fence) ? undefined : null, !listed(scan, waiters)));
    }
  }
}

const SCAN_COUNT = 1000;

/**
 * What a server says when the digest script meets no PEXPIRETIME: "Unknown Redis command
 * called from script" (7.x), "... called from Lua script" (6.2), or a plain unknown command.
 */
export const PEXPIRETIME_MISSING = /unknown (redis )?command|PEXPIRETIME/i;


export interface PageMemo {
  /**
   * Each chunk's checksum, 16 bytes each (patched in place by the next listing, see
   * pageChanges), and the page's (see PAGE_CHANGES); '' where the page was listed with PTTLs.
   */
  digests: Buffer | '';
  whole: string;
  /** The cursor after this page, and whether its checksum stood at its last reading: a quiet page is read in a chain with the one before it. */
  next?: string;
  quiet?: boolean;
  ids: string[];
  /** The keys' PEXPIRETIMEs at the page's last listing (beside `ids`), where the server has it. */
  expiresAt?: number[];
}

/**
 * A key's absolute expiry at its page's last listing, by id and its position now, or
 * undefined when that listing had none for it. SCAN lists an unchanged page in the same
 * order, so the key is looked for at its own position first.
 */
function lookup(memo: PageMemo | undefined): (id: string, k: number) => number | undefined {
  const before = memo?.expiresAt;
  if (before === undefined) return () => undefined;
  let byId: Map<string, number> | undefined;
  return (id, k) => {
    if (memo!.ids[k] === id) return before[k];
    byId ??= new Map(memo!.ids.map((x, i) => [x, i]));
    const i = byId.get(id);
    return i === undefined ? undefined : before[i];
  };
}

/**
 * What the node's rounding of a copy's expiry to whole milliseconds may add to it (its
 * PTTL, a count down to another stamp): an expiry later than the copy's by more is another.
 */
const ROUNDING_MS = 2;

/**
 * Whether a listed key must be read again: new here, no lock copy before, without expiry,
 * or its expiry moved. Exact where both listings had the absolute expiry (`expiresAt`,
 * `before`): a new holder taking the same TTL a few ms later moves it, however slow either
 * read was. Otherwise by PTTL, beyond what either stamp may be late by (Stamp.err).
 */
function mayHaveChanged(known: NodeScan, id: string, pttl: number, at: number, pageErr: number, expiresAt?: number, before?: number, nodeClock = false): boolean {
  if (pttl === -2) return false;
  const k = known.reads.numberOf(id);
  const o = k < 0 ? undefined : known.reads.obsAt(k);
  if (!o || o.state !== 'present' || o.pttlMs === null || pttl === -1 || o.pttlMs === -1) return true;
  if (before !== undefined) return expiresAt !== before;
  const stamp = known.reads.stampAt(k);
  const was = stamp.at + o.pttlMs;
  // The first listing after a full read has the absolute expiry but no last listing. A
  // read script stamps its copies after their PTTLs (readLua.ts), so an unchanged key's
  // copy never expires before the node's own expiry (on the node's clock, as both are):
  // one that expires later is a new SET, however close (a new holder taking the same TTL
  // a few ms after the last one, which the tolerance below would not see). Only where the
  // copies were stamped by the node's clock: without TIME they are stamped by ours.
  if (nodeClock && expiresAt !== undefined && expiresAt - known.offsetMs - was > ROUNDING_MS) return true;
  return Math.abs(at + pttl - was) > JUMP_TOLERANCE_MS + pageErr + stamp.err;
}

/** Keys a page's moved chunks no longer list where they were, and keys they list where others were. */
interface Moves {
  dropped: string[];
  relisted: Set<string>;
}

/**
 * A page's last listing brought up to the chunks that moved, each listed key handed to
 * `listed` with its expiry at the last listing (undefined if it had none). Unmoved chunks
 * hold the same keys in the same places. A page of the same size is updated in place:
 * under churn every page moves, and new arrays for each were most of a tick's garbage.
 * A key new to the page takes its id from `keyIds`, the node's table of key ids.
 */
function applyChunks(memo: PageMemo | undefined, changes: PageChanges, listed: (id: string, pttl: number, expiresAt: number, before: number | undefined) => void, moves: Moves, keyIds: KeyTable): PageMemo {
  const inPlace = memo !== undefined && memo.expiresAt !== undefined && memo.ids.length === changes.size;
  const next: PageMemo = inPlace ? memo : { digests: '', whole: '', ids: new Array(changes.size), expiresAt: new Array(changes.size) };
  const look = lookup(memo);
  // Writes wait until every moved key was looked up in the last listing, which they change.
  // Three arrays, not one of triples: an expiry in a mixed array is a boxed number each.
  const at: number[] = [];
  const ids: string[] = [];
  const expiries: number[] = [];
  let m = 0;
  for (let c = 0, from = 0; from < changes.size; c++, from += CHUNK_KEYS) {
    const chunk = changes.moved[m];
    if (chunk?.index !== c) {
      if (!inPlace) {
        for (let k = from; k < Math.min(from + CHUNK_KEYS, changes.size); k++) {
          next.ids[k] = memo!.ids[k];
          next.expiresAt![k] = memo!.expiresAt![k];
        }
      }
      continue;
    }
    m++;
    for (let k = 0; k < chunk.count; k++) {
      // Without a last listing the tick cannot tell what vanished by what moved (refreshNode).
      const was = memo?.ids[from + k];
      const i = chunk.first + k;
      const src = Array.isArray(changes.src) ? changes.src[i] : changes.src;
      const start = changes.starts[i];
      const end = changes.ends[i];
      const id = was !== undefined && isIdOfRange(was, src, start, end) ? was : keyIds.nameOf(keyIds.numberOfRange(src, start, end));
      const e = changes.expiresAt[i];
      if (memo && was !== id) {
        if (was !== undefined) moves.dropped.push(was);
        moves.relisted.add(id);
      }
      // A key past its expiry but not yet evicted reads as 0 left, as PTTL would near its end.
      listed(id, e < 0 ? e : Math.max(0, Math.round(e - changes.nodeTimeMs)), e, look(id, from + k));
      at.push(from + k);
      ids.push(id);
      expiries.push(e);
    }
  }
  if (memo) for (let k = changes.size; k < memo.ids.length; k++) moves.dropped.push(memo.ids[k]);
  for (let j = 0; j < at.length; j++) {
    next.ids[at[j]] = ids[j];
    next.expiresAt![at[j]] = expiries[j];
  }
  next.digests = changes.digests ?? memo?.digests ?? '';
  next.whole = changes.whole ?? memo?.whole ?? '';
  return next;
}

/**
 * The pages after `memo` that were quiet at their last reading, in SCAN order, as far as
 * `room` keys: one call reads them on if they still are (PAGE_CHANGES). A page that moved
 * last time likely moves again, and would cost that call a checksum for nothing.
 */
function quietAhead(w: NodeWatch, p: number, memo: PageMemo, room: number): Array<{ cursor: string; whole: string }> {
  const ahead: Array<{ cursor: string; whole: string }> = [];
  for (let cursor = memo.next; ahead.length < CHAIN_PAGES && cursor !== undefined && cursor !== '0';) {
    const page = w.pages.get(`${p} ${cursor}`);
    if (!page?.quiet || page.whole === '' || page.ids.length > room) break;
    room -= page.ids.length;
    ahead.push({ cursor, whole: page.whole });
    cursor = page.next;
  }
  return ahead;
}

export interface NodeWatch {
  scan: NodeScan;
  /** `${pattern index} ${cursor}` -> what that page held when its digest was taken. */
  pages: Map<string, PageMemo>;
  /** false without PEXPIRETIME (Redis < 7.0, or renamed away): every page is listed with PTTLs. */
  digests: boolean;
  /** The load level (`loadedPages`) of the last read, and the keys it listed. */
  loaded?: number;
  listedBefore?: number;
  /** Keys a refresh lists past, at least: what was listed before each loadMore(), so a load always reads further. */
  mustExceed?: number;
}

/**
 * Brings one node's reads up to date; adds every key that may have changed to `dirty`.
 * `loadedPages`: each page loaded reads at least one more SCAN page, however small maxKeys is.
 */
export async function refreshNode(ctx: InspectContext, scanPatterns: readonly string[], loadedPages: number, w: NodeWatch, i: number, maxKeys: number, deadline: number, dirty: Set<string>): Promise<void> {
  const node = ctx.nodes[i];
  const client = node.client as Redis;
  const known = w.scan;
  const pages = new Map<string, PageMemo>();
  let listed = false;
  // Keys gone from a chunk that moved, and keys listed in one: while every page read has
  // its last listing, a key that vanished is among the first and not among the second.
  let exact = w.pages.size > 0;
  const moves: Moves = { dropped: [], relisted: new Set() };
  // Keys that may have changed, and keys that may have vanished: read once the pages are
  // listed, in as few calls as they fill, not one read per page. By id, not by a view of the
  // page's reply: a view made at the first page lived through the node's whole listing, and
  // outlived young collections into the old generation (docs/decisions.md).
  const toRead: string[] = [];
  let scanned = 0;
  // Each page loaded reads at least one more SCAN page, however small maxKeys is.
  let scanPages = 0;
  let complete = true;
  // A page a SCAN returns may overshoot the budget; a load must still read further than that.
  if (w.loaded !== undefined && loadedPages > w.loaded) w.mustExceed = Math.max(w.mustExceed ?? 0, w.listedBefore ?? 0);
  const budget = Math.max(maxKeys, w.mustExceed ?? 0);
  // A server without PEXPIRETIME (Redis 6.2, or renamed away) lists every page with PTTLs.
  if (knownCapabilities(client)?.capabilities.pexpiretime === false) w.digests = false;
  // Without scripts (DESIGN "Reading without scripts") there is no digest: plain SCAN and pipelined PTTLs.
  const plain = scriptsRefused(client);
  if (plain) w.digests = false;
  const nodeClock = knownCapabilities(client)?.capabilities.time === true;
  try {
    for (let p = 0; p < scanPatterns.length && complete; p++) {
      const pattern = scanPatterns[p];
      let cursor = '0';
      do {
        // Past maxKeys, not at it: a node with exactly maxKeys keys is read in full, not "truncated".
        // Our internal keys (waiters, event logs) are walked beside the user's patterns and do
        // not count against their budget: a budget spent on lock keys must not leave the
        // watch "truncated" when every lock key was read. The time budget still bounds them.
        const budgeted = pattern !== INTERNAL_PATTERN;
        if ((budgeted && scanned > budget && scanPages >= loadedPages) || performance.now() > deadline) {
          complete = false;
          break;
        }
        const memoKey = `${p} ${cursor}`;
        const memo = w.pages.get(memoKey);
        const sent = clockNow();
        if (w.digests) {
          let changes: PageChanges | undefined;
          const ahead = memo ? quietAhead(w, p, memo, budgeted ? budget - scanned - memo.ids.length : Infinity) : [];
          try {
            changes = await withDeadline(pageChanges(client, cursor, pattern, SCAN_COUNT, memo?.digests ?? '', memo?.whole ?? '', ahead), ctx.commandTimeoutMs, true);
          } catch (e) {
            if (!PEXPIRETIME_MISSING.test(e instanceof Error ? e.message : '')) throw e;
            w.digests = false;
          }
          if (changes) {
            if (!memo) exact = false;
            let next = memo!;
            if (changes.moved.length > 0 || changes.size !== memo?.ids.length) {
              listed = true;
              const at = changes.nodeTimeMs - known.offsetMs;
              next = applyChunks(memo, changes, (id, pttl, expiresAt, before) => {
                if (mayHaveChanged(known, id, pttl, at, stampError(at, sent), expiresAt, before, nodeClock)) {
                  toRead.push(id);
                  dirty.add(id);
                }
              }, moves, known.reads.table);
            } else if (changes.whole !== undefined) {
              next = { ...memo!, digests: changes.digests ?? memo!.digests, whole: changes.whole };
            }
            // The page's checksum stood (and so did its size and every chunk).
            next.quiet = changes.whole === undefined;
            next.next = changes.cursor;
            pages.set(memoKey, next);
            scanned += changes.size;
            scanPages++;
            // Pages after it the call found where, and as, the last tick left them.
            for (let j = 0; j < changes.quiet; j++) {
              const key = `${p} ${ahead[j].cursor}`;
              const same = w.pages.get(key)!;
              if (j === changes.quiet - 1) same.next = changes.next;
              pages.set(key, same);
              scanned += same.ids.length;
              scanPages++;
            }
            cursor = changes.next;
            continue;
          }
        }
        listed = true;
        exact = false;
        // Without PEXPIRETIME (Redis < 7.0, or no scripts) a page is listed with PTTLs, compared within the reads' errors.
        const list = plain ? scanTtlPagePlain : scanTtlPage;
        const page = await withDeadline(list(client, cursor, pattern, SCAN_COUNT), ctx.commandTimeoutMs, true);
        const at = page.nodeTimeMs - known.offsetMs;
        const pageErr = stampError(at, sent);
        const ids: string[] = new Array(page.keys.length);
        for (let k = 0; k < page.keys.length; k++) {
          const id = known.reads.table.idOfBytes(page.keys[k]);
          ids[k] = id;
          if (mayHaveChanged(known, id, page.pttls[k], at, pageErr)) {
            toRead.push(id);
            dirty.add(id);
          }
        }
        pages.set(memoKey, { digests: '', whole: '', ids });
        scanned += page.keys.length;
        scanPages++;
        cursor = page.cursor;
      } while (cursor !== '0');
    }
    const same = complete && listed && exact && pages.size === w.pages.size;
    if (same) {
      // The same pages as last time: a key dropped from a chunk and listed in none is read
      // by name, with the rest. It may be gone, or listed by an unmoved page too (SCAN may
      // list a key twice while the node rehashes). No key listed is among them.
      for (const id of moves.dropped) {
        if (moves.relisted.has(id)) continue;
        const o = known.reads.obsOf(id);
        if (o !== undefined && o !== known.absent) {
          toRead.push(id);
          dirty.add(id);
        }
      }
    }
    await readBatch(ctx, node, toRead, known);
    if (!same && complete && listed) {
      // A key this node held but no longer lists is gone from it.
      const seen = new Set<string>();
      for (const memo of pages.values()) for (const id of memo.ids) seen.add(id);
      const goneAt = { at: clockNow(), err: 0 };
      known.reads.forEach((o, id) => {
        if (!seen.has(id) && o !== known.absent) {
          known.reads.set(id, known.absent, goneAt, undefined);
          dirty.add(id);
        }
      });
    }
    w.pages = pages;
    w.loaded = loadedPages;
    w.listedBefore = scanned;
    known.truncated = !complete;
  } catch (e) {
    known.status = { ...known.status, ...downStatus(e, node) };
    known.reads.forEach((_, id) => void dirty.add(id));
    known.reads.clear();
    w.pages = new Map();
  }
}
