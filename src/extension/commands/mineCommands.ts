// Extend and release. Release only for locks acquired in this window; extend also for a
// foreign lock, by compare-and-set on the token the user sees, after a modal confirmation.
import * as vscode from 'vscode';
import { parseKeyArg, quorumOf, quorumTokenOf, type Lock, type ReleaseResult } from '../../core';
import { field, isBoolean, isNumber, keyOf } from '../commandArgs';
import { rowToken } from '../lockText';
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
  const key = keyOf(arg);
  if (key !== undefined && !s.mine.get(key)) return extendForeign(s, key, arg);
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

/** Extends another client's lock: only the quorum token the user sees, only where it still is. */
async function extendForeign(s: Services, key: string, arg: unknown): Promise<LockResult | Failed | undefined> {
  const entry = s.model.entry(key);
  const token = entry ? quorumTokenOf(entry) : null;
  if (!entry || token === null) {
    const error = `extend: ${printable(key)} has no holder with a quorum in the current snapshot (nothing to extend)`;
    void vscode.window.showWarningMessage(`Redlock: ${error}`);
    return { error };
  }
  let ttlMs = field(arg, 'ttlMs', isNumber);
  if (ttlMs === undefined) {
    const text = await vscode.window.showInputBox({
      title: `Extend ${printable(key)}`,
      prompt: 'New TTL in milliseconds',
      value: '30000',
      validateInput: (v) => (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 2 ** 31 - 1 ? undefined : 'An integer from 1 to 2147483647'),
    });
    if (text === undefined) return undefined;
    ttlMs = Number(text);
  }
  const confirm = field(arg, 'confirm', isBoolean);
  if (confirm === false) return undefined;
  if (confirm !== true) {
    const where = entry.nodes.map((o) => `${o.node}: ${o.state === 'present' && o.token === token ? 'holds it → PEXPIRE ' + ttlMs + ' ms' : o.state === 'present' ? 'another token → untouched' : o.state + ' → untouched'}`).join('\n');
    const pick = await vscode.window.showWarningMessage(
      `Extend ${printable(key)}, held by ${rowToken(token, 20)} (not taken in this window)?`,
      { modal: true, detail: `${where}\n\nOnly copies that still hold this token are extended.` },
      'Extend',
    );
    if (pick !== 'Extend') return undefined;
  }
  const redlock = await s.model.redlock();
  if (!redlock) return noRedlock(s);
  try {
    const lock = redlock.lockFor(parseKeyArg(entry.key), token, ttlMs);
    const longer = await withProgress(`Extending ${printable(key)}…`, () => redlock.extend(lock, ttlMs!));
    s.log.info(`extended foreign lock ${printable(key)} (token ${rowToken(token, 20)}) to ${ttlMs} ms (validity ${longer.validityMs} ms)`);
    await s.model.refresh();
    return { key, token: longer.token, validityMs: longer.validityMs };
  } catch (e) {
    return { error: reportFailure(s.log, `extend ${printable(key)}`, e) };
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
    const show = released >= quorumOf(result.nodes.length) ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
    void show(`Redlock: released ${printable(mine.key)} on ${released} of ${result.nodes.length} nodes. ${summary}`);
    await s.model.refresh();
    return result;
  } catch (e) {
    return { error: reportFailure(s.log, `release ${printable(mine.key)}`, e) };
  }
}
