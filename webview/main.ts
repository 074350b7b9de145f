// The lock detail panel, browser side, assembled from its rooms: the header (header.ts),
// the nodes table (nodesTable.ts), the timeline (timelineView.ts, drawn by timeline.ts)
// and the history (historyList.ts), over one shared state (panelState.ts) that only the
// host's messages change (messages.ts). It receives `init` / `snapshot` / `events`
// (validated with the shared protocol's guards) and posts `ready`, `action`, `copyToken`
// and `exportHistory` back. Every key, token, node id and reason goes into the page as
// text, never as markup (dom.ts).
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-table/index.js';
import '@vscode-elements/elements/dist/vscode-table-body/index.js';
import '@vscode-elements/elements/dist/vscode-table-cell/index.js';
import '@vscode-elements/elements/dist/vscode-table-header/index.js';
import '@vscode-elements/elements/dist/vscode-table-header-cell/index.js';
import '@vscode-elements/elements/dist/vscode-table-row/index.js';
import './panel.css';
import { PROTOCOL_VERSION, isHostMessage } from '../src/shared/protocol';
import { clear, el } from './dom';
import { post } from './panelState';
import { header } from './header';
import { nodesSection } from './nodesTable';
import { chartDue, scheduleChart, timelineSection } from './timelineView';
import { historySection } from './historyList';
import { onMessage, restoreState, tick } from './messages';

const app = document.getElementById('app') ?? document.body.appendChild(el('main', { id: 'app' }));
clear(app);
app.removeAttribute('aria-busy');
app.append(header, nodesSection, timelineSection, historySection);

window.addEventListener('message', (ev: MessageEvent) => {
  // Validated on receipt: anything else (another frame, a malformed message) is dropped.
  if (isHostMessage(ev.data)) onMessage(ev.data);
});

// Countdown: text and bars ten times a second; the chart slides once a second (or
// sooner when data arrives), rebuilt in an animation frame.
setInterval(tick, 100);
setInterval(() => {
  if (chartDue()) scheduleChart();
}, 250);
window.addEventListener('resize', scheduleChart);

restoreState();
post({ type: 'ready', version: PROTOCOL_VERSION });
