// The all-locks timeline's messages, both directions, and their guards: each side checks
// what it receives and drops what fails. Same rules as the detail panel's protocol.ts.
import { arrayOf, isNum, isObj, isStr } from './protocol';
import { MAX_HOLDS_PER_ROW, MAX_MARKS_PER_ROW, MAX_ROWS, type AllLocksRow } from './allLocksRows';

export const ALL_LOCKS_VIEW_TYPE = 'redlock.allLocks';
export const ALL_LOCKS_PROTOCOL_VERSION = 1;

// Extension -> webview
export interface RowsMessage {
  type: 'rows';
  version: number;
  /** Epoch ms (host clock) the rows end at, and at which this was sent. */
  sentAt: number;
  windowMs: number;
  rows: AllLocksRow[];
  /** Event logs found under the patterns (more than the rows when some did nothing in the window). */
  logs: number;
  /** A budget cut the walk or a node did not answer: some locks may be missing. */
  cut: boolean;
}
export type AllLocksHostMessage = RowsMessage;

// Webview -> extension
export interface AllLocksReady {
  type: 'ready';
  version: number;
}
/** Opens the lock's detail panel. */
export interface OpenLockMessage {
  type: 'open';
  key: string;
}
export type AllLocksWebviewMessage = AllLocksReady | OpenLockMessage;

const isNums = (x: unknown, max: number): x is number[] => arrayOf(x, isNum, max);

function isRow(x: unknown): x is AllLocksRow {
  return isObj(x) && isStr(x.key) && isNums(x.holds, 4 * MAX_HOLDS_PER_ROW) && isNums(x.waits, 2 * MAX_MARKS_PER_ROW)
    && isNums(x.marks, 2 * MAX_MARKS_PER_ROW) && isNum(x.lost) && typeof x.split === 'boolean' && isNum(x.contended)
    && isNum(x.longestMs) && isNum(x.holdCount);
}

export function isAllLocksHostMessage(x: unknown): x is AllLocksHostMessage {
  return isObj(x) && x.type === 'rows' && isNum(x.version) && isNum(x.sentAt) && isNum(x.windowMs)
    && arrayOf(x.rows, isRow, MAX_ROWS) && isNum(x.logs) && typeof x.cut === 'boolean';
}

export function isAllLocksWebviewMessage(x: unknown): x is AllLocksWebviewMessage {
  if (!isObj(x)) return false;
  if (x.type === 'ready') return isNum(x.version);
  return x.type === 'open' && isStr(x.key);
}
