// Extend and release. Release only for locks acquired in this window; extend also for a
// foreign lock, by compare-and-set on the token the user sees, after a modal confirmation.
import * as vscode from 'vscode';
import { parseKeyArg, quorumOf, quorumTokenOf, type ReleaseResult } from '../../core';
import { formatDuration } from '../../core/vocabulary';
import type { MineLock } from '../model/mineLocks';
import { pickHeld } from './heldCommands';
import { field, isBoolean, isNumber, keyOf } from './commandArgs';
import { rowToken } from '../words/lockText';
import { reportFailure } from '../words/failures';
import { printable } from '../words/markdown';
import type { Services } from '../services';
import { noRedlock, parseTtlText, validateTtlText, withProgress, type Failed, type LockResult } from './common';
import { refuseWrite, type Refused } from './readOnly';

async function mineOrRefuse(s: Services, arg: unknown, verb: 'extend' | 'release'): Promise<MineLock | Failed | undefined> {
  // From the palette or the status bar, with no row: choose among this window's locks.
  if (arg === undefined && s.mine.all().length > 0) return pickHeld(s, verb === 'extend' ? vscode.l10n.t('Extend which lock held by this window?') : vscode.l10n.t('Release which lock held by this window?'));
  const key = keyOf(arg);
  const mine = key === undefined ? undefined : s.mine.get(key);
  if (!key || !mine) {
    const error = `${verb}: ${key === undefined ? 'no lock given' : `${printable(key)} was not acquired in this window`} (only locks taken here can be ${verb === 'extend' ? 'extended' : 'released'}; use Force Release for others)`;
    const why = key === undefined ? vscode.l10n.t('no lock given') : vscode.l10n.t('{0} was not acquired in this window', printable(key));
    void vscode.window.showWarningMessage(
      verb === 'extend'
        ? vscode.l10n.t('Redlock: extend: {0} (only locks taken here can be extended; use Force Release for others)', why)
        : vscode.l10n.t('Redlock: release: {0} (only locks taken here can be released; use Force Release for others)', why),
    );
    return { error };
  }
  return mine;
}

export async function extend(s: Services, arg?: unknown): Promise<LockResult | Refused | Failed | undefined> {
  const refused = await refuseWrite(s, 'extend', arg);
  if (refused) return refused;
  const key = keyOf(arg);
  if (key !== undefined && !s.mine.get(key)) return extendForeign(s, key, arg);
  const mine = await mineOrRefuse(s, arg, 'extend');
  if (!mine || 'error' in mine) return mine;
  if (mine.extending) {
    const error = `extend: ${printable(mine.key)} is already auto-extended`;
    void vscode.window.showInformationMessage(vscode.l10n.t('Redlock: extend: {0} is already auto-extended.', printable(mine.key)));
    return { error };
  }
  const ttlMs = field(arg, 'ttlMs', isNumber) ?? mine.lock.ttlMs;
  try {
    const longer = await withProgress(vscode.l10n.t('Extending {0}…', printable(mine.key)), () => s.mine.extend(mine.key, ttlMs));
    if (!longer) return undefined;
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
    void vscode.window.showWarningMessage(vscode.l10n.t('Redlock: extend: {0} has no holder with a quorum in the current snapshot (nothing to extend)', printable(key)));
    return { error };
  }
  let ttlMs = field(arg, 'ttlMs', isNumber);
  if (ttlMs === undefined) {
    const text = await vscode.window.showInputBox({
      title: vscode.l10n.t('Extend {0}', printable(key)),
      prompt: vscode.l10n.t('New TTL: milliseconds or a duration (10s, 2m)'),
      value: '30s',
      validateInput: validateTtlText,
    });
    if (text === undefined) return undefined;
    ttlMs = parseTtlText(text);
  }
  const confirm = field(arg, 'confirm', isBoolean);
  if (confirm === false) return undefined;
  if (confirm !== true) {
    const where = entry.nodes
      .map((o) =>
        o.state === 'present' && o.token === token
          ? vscode.l10n.t('{0}: holds it → PEXPIRE {1} ms', o.node, String(ttlMs))
          : o.state === 'present'
            ? vscode.l10n.t('{0}: another token → untouched', o.node)
            : vscode.l10n.t('{0}: {1} → untouched', o.node, o.state),
      )
      .join('\n');
    // A lock without TTL never expires; "extending" it gives it one, so it will expire.
    const noTtl = entry.flags.includes('no-ttl');
    const action = noTtl ? vscode.l10n.t('Give It a TTL') : vscode.l10n.t('Extend');
    const pick = await vscode.window.showWarningMessage(
      noTtl
        ? vscode.l10n.t('Give {0}, held by {1} without a TTL, a TTL of {2}? It will then expire unless extended.', printable(key), rowToken(token, 20), formatDuration(ttlMs))
        : vscode.l10n.t('Extend {0}, held by {1} (not taken in this window)?', printable(key), rowToken(token, 20)),
      { modal: true, detail: `${where}\n\n${vscode.l10n.t('Only copies that still hold this token are extended.')}` },
      action,
    );
    if (pick !== action) return undefined;
  }
  const redlock = await s.model.redlock();
  if (!redlock) return noRedlock(s);
  try {
    const lock = redlock.lockFor(parseKeyArg(entry.key), token, ttlMs);
    const longer = await withProgress(vscode.l10n.t('Extending {0}…', printable(key)), () => redlock.extend(lock, ttlMs!));
    s.log.info(`extended foreign lock ${printable(key)} (token ${rowToken(token, 20)}) to ${ttlMs} ms (validity ${longer.validityMs} ms)`);
    await s.model.refresh();
    return { key, token: longer.token, validityMs: longer.validityMs };
  } catch (e) {
    return { error: reportFailure(s.log, `extend ${printable(key)}`, e) };
  }
}

export async function release(s: Services, arg?: unknown): Promise<ReleaseResult | (ReleaseResult & { key: string; autoExtend: true }) | Refused | Failed | undefined> {
  const refused = await refuseWrite(s, 'release', arg);
  if (refused) return refused;
  const mine = await mineOrRefuse(s, arg, 'release');
  if (!mine || 'error' in mine) return mine;
  try {
    const wasExtending = mine.extending;
    // The notification lists every node's final answer, so wait for the stragglers too.
    const result = await withProgress(vscode.l10n.t('Releasing {0}…', printable(mine.key)), () => s.mine.release(mine.key));
    if (!result) return undefined;
    const summary = result.nodes.map((n) => `${n.node}: ${n.outcome}${n.reason ? ` (${n.reason})` : ''}`).join('; ');
    s.log.info(`released ${wasExtending ? 'auto-extended ' : ''}${printable(mine.key)}: ${summary}`);
    const released = result.nodes.filter((n) => n.outcome === 'released').length;
    const show = released >= quorumOf(result.nodes.length) ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
    void show(vscode.l10n.t('Redlock: released {0} on {1} of {2} nodes. {3}', printable(mine.key), released, result.nodes.length, summary));
    await s.model.refresh();
    return wasExtending ? { ...result, key: mine.key, autoExtend: true } : result;
  } catch (e) {
    return { error: reportFailure(s.log, `release ${printable(mine.key)}`, e) };
  }
}
