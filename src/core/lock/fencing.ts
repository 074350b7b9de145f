// Fencing tokens across a Redlock quorum (docs/fencing.md). Each node keeps a counter per
// resource under the internal-key prefix; a fenced grant increments it in the same script
// that sets the lock, the acquirer takes the highest value among the granting nodes and
// raises the granting nodes that lag to it before the lock counts as held. Once a quorum
// holds at least f, every later quorum contains a node that does, so the next fence is
// higher whichever nodes grant it.
import type Redis from 'ioredis';
import type { Cluster } from 'ioredis';
import type { NodeAttempt } from './errors';
import { internalKey } from '../bookkeeping/internalKeys';
import { ReplyError } from 'ioredis';
import { describeFailure, RedisNode } from '../connection/nodes';
import { callScript, defineOnce, rawScript } from '../connection/lua';
import { releaseKeysOn } from './writeScripts';
import { fencedGrantOn } from './writeBatch';
import { withDeadline } from '../connection/deadline';

type Key = string | Buffer;

/**
 * Several resources. KEYS: n lock keys, then their n counters; ARGV: token, PX. Like the
 * plain multi-resource grant it is all or nothing: {i, holder} when lock i is held, else
 * every counter is incremented and every lock set: {0, f1, ..., fn}. The INCRs come first:
 * a refused one (a counter of another type or not an integer, an ACL denying the key)
 * writes nothing, so a refusal leaves no lock copy behind; an increment followed by a
 * refusal of a later counter is only a skipped number.
 */
const FENCED_ACQUIRE = `
local function refused(f, i)
  local e = f.err or ''
  if string.sub(e, 1, 9) == 'WRONGTYPE' then
    return redis.error_reply('WRONGTYPE the fence counter of resource ' .. i .. ' is not a string')
  end
  if string.find(e, 'not an integer', 1, true) then
    return redis.error_reply('ERR the fence counter of resource ' .. i .. ' is not an integer')
  end
  return f
end
local n = #KEYS / 2
for i = 1, n do
  local v = redis.call('GET', KEYS[i])
  if v then return {i, v} end
end
local out = {0}
for i = 1, n do
  local f = redis.pcall('INCR', KEYS[n + i])
  if type(f) == 'table' then return refused(f, i) end
  out[i + 1] = f
end
for i = 1, n do
  redis.call('SET', KEYS[i], ARGV[1], 'PX', ARGV[2])
end
return out`;
const FENCED_ACQUIRE_SCRIPT = rawScript(FENCED_ACQUIRE);

/**
 * Set-if-greater on every counter: a node paused with this queued runs it late, after
 * later acquisitions may have raised the counter further, and must not lower it.
 */
const RAISE = `
for i = 1, #KEYS do
  local c = redis.call('GET', KEYS[i])
  local want = tonumber(ARGV[i])
  if not c or (tonumber(c) or 0) < want then redis.call('SET', KEYS[i], ARGV[i]) end
end
return 1`;

/**
 * The storage side: a hash { fence, value } written only when the caller's fence is not
 * lower than the highest one it has accepted. Equal passes: only one holder ever gets a
 * given fence, and it may write more than once. {written 0|1, the fence stored before}.
 */
const FENCED_WRITE = `
local last = tonumber(redis.call('HGET', KEYS[1], 'fence') or '0') or 0
local fence = tonumber(ARGV[1])
if fence < last then return {0, last} end
redis.call('HSET', KEYS[1], 'fence', ARGV[1], 'value', ARGV[2])
return {1, last}`;

interface FencingCommands {
  rliRaiseFences(numKeys: number, ...args: Key[]): Promise<number>;
  rliFencedWrite(numKeys: number, ...args: Key[]): Promise<[number, number]>;
}

const FENCE_SCRIPTS = { rliRaiseFences: { lua: RAISE }, rliFencedWrite: { lua: FENCED_WRITE } };

function fencingCommands(client: Redis | Cluster): FencingCommands {
  return defineOnce<FencingCommands>(client, FENCE_SCRIPTS);
}

/** The counter of `resource`, in its cluster slot; bytes of a Buffer resource kept as they are. */
export function fenceKeyOf(resource: Key): Key {
  if (typeof resource === 'string') return internalKey('fence', resource);
  // latin1 maps bytes to code units one to one, and the `{`/`}` a hash tag needs are ASCII.
  return Buffer.from(internalKey('fence', resource.toString('latin1')), 'latin1');
}

