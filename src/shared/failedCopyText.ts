// How the detail panel words a node it could not read (`unreachable (timeout)`): the token
// cell shows it and the copy button copies it, so the webview and the host share one wording.
import type { Observation } from '../core/vocabulary/types';

export function failedCopyText(o: Pick<Observation, 'state' | 'reason'>): string {
  return `${o.state}${o.reason ? ` (${o.reason})` : ''}`;
}
