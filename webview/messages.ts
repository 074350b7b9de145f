// The host's messages in, and the panel's saved state across reloads: the only places the
// shared state (panelState.ts) changes. Each room then updates from it.
import {
  PROTOCOL_VERSION, isHistoryEvent,
  type HistoryEvent, type HostMessage, type LockView, type PanelState,
} from '../src/shared/protocol';
import { agedEntryWithCopies } from '../src/shared/verdictSentence';
import type { SavedSamples } from './timeline';
import { MAX_HISTORY, panel, vscodeApi } from './panelState';
import { applyHeader, showKey, showProblem, tickHeader, tickPeople } from './header';
import { showNodes, tickRows } from './nodesTable';
import { appendEvents, renderHistory } from './historyList';
import { scheduleChart } from './timelineView';

interface SavedState extends PanelState {
  history: HistoryEvent[];
  samples: SavedSamples;
}

/** The countdowns: the header's words and every node's bar, aged from the view's read time. */
export function tick(): void {
  const view = panel.view;
  if (!view) return;
  const now = Date.now();
  const aged = view.entry ? agedEntryWithCopies(view.entry, now - (view.readAt + panel.offset), view.expiringThresholdMs) : null;
  tickHeader(aged);
  tickPeople(view.entry, now);
  tickRows(aged, view.nodes, now);
}

let saveTimer: ReturnType<typeof setTimeout> | undefined;
function saveState(): void {
  if (saveTimer !== undefined || panel.key === null) return;
  saveTimer = setTimeout(() => {
    saveTimer = undefined;
    if (panel.key === null) return;
    const state: SavedState = { key: panel.key, history: panel.history.slice(-MAX_HISTORY), samples: panel.ring.save() };
    vscodeApi.setState(state);
  }, 1000);
}

/** After a window reload: the key, its history and its samples, until the host's first message. */
export function restoreState(): void {
  const s = vscodeApi.getState() as Partial<SavedState> | undefined;
  if (!s || typeof s.key !== 'string') return;
  panel.key = s.key;
  showKey(s.key);
  panel.history = Array.isArray(s.history) ? s.history.filter(isHistoryEvent).slice(-MAX_HISTORY) : [];
  panel.ring.restore(s.samples);
  renderHistory();
  scheduleChart();
  // Keep the key in the new state right away: a reload before the next save still restores.
  vscodeApi.setState({ key: panel.key, history: panel.history, samples: panel.ring.save() } satisfies SavedState);
}

function applyView(v: LockView): void {
  const now = Date.now();
  panel.offset = now - v.sentAt;
  panel.view = v;
  panel.key = v.key;
  showKey(v.key);
  panel.ring.push(v.readAt + panel.offset, v.nodes, v.entry ? v.entry.nodes : null);
  showNodes(v.entry, v.nodes);
  applyHeader(v);
  tick();
  scheduleChart();
  saveState();
}

export function onMessage(m: HostMessage): void {
  switch (m.type) {
    case 'init':
      if (m.version !== PROTOCOL_VERSION) {
        showProblem(`This panel does not understand protocol version ${m.version}; reload the window.`);
        return;
      }
      panel.history = m.history.slice(-MAX_HISTORY);
      renderHistory();
      applyView(m);
      return;
    case 'snapshot':
      if (panel.key !== null && m.key !== panel.key && panel.view !== null) return;
      applyView(m);
      return;
    case 'events':
      if (m.key !== panel.key) return;
      appendEvents(m.events);
      tick();
      scheduleChart();
      saveState();
      return;
    case 'findings':
      if (m.key !== panel.key) return;
      panel.findings = m.findings;
      scheduleChart();
      return;
  }
}
