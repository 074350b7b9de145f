// Acquire: a plain lock held once, or kept alive by redlock.using() until released.
import * as vscode from 'vscode';
import { displayKey, parseKeyArg, validateTtl } from '../../core';
import { globToRegExp } from '../../shared/glob';
import { field, isBoolean, isNumber, isString } from './commandArgs';
import { describeError, reportFailure } from '../words/failures';
import { formatDuration } from '../../core/vocabulary';
import { printable } from '../words/markdown';
import type { Services } from '../services';
import { noRedlock, parseTtlText, validateTtlText, withProgress, type Failed, type LockResult } from './common';
import { refuseWrite, type Refused } from './readOnly';

export async function acquire(s: Services, arg?: unknown): Promise<LockResult | Refused | Failed | undefined> {
  const refused = await refuseWrite(s, 'acquire', arg);
  if (refused) return refused;
  let key = field(arg, 'resource', isString) ?? field(arg, 'key', isString);
  let ttlMs = field(arg, 'ttlMs', isNumber);
  let autoExtend = field(arg, 'autoExtend', isBoolean);
  const prompted = key === undefined;
  key ??= await vscode.window.showInputBox({
    title: vscode.l10n.t('Acquire Lock ({0}/{1})', 1, 3),
    prompt: vscode.l10n.t('Resource (the key to lock)'),
    placeHolder: 'lock:orders:42',
    validateInput: (v) => (v.length === 0 ? vscode.l10n.t('Enter a key name') : undefined),
  });
  if (key === undefined) return undefined;
  if (ttlMs === undefined) {
    const text = await vscode.window.showInputBox({ title: vscode.l10n.t('Acquire Lock ({0}/{1})', 2, 3), prompt: vscode.l10n.t('TTL: milliseconds or a duration (10s, 2m)'), value: '10s', validateInput: validateTtlText });
    if (text === undefined) return undefined;
    ttlMs = parseTtlText(text);
  }
  if (autoExtend === undefined && prompted) {
    const pick = await vscode.window.showQuickPick(
      [
        { label: vscode.l10n.t('Hold once'), description: vscode.l10n.t('expires after {0} unless extended', formatDuration(ttlMs)), auto: false },
        { label: vscode.l10n.t('Keep extending'), description: vscode.l10n.t('extended at half its TTL until you release it or stop extending'), auto: true },
      ],
      { title: vscode.l10n.t('Acquire Lock ({0}/{1})', 3, 3) },
    );
    if (!pick) return undefined;
    autoExtend = pick.auto;
  }
  const redlock = await s.model.redlock();
  if (!redlock) return noRedlock(s);
  // Resources take the display forms, like the CLI: `hex:<hex>` names any bytes.
  const raw = parseKeyArg(key);
  const resource = displayKey(raw);
  const ttl = ttlMs;
  try {
    validateTtl(ttl);
    const result = await withProgress(vscode.l10n.t('Acquiring {0}…', printable(resource)), async (): Promise<LockResult> => {
      const lock = await redlock.acquire(raw, ttl);
      s.mine.add(redlock, resource, lock, autoExtend === true);
      return autoExtend ? { key: resource, token: lock.token, validityMs: lock.validityMs, autoExtend: true } : { key: resource, token: lock.token, validityMs: lock.validityMs };
    });
    s.log.info(`acquired ${printable(resource)} for ${ttl} ms${autoExtend ? ', auto-extending' : ''} (validity ${result.validityMs ?? '?'} ms)`);
    const shown = s.model.settings.keyPatterns.some((p) => globToRegExp(p).test(resource))
      ? ''
      : ` ${vscode.l10n.t('No pattern in redlock.keyPatterns matches it: it is listed under "Held by this window" until released.')}`;
    const acquired = autoExtend ? vscode.l10n.t('Redlock: acquired {0} (auto-extending).', printable(resource)) : vscode.l10n.t('Redlock: acquired {0} for {1}.', printable(resource), formatDuration(ttl));
    void vscode.window.showInformationMessage(`${acquired}${shown}`);
    await s.model.refresh();
    if (!shown) void revealAcquired(s, resource);
    return result;
  } catch (e) {
    return { error: reportFailure(s.log, `acquire ${printable(resource)}`, e) };
  }
}

/** How long the new row may take to appear (a watch read in flight may predate the lock). */
const REVEAL_WITHIN_MS = 5000;

/** Scrolls the Locks view to the row of a lock just acquired and selects it, once it is listed. */
async function revealAcquired(s: Services, key: string): Promise<void> {
  const el = await s.locks.whenListed(key, REVEAL_WITHIN_MS);
  // Hidden by the key filter or the anomalies toggle: nothing to scroll to.
  if (!el) return;
  try {
    await s.locksView.reveal(el, { select: true, focus: false, expand: false });
  } catch (e) {
    s.log.warn(`reveal ${printable(key)}: ${describeError(e)}`);
  }
}
