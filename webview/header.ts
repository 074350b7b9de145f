// The panel's head: the key, the verdict badge and sentence, flags, fence, who holds and
// who waits, a deadlock cycle, and the actions the user may take on this lock.
import { extendable, releasable } from '../src/core/vocabulary/actions';
import type { LockEntry } from '../src/core/vocabulary/types';
import type { ActionKind, LockView } from '../src/shared/protocol';
import { verdictBadge, verdictSentence } from '../src/shared/verdictSentence';
import { lockSeverity } from '../src/shared/severity';
import { cycleText, holderText } from '../src/shared/holderText';
import { livenessText } from '../src/core/vocabulary/liveness';
import { clear, el, setAttr, setText } from './dom';
import { panel, post } from './panelState';

const keyEl = el('h1', { id: 'key', class: 'key' });
const badge = el('vscode-badge', { id: 'badge', class: 'verdict-badge' });
const flagsEl = el('span', { id: 'flags', class: 'flags' });
const fenceEl = el('span', { id: 'fence', class: 'fence', hidden: true });
const verdictEl = el('p', { id: 'verdict', class: 'verdict' }, 'Waiting for the extension…');
const announce = el('div', { id: 'announce', class: 'sr-only', 'aria-live': 'polite', role: 'status' });
// Who holds it and who waits: names come from other processes, always set as text.
const holderEl = el('p', { id: 'holder', class: 'holder', hidden: true });
const waitersEl = el('ul', { id: 'waiters', class: 'waiters', 'aria-label': 'Waiting clients', hidden: true });
const cycleEl = el('p', { id: 'cycle', class: 'cycle', role: 'alert', hidden: true });
const livenessEl = el('p', { id: 'liveness', class: 'liveness', hidden: true });

function actionButton(id: string, label: string, icon: string, kind: ActionKind, secondary: boolean): HTMLElement {
  const b = el('vscode-button', { id, icon, secondary, 'data-action': kind, title: label }, label);
  b.addEventListener('click', () => {
    if (panel.key !== null && panel.view && !panel.view.readOnly) post({ type: 'action', kind, key: panel.key });
  });
  return b;
}
const extendBtn = actionButton('extend', 'Extend', 'history', 'extend', false);
const releaseBtn = actionButton('release', 'Release', 'unlock', 'release', false);
const forceBtn = actionButton('force-release', 'Force Release…', 'trash', 'forceRelease', true);
const actions = el('div', { id: 'actions', class: 'actions', role: 'toolbar', 'aria-label': 'Lock actions', hidden: true });
actions.append(extendBtn, releaseBtn, forceBtn);
const readOnlyNote = el('p', { id: 'read-only-note', class: 'note', hidden: true }, 'Read-only mode: write commands are hidden.');

const titleRow = el('div', { class: 'title-row' });
titleRow.append(keyEl, badge, flagsEl, fenceEl);
export const header = el('header', { class: 'head' });
header.append(titleRow, verdictEl, holderEl, livenessEl, waitersEl, cycleEl, announce, actions, readOnlyNote);

/** The key in the title and the window's title. */
export function showKey(key: string): void {
  setText(keyEl, key);
  document.title = key;
}

/** Before the host's first message: a panel of an unknown protocol says so instead. */
export function showProblem(text: string): void {
  setText(verdictEl, text);
}

let lastVerdict: string | null | undefined;

/** What this view lets the user do (the same rule as the tree's menus, src/core/vocabulary/actions.ts); a verdict change is announced. */
export function applyHeader(v: LockView): void {
  actions.hidden = v.readOnly;
  readOnlyNote.hidden = !v.readOnly;
  extendBtn.hidden = v.entry === null || !extendable(v.entry, v.mine);
  releaseBtn.hidden = !releasable(v.mine) || v.entry === null;
  forceBtn.hidden = v.entry === null;
  const verdict = v.entry ? v.entry.verdict : null;
  if (lastVerdict !== undefined && verdict !== lastVerdict) setText(announce, verdictSentence(v.entry));
  lastVerdict = verdict;
}

let shownFlags = '';
export function tickHeader(aged: LockEntry | null): void {
  setText(verdictEl, verdictSentence(aged));
  setText(badge, aged ? verdictBadge(aged) : 'no copy');
  setAttr(badge, 'data-verdict', aged ? aged.verdict : 'none');
  setAttr(badge, 'data-severity', aged ? lockSeverity(aged) : 'none');
  setAttr(verdictEl, 'data-verdict', aged ? aged.verdict : 'none');
  const flags = aged ? aged.flags.join(' ') : '';
  if (flags !== shownFlags) {
    shownFlags = flags;
    clear(flagsEl);
    for (const f of aged?.flags ?? []) flagsEl.appendChild(el('vscode-badge', { class: 'flag', 'data-flag': f }, f));
  }
  tickFence(aged);
}

/** The highest fence counter of the resource, and the risk of a repeated fence. */
function tickFence(aged: LockEntry | null): void {
  const fence = aged?.fence ?? null;
  fenceEl.hidden = fence === null;
  if (fence === null) return;
  const risk = aged?.fenceRisk === true;
  setText(fenceEl, risk ? `fence ${fence} · fencing risk` : `fence ${fence}`);
  fenceEl.setAttribute('data-risk', String(risk));
  fenceEl.setAttribute('title', risk
    ? `Fewer than ${aged!.quorum} reachable nodes hold fence ${fence}: the next fenced acquisition may get a fence that was already handed out.`
    : `The highest fencing token handed out for this resource; the next fenced acquisition gets a higher one.`);
}

let shownWaiters = '';
export function tickPeople(entry: LockEntry | null, now: number): void {
  const who = entry ? holderText(entry.holder, now - panel.offset) : null;
  holderEl.hidden = who === null;
  setText(holderEl, who === null ? '' : `Held by ${who}`);
  const alive = livenessText(entry?.liveness);
  livenessEl.hidden = alive === null;
  setText(livenessEl, alive ?? '');
  livenessEl.setAttribute('data-verdict', entry?.liveness?.verdict ?? '');
  const waiters = entry?.waiters ?? [];
  const text = waiters.map((w) => (w.reason ? 'unreadable waiter entry' : `${holderText({ ...w }, now - panel.offset)?.replace(/ for /, ', waiting for ') ?? 'unnamed'}`));
  const joined = text.join('\n');
  if (joined !== shownWaiters) {
    shownWaiters = joined;
    clear(waitersEl);
    for (const t of text.slice(0, 50)) waitersEl.appendChild(el('li', {}, t));
    if (text.length > 50) waitersEl.appendChild(el('li', {}, `and ${text.length - 50} more`));
  }
  waitersEl.hidden = text.length === 0;
  const cycle = entry ? cycleText(entry) : null;
  cycleEl.hidden = cycle === null;
  setText(cycleEl, cycle ?? '');
}
