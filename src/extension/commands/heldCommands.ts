// The locks this window holds, reachable without a row: the palette and the status bar pick
// among them, and "Stop extending" ends an auto-extension while the lock stays held.
import * as vscode from 'vscode';
import { formatDuration } from '../../core/vocabulary';
import type { MineLock } from '../model/mineLocks';
import { heldDescription } from '../words/heldText';
import { printable } from '../words/markdown';
import type { Services } from '../services';
import { keyOf } from './commandArgs';
import type { Failed } from './common';

/** Soonest to expire first: the lock about to be lost is the one to act on. */
function soonestFirst(locks: MineLock[]): MineLock[] {
  return [...locks].sort((a, b) => Number(a.extending) - Number(b.extending) || a.lock.remainingMs - b.lock.remainingMs);
}

/** Chooses one of this window's locks; the only one is chosen without asking. */
export async function pickHeld(s: Services, title: string, only: (m: MineLock) => boolean = () => true): Promise<MineLock | undefined> {
  const locks = soonestFirst(s.mine.all().filter(only));
  if (locks.length <= 1) return locks[0];
  const pick = await vscode.window.showQuickPick(
    locks.map((m) => ({ label: printable(m.key), description: heldDescription(m), key: m.key })),
    { title },
  );
  return pick && s.mine.get(pick.key);
}

/** Stops extending a lock kept alive by this window; it stays held until its TTL runs out. */
// Not refused in read-only mode: it writes nothing, it only stops writing.
export async function stopExtending(s: Services, arg?: unknown): Promise<{ key: string; remainingMs: number } | Failed | undefined> {
  const key = keyOf(arg);
  const chosen = key !== undefined ? s.mine.get(key) : await pickHeld(s, vscode.l10n.t('Stop extending which lock?'), (m) => m.extending);
  if (!chosen || !chosen.extending) {
    const error = `stop extending: ${key === undefined ? 'no lock is kept extending by this window' : `${printable(key)} is not kept extending by this window`}`;
    void vscode.window.showInformationMessage(vscode.l10n.t('Redlock: {0}', error));
    return { error };
  }
  const left = s.mine.stopExtending(chosen.key)!;
  const remainingMs = left.lock.remainingMs;
  s.log.info(`stopped extending ${printable(chosen.key)}; it expires in ${remainingMs} ms unless released`);
  void vscode.window.showInformationMessage(vscode.l10n.t('Redlock: stopped extending {0}; it expires in {1} unless you release it.', printable(chosen.key), formatDuration(remainingMs)));
  return { key: chosen.key, remainingMs };
}

/** The status bar's menu: choose a held lock, then what to do with it. */
export async function showHeld(s: Services): Promise<void> {
  const m = await pickHeld(s, vscode.l10n.t('Locks held by this window'));
  if (!m) {
    if (s.mine.all().length === 0) void vscode.window.showInformationMessage(vscode.l10n.t('Redlock: this window holds no lock.'));
    return;
  }
  const actions = [
    { label: vscode.l10n.t('Release'), command: 'redlock.release' },
    ...(m.extending ? [{ label: vscode.l10n.t('Stop extending'), command: 'redlock.stopExtending' }] : [{ label: vscode.l10n.t('Extend'), command: 'redlock.extend' }]),
    { label: vscode.l10n.t('Show in the Locks view'), command: 'redlock.locks.focus' },
  ];
  const action = await vscode.window.showQuickPick(actions, { title: `${printable(m.key)}: ${heldDescription(m)}` });
  if (action) await vscode.commands.executeCommand(action.command, { key: m.key });
}
