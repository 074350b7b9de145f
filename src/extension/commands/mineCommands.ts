// Extend and release: only for locks acquired in this window (the core works on the
// Lock it handed out, never on a token typed back in).
import * as vscode from 'vscode';
import type { Lock, ReleaseResult } from '../../core';
import { field, isNumber, keyOf } from '../commandArgs';
import { reportFailure } from '../failures';
import { printable } from '../markdown';
import type { Services } from '../services';
import { noRedlock, withProgress, type Failed, type LockResult } from './common';
import { refuseIfReadOnly, type Refused } from './readOnly';

function mineOrRefuse(s: Services, arg: unknown, verb: string): { key: string; lock?: Lock; stop?: () => Promise<void> } | Failed {
  const key = keyOf(arg);
  const mine = key === undefined ? undefined : s.mine.get(key);
  if (!key || !mine) {
    const error = `${verb}: ${key === undefined ? 'no lock given' : `${printable(key)} was not acquired in this window`} (only locks taken here can be ${verb === 'extend' ? 'extended' : 'released'}; use Force Release for others)`;
    void vscode.window.showWarningMessage(`Redlock: ${error}`);
    return { error };
  }
  return mine;
}

export async function extend(s: Services, arg?: unknown): Promise<LockResult | Refused | Failed | undefined> {
  const refused = refuseIfReadOnly(s.log, 'extend');
  if (refused) return refused;
  const mine = mineOrRefuse(s, arg, 'extend');
  if ('error' in mine) return mine;
  if (!mine.lock) {
    const error = `extend: ${printable(mine.key)} is already auto-extended`;
    void vscode.window.showInformationMessage(`Redlock: ${error}.`);
    return { error };
  }
  const ttlMs = field(arg, 'ttlMs', isNumber) ?? mine.lock.ttlMs;
  const redlock = await s.model.redlock();
  if (!redlock) return noRedlock(s);
  const lock = mine.lock;
  try {
    const longer = await withProgress(`Extending ${printable(mine.key)}…`, () => redlock.extend(lock, ttlMs));
    s.mine.set({ key: mine.key, lock: longer });
    s.log.info(`extended ${printable(mine.key)} by ${ttlMs} ms (validity ${longer.validityMs} ms)`);
    await s.model.refresh();
    return { key: mine.key, token: longer.token, validityMs: longer.validityMs };
  } catch (e) {
    return { error: reportFailure(s.log, `extend ${printable(mine.key)}`, e) };
  }
}

export async function release(s: Services, arg?: unknown): Promise<ReleaseResult | { key: string; autoExtend: true } | Refused | Failed | undefined> {
  const refused = refuseIfReadOnly(s.log, 'release');
  if (refused) return refused;
  const mine = mineOrRefuse(s, arg, 'release');
  if ('error' in mine) return mine;
  try {
    if (mine.stop) {
      await withProgress(`Releasing ${printable(mine.key)}…`, mine.stop);
      s.mine.delete(mine.key);
      s.log.info(`released auto-extended ${printable(mine.key)}`);
      await s.model.refresh();
      return { key: mine.key, autoExtend: true };
    }
    const redlock = await s.model.redlock();
    if (!redlock) return noRedlock(s);
    const lock = mine.lock!;
    const result = await withProgress(`Releasing ${printable(mine.key)}…`, () => redlock.release(lock));
    s.mine.delete(mine.key);
    const summary = result.nodes.map((n) => `${n.node}: ${n.outcome}${n.reason ? ` (${n.reason})` : ''}`).join('; ');
    s.log.info(`released ${printable(mine.key)}: ${summary}`);
    const released = result.nodes.filter((n) => n.outcome === 'released').length;
    const show = released >= Math.floor(result.nodes.length / 2) + 1 ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
    void show(`Redlock: released ${printable(mine.key)} on ${released} of ${result.nodes.length} nodes. ${summary}`);
    await s.model.refresh();
    return result;
  } catch (e) {
    return { error: reportFailure(s.log, `release ${printable(mine.key)}`, e) };
  }
}
