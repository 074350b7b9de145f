// Force release: shows every node's holder, then deletes only the copies that still hold
// the token the user saw (compare-and-set in the core), and reports each node.
import * as vscode from 'vscode';
import { sortLocks } from '../../shared/lockOrder';
import { parseKeyArg, type ForceReleaseResult, type LockEntry } from '../../core';
import { field, isBoolean, keyOf } from './commandArgs';
import { reportFailure } from '../words/failures';
import { formatTtl } from '../../core/vocabulary';
import { rowToken } from '../words/lockText';
import { printable } from '../words/markdown';
import type { Services } from '../services';
import { noRedlock, withProgress, type Failed } from './common';
import { refuseWrite, type Refused } from './readOnly';

function plan(entry: LockEntry): string {
  return entry.nodes
    .map((o) => {
      switch (o.state) {
        case 'present':
          return vscode.l10n.t('{0}: holds {1} ({2}) → deleted if it still holds this token', o.node, rowToken(o.token ?? '', 20), formatTtl(o.pttlMs));
        case 'absent':
          return vscode.l10n.t('{0}: absent → untouched', o.node);
        default:
          return o.reason ? vscode.l10n.t('{0}: {1} ({2}) → untouched', o.node, o.state, printable(o.reason)) : vscode.l10n.t('{0}: {1} → untouched', o.node, o.state);
      }
    })
    .join('\n');
}

export async function forceRelease(s: Services, arg?: unknown): Promise<ForceReleaseResult | Refused | Failed | undefined> {
  const refused = await refuseWrite(s, 'force release', arg);
  if (refused) return refused;
  let key = keyOf(arg);
  if (key === undefined) {
    // Worst first, as the tree lists them: a split or a leftover is what one force-releases.
    const keys = sortLocks(s.model.snapshot?.locks ?? []).map((e) => e.key);
    const pick = await vscode.window.showQuickPick(keys.map((k) => ({ label: printable(k), key: k })), { title: vscode.l10n.t('Force Release Lock') });
    if (!pick) return undefined;
    key = pick.key;
  }
  // What the user saw: the compare-and-set below deletes only these copies.
  const entry = s.model.entry(key);
  if (!entry) {
    const error = `force release: ${printable(key)} is not in the current snapshot (refresh first)`;
    void vscode.window.showWarningMessage(vscode.l10n.t('Redlock: force release: {0} is not in the current snapshot (refresh first)', printable(key)));
    return { error };
  }
  const confirm = field(arg, 'confirm', isBoolean);
  if (confirm === false) return undefined;
  if (confirm !== true) {
    const holders = Object.keys(entry.holders).length;
    const action = vscode.l10n.t('Force Release');
    const pick = await vscode.window.showWarningMessage(
      holders === 1
        ? vscode.l10n.t('Force release {0}? Its holder will no longer own it.', printable(key))
        : vscode.l10n.t('Force release {0}? Its {1} holders will no longer own it.', printable(key), holders),
      {
        modal: true,
        detail: `${plan(entry)}\n\n${vscode.l10n.t('A copy that changed hands since this snapshot is left alone. A client that still believes it holds the lock keeps running: only do this for a stuck or abandoned lock.')}`,
      },
      // The first button is the dialog's default (Enter): keeping the lock is the safe one.
      vscode.l10n.t('Keep the Lock'),
      action,
    );
    if (pick !== action) return undefined;
  }
  const redlock = await s.model.redlock();
  if (!redlock) return noRedlock(s);
  const observed = entry.nodes.map((o) => ({ node: o.node, token: o.state === 'present' ? o.token : null, state: o.state, reason: o.reason }));
  try {
    const result = await withProgress(vscode.l10n.t('Force releasing {0}…', printable(key)), () => redlock.forceRelease(parseKeyArg(entry.key), observed));
    s.mine.forget(key);
    const summary = result.nodes.map((n) => `${n.node}: ${n.outcome}${n.reason ? ` (${n.reason})` : ''}`).join('; ');
    s.log.info(`force-released ${printable(key)}: ${summary}`);
    const troubled = result.nodes.some((n) => n.outcome === 'changed' || n.outcome === 'refused' || n.outcome === 'unreachable');
    void (troubled ? vscode.window.showWarningMessage : vscode.window.showInformationMessage)(vscode.l10n.t('Redlock: force release of {0}: {1}', printable(key), summary));
    await s.model.refresh();
    return result;
  } catch (e) {
    return { error: reportFailure(s.log, `force release ${printable(key)}`, e) };
  }
}
