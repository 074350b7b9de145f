// The per-node table: each node's token (with a copy button), its TTL as a bar and a
// countdown, the lock's format there and the newest change seen on it.
import { formatDuration } from '../src/core/vocabulary/describe';
import type { LockEntry, Observation } from '../src/core/vocabulary/types';
import type { HistoryEvent } from '../src/shared/protocol';
import { failedCopyText } from '../src/shared/failedCopyText';
import { describeEvent, describeFormat } from '../src/shared/verdictSentence';
import { clear, el, setAttr, setText } from './dom';
import { panel, post } from './panelState';

const COLUMNS = ['Node', 'Token', 'TTL', 'Format', 'Last change'];
const table = el('vscode-table', { id: 'nodes', 'zebra': true, 'bordered-rows': true, 'aria-labelledby': 'nodes-h' });
// The Node column is wide enough for host:port; what does not fit is clipped from the
// start (panel.css), so the distinguishing port stays visible.
const COLUMN_WIDTHS = ['22%', '30%', '18%', '12%', '18%'];
/** vscode-table sizes the header and the first body row when columns are set: again after rows change. */
const sizeColumns = (): void => {
  (table as unknown as { columns: string[] }).columns = COLUMN_WIDTHS;
};
sizeColumns();
const thead = el('vscode-table-header', { slot: 'header' });
for (const c of COLUMNS) thead.appendChild(el('vscode-table-header-cell', {}, c));
const tbody = el('vscode-table-body', { slot: 'body', id: 'rows' });
table.append(thead, tbody);
export const nodesSection = el('section', { class: 'nodes', 'aria-labelledby': 'nodes-h' });
nodesSection.append(el('h2', { id: 'nodes-h' }, 'Nodes'), table);


/** Per node: the token its TTL bar scales to, and the longest TTL seen for it. */
const ttlScale = new Map<string, { token: string; max: number }>();

interface RowRefs {
  row: HTMLElement;
  token: HTMLElement;
  copy: HTMLElement;
  ttlFill: HTMLElement;
  ttlText: HTMLElement;
  meter: HTMLElement;
  format: HTMLElement;
  change: HTMLElement;
}
const rows = new Map<string, RowRefs>();

function buildRows(nodes: string[]): void {
  clear(tbody);
  rows.clear();
  for (const node of nodes) {
    const row = el('vscode-table-row', { class: 'node-row', 'data-node': node });
    const nodeCell = el('vscode-table-cell', { class: 'node', title: node });
    nodeCell.appendChild(el('span', { class: 'node-id' }, node));
    const tokenCell = el('vscode-table-cell', { class: 'token-cell' });
    const tokenWrap = el('div', { class: 'token-wrap' });
    const token = el('code', { class: 'token' });
    const copy = el('vscode-button', { class: 'copy', icon: 'copy', 'icon-only': true, secondary: true, title: `Copy the token held on ${node}`, 'aria-label': `Copy the token held on ${node}` });
    copy.addEventListener('click', () => {
      if (panel.key !== null) post({ type: 'copyToken', key: panel.key, node });
    });
    tokenWrap.append(token, copy);
    tokenCell.appendChild(tokenWrap);
    const ttlCell = el('vscode-table-cell', { class: 'ttl-cell' });
    const ttlWrap = el('div', { class: 'ttl-wrap' });
    const meter = el('div', { class: 'ttl-bar', role: 'meter', 'aria-valuemin': 0, 'aria-valuemax': 1, 'aria-valuenow': 0, 'aria-label': `TTL on ${node}` });
    const ttlFill = el('div', { class: 'ttl-fill' });
    meter.appendChild(ttlFill);
    const ttlText = el('span', { class: 'ttl-text' });
    ttlWrap.append(meter, ttlText);
    ttlCell.appendChild(ttlWrap);
    const format = el('vscode-table-cell', { class: 'format' });
    const change = el('vscode-table-cell', { class: 'last-change' });
    row.append(nodeCell, tokenCell, ttlCell, format, change);
    tbody.appendChild(row);
    rows.set(node, { row, token, copy, ttlFill, ttlText, meter, format, change });
  }
  requestAnimationFrame(sizeColumns);
}