export type RaiseResult = { ok: true; fences: number[] } | { ok: false; failures: NodeAttempt[] };

/**
 * One fenced acquisition attempt: the grant on every node, then the raise. `grant` hands
 * the round a plain 0 for a grant (what the unfenced path answers), keeping the fences
 * on the side, so the round's accounting is the same for both.
 */
export class FenceRound {
  /** Per node (configuration order): the counters a grant returned, one per resource. */
  private readonly granted: Array<number[] | undefined>;
  private readonly counterKeys: Key[];
  /** Set once a quorum holds the fences: grants that answer later are raised to them. */
  private final: number[] | undefined;
  /** Per node: its grant has answered, whatever the answer. */
  private readonly answered: boolean[];

  constructor(private readonly nodes: readonly RedisNode[], private readonly keys: readonly Key[]) {
    this.granted = new Array(nodes.length);
    this.answered = new Array(nodes.length).fill(false);
    this.counterKeys = keys.map(fenceKeyOf);
  }

  grant(node: RedisNode, token: string, px: string): Promise<unknown> {
    const i = this.nodes.indexOf(node);
    if (this.keys.length === 1) return this.grantOne(node, i, token, px);
    return fencedAcquireOn(node.client, this.keys, this.counterKeys, token, px).then(
      (reply) => {
        this.answered[i] = true;
        if (!Array.isArray(reply) || reply[0] !== 0) {
          this.late(i);
          return reply;
        }
        const fences = (reply as number[]).slice(1).map(Number);
        this.granted[i] = fences;
        this.late(i);
        return 0;
      },
      (e: unknown) => this.grantFailed(i, e),
    );
  }

  /**
   * One resource: an `INCR` of the counter and the plain `SET NX PX`, sent together: for a
   * lone caller without a script (a script call costs the node several times a SET),
   * beside other callers in the tick's batch (writeBatch.ts). The INCR runs
   * whether or not the SET was granted: a refused attempt only skips a number, and the
   * argument for monotonic fences holds for any increments (docs/fencing.md). A granted
   * SET whose INCR was refused is taken back and reported as that node's refusal.
   */
  private grantOne(node: RedisNode, i: number, token: string, px: string): Promise<unknown> {
    const client = node.client;
    const [counted, granted] = fencedGrantOn(client, this.counterKeys[0], this.keys[0], token, px);
    const incr = counted.then(
      (v) => v,
      (e: unknown) => counterRefusal(e),
    );
    return granted.then(
      async (reply) => {
        const f = await incr;
        this.answered[i] = true;
        if (reply !== 'OK') {
          this.late(i);
          return reply;
        }
        if (f instanceof Error) {
          void releaseKeysOn(client, this.keys, token).catch(() => undefined);
          this.late(i);
          throw f;
        }
        this.granted[i] = [f];
        this.late(i);
        return 0;
      },
      (e: unknown) => this.grantFailed(i, e),
    );
  }

  /** A grant that failed (refused, or no reply in time) still ends that node's answer. */
  private grantFailed(i: number, e: unknown): never {
    this.answered[i] = true;
    this.late(i);
    throw e;
  }

  /** A node that answers once the fences are known is raised to them if it lags. */
  private late(i: number): void {
    const f = this.final;
    if (!f) return;
    const g = this.granted[i];
    if (!g || lags(g, f)) void this.raiseOn(this.nodes[i], f).catch(() => undefined);
  }

  private raiseOn(node: RedisNode, fences: readonly number[]): Promise<number> {
    node.cork();
    return fencingCommands(node.client).rliRaiseFences(this.counterKeys.length, ...this.counterKeys, ...fences.map(String));
  }

