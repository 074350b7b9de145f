// What the panel knows, in one place every room reads: the lock shown, the last view the
// host sent, the clock offset, the event history and the timeline's samples. Rooms change
// it only through applyView/appendEvents in messages.ts, so no room holds its own copy.
import type { HistoryEvent, LockView, PanelFinding, WebviewMessage } from '../src/shared/protocol';
import { SampleRing } from './timeline';

interface VsCodeApi {
  postMessage(message: WebviewMessage): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

/** History kept, and shown: older events fall off the end. */
export const MAX_HISTORY = 1000;
export const HISTORY_SHOWN = 500;

export const vscodeApi = acquireVsCodeApi();
export const post = (m: WebviewMessage): void => vscodeApi.postMessage(m);

export const panel = {
  key: null as string | null,
  view: null as LockView | null,
  /** Local clock minus the host's (host times + offset = local times). */
  offset: 0,
  history: [] as HistoryEvent[],
  /** The audit's findings on this lock, host clock (the chart marks them where they happened). */
  findings: [] as PanelFinding[],
  ring: new SampleRing(),
};
