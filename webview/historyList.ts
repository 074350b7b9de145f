// The event history, newest first: what the panel saw change and what the locking
// clients recorded, with an export of it as JSON.
import type { HistoryEvent } from '../src/shared/protocol';
import { describeEvent } from '../src/shared/verdictSentence';
import { clear, el } from './dom';
import { HISTORY_SHOWN, MAX_HISTORY, panel, post } from './panelState';

const exportBtn = el('vscode-button', { id: 'export-history', icon: 'save', secondary: true, title: 'Export the history as JSON' }, 'Export JSON');
exportBtn.addEventListener('click', () => {
  if (panel.key !== null) post({ type: 'exportHistory', key: panel.key });
});
const historyList = el('ol', { id: 'history', class: 'history', tabindex: 0, 'aria-label': 'Event history, newest first' });
const historyEmpty = el('p', { id: 'history-empty', class: 'note' }, 'No events yet: changes seen while this panel is open appear here, and events the locking clients recorded (new Redlock(nodes, { events: true })).');
const historyHead = el('div', { class: 'section-head' });
historyHead.append(el('h2', { id: 'history-h' }, 'History'), exportBtn);
export const historySection = el('section', { class: 'history-section', 'aria-labelledby': 'history-h' });
historySection.append(historyHead, historyEmpty, historyList);

function historyItem(e: HistoryEvent): HTMLElement {
  const li = el('li', { class: `event k-${e.kind}`, 'data-kind': e.kind });
  const at = new Date(e.at);
  li.appendChild(el('time', { datetime: at.toISOString() }, at.toLocaleTimeString()));
  li.appendChild(el('span', { class: 'kind' }, e.kind.replace('-', ' ')));
  li.appendChild(el('span', { class: 'desc' }, describeEvent(e)));
  const full = [e.previousToken !== null ? `previous token: ${e.previousToken}` : '', e.token !== null ? `token: ${e.token}` : ''].filter(Boolean).join('\n');
  if (full) li.setAttribute('title', full);
  return li;
}

export function renderHistory(): void {
  const history = panel.history;
  clear(historyList);
  const frag = document.createDocumentFragment();
  for (let i = history.length - 1; i >= Math.max(0, history.length - HISTORY_SHOWN); i--) frag.appendChild(historyItem(history[i]));
  historyList.appendChild(frag);
  historyEmpty.hidden = history.length > 0;
}

export function appendEvents(events: HistoryEvent[]): void {
  const history = panel.history;
  history.push(...events);
  if (history.length > MAX_HISTORY) history.splice(0, history.length - MAX_HISTORY);
  // Newest first: each new event goes on top.
  for (const e of events) historyList.insertBefore(historyItem(e), historyList.firstChild);
  while (historyList.childElementCount > HISTORY_SHOWN) historyList.lastElementChild?.remove();
  historyEmpty.hidden = history.length > 0;
}
