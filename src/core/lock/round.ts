// The quorum engine: one call on every node in parallel under one deadline timer, decided
// as soon as the outcome is certain, settled when the last node answers or the deadline
// passes. Every lock operation of Redlock is a round.
import { performance } from 'node:perf_hooks';
import { DeadlineError } from '../connection/deadline';
import { describeFailure, FailureOutcome, lockRounds, RedisNode } from '../connection/nodes';
import { flushWrites } from './writeBatch';

export const now = (): number => performance.now();

export const isGrant = (v: unknown): boolean => v === 'OK' || v === 0;
/** The extend script's success: {1, expiry before, expiry after, ...}. */
export const extended = (v: unknown): boolean => Array.isArray(v) && v[0] === 1;

/** SET NX's nil or the acquire scripts' {index, holder}: that node wrote nothing. */
export function refusedOutright(r: { ok: boolean; value?: unknown } | undefined): boolean {
  return r !== undefined && r.ok && (r.value === null || Array.isArray(r.value));
}

export function countGranted(rs: ReadonlyArray<{ ok: boolean; value?: unknown } | undefined>): number {
  let n = 0;
  for (const r of rs) if (r?.ok && isGrant(r.value)) n++;
  return n;
}

export type Settled<T> = { ok: true; value: T } | { ok: false; outcome: FailureOutcome; reason: string; answered: boolean };

export interface Round<T> {
  /** Resolves when all have answered, at the deadline, or once `decided` says the outcome is certain. */
  decided: Promise<Array<Settled<T> | undefined>>;
  /** Resolves when every node answered or the deadline passed (stragglers included). */
  settled: Promise<Array<Settled<T>>>;
}

/**
 * Runs `call` on every node in parallel under one deadline timer. `batched`: the calls are
 * grants or releases that may join the tick's batch (writeBatch.ts); any other round first
 * writes the batch held on its nodes, so that it lands before it.
 */
export function round<T>(
  nodes: readonly RedisNode[],
  call: (node: RedisNode) => Promise<T>,
  deadlineMs: number,
  decided?: (results: ReadonlyArray<Settled<T> | undefined>, pending: number) => boolean,
  batched = false,
): Round<T> {
  const results: Array<Settled<T> | undefined> = new Array(nodes.length);
  let pending = nodes.length;
  let resolveDecided!: (r: typeof results) => void;
  let resolveSettled!: (r: Array<Settled<T>>) => void;
  const out: Round<T> = {
    decided: new Promise((r) => (resolveDecided = r)),
    settled: new Promise((r) => (resolveSettled = r)),
  };
  let open = true;
  let undecided = true;
  const decide = (): void => {
    if (undecided) {
      undecided = false;
      lockRounds.undecided--;
    }
    resolveDecided(results);
  };
  const finish = (): void => {
    open = false;
    clearTimeout(timer);
    decide();
    resolveSettled(results as Array<Settled<T>>);
  };
  const timer = setTimeout(() => {
    for (let i = 0; i < results.length; i++) {
      if (!results[i]) results[i] = { ok: false, outcome: 'timeout', reason: new DeadlineError(deadlineMs).message, answered: false };
    }
    finish();
  }, deadlineMs);
  const settle = (i: number, r: Settled<T>): void => {
    if (!open) return;
    results[i] = r;
    pending--;
    if (pending === 0) finish();
    else if (undecided && decided?.(results, pending)) decide();
  };
  nodes.forEach((node, i) => {
    let p: Promise<T>;
    try {
      const send = (): Promise<T> => {
        if (!batched) flushWrites(node.client);
        return call(node);
      };
      // A node just (re)connected counts once the server it reaches is known and distinct.
      if (node.identified) {
        node.cork();
        p = send();
      } else p = node.gate(deadlineMs).then(send);
    } catch (e) {
      p = Promise.reject(e);
    }
    node.inflight++;
    p.then(
      (value) => {
        node.settleOne();
        settle(i, { ok: true, value });
      },
      (err) => {
        node.settleOne();
        settle(i, { ok: false, ...describeFailure(err, node) });
      },
    );
  });
  // Counted after this round's own writes: cork() batches with other rounds only.
  lockRounds.undecided++;
  if (nodes.length === 0) finish();
  return out;
}
