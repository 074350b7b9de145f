// One node's part of a watch tick: each SCAN page answered by a checksum of its keys'
// absolute expiries, listed with PTTLs only when the checksum moved, and a key read again
// only when it appeared, vanished, lost its TTL or its expiry jumped.
import type Redis from 'ioredis';
import { performance } from 'node:perf_hooks';
import { clockNow, withDeadline } from '../connection/deadline';
import { downStatus } from '../connection/nodes';
import { knownCapabilities, scriptsRefused } from '../connection/capabilities';
import { scanTtlPagePlain } from './plainRead';
import { INTERNAL_PREFIX, parseInternalKey } from '../bookkeeping/internalKeys';
import type { InspectContext, NodeScan } from './context';
import { readBatch, stampError } from './inspect';
import { digestPage, scanExpiryPage, scanTtlPage, UNDIGESTED } from './readScripts';
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

const SCAN_COUNT = 1000;

/**
 * What a server says when the digest script meets no PEXPIRETIME: "Unknown Redis command
 * called from script" (7.x), "... called from Lua script" (6.2), or a plain unknown command.
 */
export const PEXPIRETIME_MISSING = /unknown (redis )?command|PEXPIRETIME/i;


export interface PageMemo {
  digest: string;
  ids: string[];
  /** The keys' PEXPIRETIMEs at the page's last listing (beside `ids`), where the server has it. */
  expiresAt?: number[];
}

/**
 * A key's absolute expiry at the page's last listing, or undefined when that listing had
 * none for it. SCAN lists an unchanged page in the same order, so the key is looked for at
 * its own position first.
 */
function expiryBefore(memo: PageMemo | undefined, id: string, k: number, index: { byId?: Map<string, number> }): number | undefined {
  const before = memo?.expiresAt;
  if (before === undefined) return undefined;
  if (memo!.ids[k] === id) return before[k];
  index.byId ??= new Map(memo!.ids.map((x, i) => [x, i]));
  const i = index.byId.get(id);
  return i === undefined ? undefined : before[i];
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
        let digest: string | undefined;
        if (w.digests) {
          try {
            const d = await withDeadline(digestPage(client, cursor, pattern, SCAN_COUNT), ctx.commandTimeoutMs, true);
            digest = d.digest;
            if (memo && memo.digest === digest && digest !== UNDIGESTED) {
              pages.set(memoKey, memo);
              scanned += memo.ids.length;
              scanPages++;
              cursor = d.cursor;
              continue;
            }
          } catch (e) {
            if (!PEXPIRETIME_MISSING.test(e instanceof Error ? e.message : '')) throw e;
            w.digests = false;
          }
        }
        listed = true;
        const sent = clockNow();
        // With PEXPIRETIME (the digests use it too) a key's expiry is compared exactly with the last listing's.
        const list = plain ? scanTtlPagePlain : w.digests ? scanExpiryPage : scanTtlPage;
        const page = await withDeadline(list(client, cursor, pattern, SCAN_COUNT), ctx.commandTimeoutMs, true);
        const index: { byId?: Map<string, number> } = {};
        const at = page.nodeTimeMs - known.offsetMs;
        // A jump must exceed what either stamp may be late by (Stamp.err), or it is the read's own error.
        const pageErr = stampError(at, sent);
        const ids: string[] = new Array(page.keys.length);
        const toRead: Buffer[] = [];
        for (let k = 0; k < page.keys.length; k++) {
          const id = page.keys[k].toString('latin1');
          ids[k] = id;
          const pttl = page.pttls[k];
          if (pttl === -2) continue;
          const slot = known.reads.get(id);
          const o = slot?.obs;
          // Exact where both listings had the absolute expiry: a new holder taking the same
          // TTL a few ms later moves it, however slow either read was.
          const exact = page.expiresAt === undefined ? undefined : expiryBefore(memo, id, k, index);
          // New here, not a lock copy before, without expiry, or its expiry moved: read it.
          if (!o || o.state !== 'present' || o.pttlMs === null || pttl === -1 || o.pttlMs === -1
            || (exact !== undefined ? page.expiresAt![k] !== exact : Math.abs(at + pttl - (slot!.stamp.at + o.pttlMs)) > JUMP_TOLERANCE_MS + pageErr + slot!.stamp.err)) {
            toRead.push(page.keys[k]);
            dirty.add(id);
          }
        }
        await readBatch(ctx, node, toRead, known);
        pages.set(memoKey, { digest: digest ?? '', ids, expiresAt: page.expiresAt });
        scanned += page.keys.length;
        scanPages++;
        cursor = page.cursor;
      } while (cursor !== '0');
    }
    if (complete && listed) {
      // A key this node held but no longer lists is gone from it.
      const seen = new Set<string>();
      for (const memo of pages.values()) for (const id of memo.ids) seen.add(id);
      const goneAt = { at: clockNow(), err: 0 };
      for (const [id, slot] of known.reads) {
        if (!seen.has(id) && slot.obs !== known.absent) {
          known.reads.set(id, { obs: known.absent, stamp: goneAt });
          dirty.add(id);
        }
      }
    }
    w.pages = pages;
    w.loaded = loadedPages;
    w.listedBefore = scanned;
    known.truncated = !complete;
  } catch (e) {
    known.status = { ...known.status, ...downStatus(e, node) };
    for (const id of known.reads.keys()) dirty.add(id);
    known.reads.clear();
    w.pages = new Map();
  }
}