  /**
   * After a quorum granted: f = the highest counter per resource among the grants so far;
   * nodes already at f hold it, the others are raised until a quorum holds it (within
   * `deadlineMs`, the per-node deadline capped by the validity left). One round when the
   * grants agree.
   */
  async raise(quorum: number, deadlineMs: number): Promise<RaiseResult> {
    const fences = this.keys.map((_, r) => {
      let max = 0;
      for (const g of this.granted) if (g && g[r] > max) max = g[r];
      return max;
    });
    const lagging: number[] = [];
    let holding = 0;
    this.granted.forEach((g, i) => {
      if (!g) return;
      if (lags(g, fences)) lagging.push(i);
      else holding++;
    });
    if (holding >= quorum) return this.commit(fences);
    const failures: NodeAttempt[] = [];
    const ms = Math.max(1, Math.floor(deadlineMs));
    const enough = await new Promise<boolean>((resolve) => {
      let open = lagging.length;
      for (const i of lagging) {
        const node = this.nodes[i];
        withDeadline(this.raiseOn(node, fences), ms).then(
          () => {
            holding++;
            if (holding >= quorum) resolve(true);
            if (--open === 0) resolve(holding >= quorum);
          },
          (e: unknown) => {
            const f = describeFailure(e, node);
            failures.push({ node: node.id, outcome: f.outcome, reason: `fence raise: ${f.reason}`, ...(f.answered ? { answered: true } : {}) });
            if (--open === 0) resolve(holding >= quorum);
          },
        );
      }
    });
    return enough ? this.commit(fences) : { ok: false, failures };
  }

  /**
   * A quorum holds the fences: the lock may be used. The nodes that did not grant are
   * raised too, in the background (now, or when they answer: `late`): the more nodes
   * hold the last fence, the more of them may lose their data (a restart without
   * persistence) before the next acquisition can miss it (docs/fencing.md).
   */
  private commit(fences: number[]): RaiseResult {
    this.final = fences;
    for (let i = 0; i < this.nodes.length; i++) {
      if (this.answered[i] && !this.granted[i]) void this.raiseOn(this.nodes[i], fences).catch(() => undefined);
    }
    return { ok: true, fences };
  }
}

/**
 * The fenced grant of several resources, sent like the plain release (callScript): Buffer
 * replies keep a binary holder token intact.
 */
function fencedAcquireOn(client: Redis | Cluster, keys: readonly Key[], counters: readonly Key[], token: string, px: string): Promise<unknown> {
  // A grant: never resent out of order.
  return callScript(client, FENCED_ACQUIRE_SCRIPT, keys.length * 2, [...keys, ...counters, token, px], false, true);
}

/** A refused INCR of a counter, worded as the counter's problem (the node's answer stays a reply). */
function counterRefusal(e: unknown): Error {
  if (!(e instanceof Error)) return new Error(String(e));
  if (/^WRONGTYPE/.test(e.message)) return new ReplyError('WRONGTYPE the fence counter of resource 1 is not a string');
  if (/not an integer/.test(e.message)) return new ReplyError('ERR the fence counter of resource 1 is not an integer');
  return e;
}

function lags(have: readonly number[], want: readonly number[]): boolean {
  for (let r = 0; r < want.length; r++) if (have[r] < want[r]) return true;
  return false;
}

/** Replaces the granted answer of nodes whose raise failed, for the RedlockError. */
export function withRaiseFailures(attempts: NodeAttempt[], failures: readonly NodeAttempt[]): NodeAttempt[] {
  return attempts.map((a) => failures.find((f) => f.node === a.node) ?? a);
}

export interface FencedWriteResult {
  /** The store accepted the value. */
  written: boolean;
  /** The highest fence the store had accepted before this call (0 when none). */
  lastFence: number;
}

function validateFence(fence: number): void {
  if (!Number.isSafeInteger(fence) || fence < 1) throw new RangeError(`invalid fence ${String(fence)}: a positive integer (lock.fence of a lock taken with { fencing: true })`);
}

/**
 * A storage that checks fences, on Redis itself: writes `value` to the hash `key` only if
 * `fence` is not lower than the highest fence it has accepted. A holder paused past its
 * lease comes back with an older fence than the next holder's, and its write is refused.
 */
export async function fencedWrite(client: Redis | Cluster, key: Key, fence: number, value: string | Buffer): Promise<FencedWriteResult> {
  validateFence(fence);
  const [written, last] = await fencingCommands(client).rliFencedWrite(1, key, String(fence), value);
  return { written: Number(written) === 1, lastFence: Number(last) };
}

/** What a fenced store holds: the last accepted fence and value, or null when never written. */
export async function readFenced(client: Redis | Cluster, key: Key): Promise<{ fence: number; value: string } | null> {
  const [fence, value] = await client.hmget(key, 'fence', 'value');
  if (fence === null) return null;
  return { fence: Number(fence), value: value ?? '' };
}
