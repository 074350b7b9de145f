// Undoing a failed extend: a leftover copy extended by a huge TTL would outlive
// everything, so each node that extended gets back the expiry it replaced, where nothing
// changed since (RESTORE_EXPIRY in writeScripts.ts).
import type { RedisNode } from '../connection/nodes';
import type { Lock } from './lock';
import { extended, round, Settled } from './round';
import { lockCommands } from './writeScripts';

export async function restoreExpiriesOn(nodes: readonly RedisNode[], lock: Lock, results: ReadonlyArray<Settled<unknown>>, deadlineMs: number): Promise<void> {
  const targets: RedisNode[] = [];
  const args: Array<Array<string | Buffer>> = [];
  nodes.forEach((node, i) => {
    const r = results[i];
    if (!r?.ok || !extended(r.value)) return;
    targets.push(node);
    args.push([...lock.keys, lock.rawToken, ...(r.value as number[]).slice(1).map(String)]);
  });
  if (targets.length === 0) return;
  await round(targets, (node) => lockCommands(node.client).rliRestoreExpiry(lock.keys.length, ...args[targets.indexOf(node)]), deadlineMs).settled;
}
