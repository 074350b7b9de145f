// The distinct tokens of one key, named A, B, ... in node order: the CLI's status table,
// its watch lines and the tree's node rows say the same letter for the same holder.
import type { LockEntry } from '../core/vocabulary/types';

/** Short labels for the distinct tokens of one key: A, B, ... then T27, T28, ... */
export function tokenLabels(entry: Pick<LockEntry, 'nodes'>): Map<string, string> {
  const labels = new Map<string, string>();
  for (const o of entry.nodes) {
    if (o.state !== 'present' || o.token === null || labels.has(o.token)) continue;
    const i = labels.size;
    labels.set(o.token, i < 26 ? String.fromCharCode(65 + i) : `T${i + 1}`);
  }
  return labels;
}

/**
 * Theme colours of the tokens, in the order the detail panel's stylesheet gives them
 * (`--tok-0` ... in webview/panel.css): token A is blue and B orange on both surfaces.
 */
export const TOKEN_THEME_COLOURS: readonly string[] = [
  'charts.blue', 'charts.orange', 'charts.purple', 'charts.green', 'charts.yellow', 'charts.red', 'terminal.ansiCyan', 'terminal.ansiMagenta',
];

/** The colour of the i-th distinct token (0 for A). */
export function tokenThemeColour(index: number): string {
  return TOKEN_THEME_COLOURS[index % TOKEN_THEME_COLOURS.length];
}
