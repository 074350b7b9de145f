// Discover Lock Patterns: the core's bounded walk of the whole keyspace (discoverNodes)
// offered as key patterns; the chosen ones are saved to `redlock.keyPatterns`. Reads only
// on the nodes; writes the setting only.
import * as vscode from 'vscode';
import type { DiscoveredPattern } from '../../core';
import { nodesTarget } from '../model/settings';
import { reportFailure } from '../words/failures';
import type { Services } from '../services';

/** Found patterns, remembered for the Locks view's message while nothing matches. */
let lastFound: DiscoveredPattern[] | undefined;

export function lastDiscovered(): readonly DiscoveredPattern[] | undefined {
  return lastFound;
}

/** Locks show again: the next empty view walks afresh. */
export function forgetDiscovered(): void {
  lastFound = undefined;
}

/** A short walk for the empty view's message; resolves the patterns found (none on failure). */
export async function quickDiscover(s: Services): Promise<readonly DiscoveredPattern[]> {
  try {
    const redlock = await s.model.redlock();
    if (!redlock) return [];
    lastFound = (await redlock.discover({ budgetKeys: 5_000, timeBudgetMs: 500 })).patterns;
  } catch {
    lastFound = [];
  }
  return lastFound;
}

export async function discoverPatterns(s: Services): Promise<string[] | undefined> {
  const redlock = await s.model.redlock();
  if (!redlock) return undefined;
  let found;
  try {
    found = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Looking for locks in the keyspace…') }, () => redlock.discover());
  } catch (e) {
    reportFailure(s.log, vscode.l10n.t('Discover Lock Patterns'), e);
    return undefined;
  }
  lastFound = found.patterns;
  const seen = found.complete ? '' : ` ${vscode.l10n.t('(read {0} of {1} keys)', found.scanned, found.keyspace)}`;
  if (found.patterns.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('No lock-shaped keys found.') + seen);
    return [];
  }
  const current = new Set(s.model.settings.keyPatterns);
  const picked = await vscode.window.showQuickPick(
    found.patterns.map((p) => ({ label: p.pattern, description: `${p.count} · ${p.library}`, detail: p.examples.join(', '), picked: !current.has(p.pattern) })),
    { canPickMany: true, title: vscode.l10n.t('Add Key Patterns') + seen },
  );
  if (!picked || picked.length === 0) return undefined;
  const patterns = [...current, ...picked.map((p) => p.label).filter((p) => !current.has(p))];
  await vscode.workspace.getConfiguration('redlock').update('keyPatterns', patterns, nodesTarget());
  return patterns;
}