function observationText(o: Observation | undefined): string {
  if (!o) return '—';
  switch (o.state) {
    case 'present':
      return o.token ?? '';
    case 'absent':
      return '— (absent)';
    default:
      return failedCopyText(o);
  }
}

function updateRows(entry: LockEntry | null, nodes: string[]): void {
  const byNode = new Map((entry?.nodes ?? []).map((o) => [o.node, o]));
  for (const node of nodes) {
    const r = rows.get(node);
    if (!r) continue;
    const o = byNode.get(node);
    const present = o?.state === 'present';
    const shown = observationText(o);
    setText(r.token, shown);
    // One line with an ellipsis (panel.css); the whole text on hover, and the copy button.
    setAttr(r.token, 'title', shown);
    const cls = `token state-${o?.state ?? 'absent'}`;
    if (r.token.className !== cls) r.token.className = cls;
    setAttr(r.token, 'data-colour', present ? String(panel.ring.colourOf(o.token ?? '')) : null);
    const copyable = present || o?.state === 'unreachable' || o?.state === 'unreadable';
    // Hidden but keeping its room: a row without a copy button is as high as one with it.
    setAttr(r.copy, 'data-off', copyable ? null : '');
    const copyLabel = present ? `Copy the token held on ${node}` : `Copy the error of ${node}`;
    setAttr(r.copy, 'title', copyLabel);
    setAttr(r.copy, 'aria-label', copyLabel);
    setText(r.format, o && present ? describeFormat(o) : '');
    setAttr(r.row, 'data-state', o?.state ?? 'absent');
    // The bar's full width: the longest TTL seen for this node's current token.
    if (present && o.pttlMs !== null && o.pttlMs >= 0) {
      const s = ttlScale.get(node);
      if (!s || s.token !== o.token) ttlScale.set(node, { token: o.token ?? '', max: Math.max(1, o.pttlMs) });
      else s.max = Math.max(s.max, o.pttlMs);
    } else ttlScale.delete(node);
  }
}

export function tickRows(aged: LockEntry | null, nodes: string[], now: number): void {
  const byNode = new Map((aged?.nodes ?? []).map((o) => [o.node, o]));
  for (const node of nodes) {
    const r = rows.get(node);
    if (!r) continue;
    const o = byNode.get(node);
    let fraction = 0;
    let text = '';
    if (o?.state === 'present') {
      if (o.pttlMs === null) text = 'TTL ?';
      else if (o.pttlMs < 0) {
        fraction = 1;
        text = 'no TTL';
      } else {
        const max = ttlScale.get(node)?.max ?? Math.max(1, o.pttlMs);
        fraction = Math.min(1, o.pttlMs / max);
        text = o.pttlMs === 0 ? 'expired' : formatDuration(o.pttlMs);
      }
    }
    r.ttlFill.style.transform = `scaleX(${fraction.toFixed(4)})`;
    r.ttlFill.classList.toggle('no-ttl', o?.state === 'present' && o.pttlMs !== null && o.pttlMs < 0);
    r.ttlFill.classList.toggle('low', fraction > 0 && fraction < 0.2);
    setText(r.ttlText, text);
    setAttr(r.meter, 'aria-valuenow', fraction.toFixed(2));
    setAttr(r.meter, 'aria-valuetext', text || 'no copy');
    // Last change: the newest history event on this node.
    let last: HistoryEvent | undefined;
    const history = panel.history;
    for (let i = history.length - 1; i >= 0; i--) if (history[i].nodes.includes(node)) { last = history[i]; break; }
    if (last) {
      setText(r.change, `${ago(now - (last.at + panel.offset))} · ${last.kind.replace('-', ' ')}`);
      setAttr(r.change, 'title', `${new Date(last.at).toISOString()}: ${describeEvent(last)}`);
    } else {
      setText(r.change, '—');
      setAttr(r.change, 'title', null);
    }
  }
}

function ago(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  return `${Math.floor(s / 3600)} h ago`;
}

/** Rows for `nodes`, rebuilt only when the node list changed, then filled from `entry`. */
export function showNodes(entry: LockEntry | null, nodes: string[]): void {
  if (nodes.length !== rows.size || nodes.some((n) => !rows.has(n))) buildRows(nodes);
  updateRows(entry, nodes);
}
