// The lock detail panel's message protocol: the one module both sides import.
// The extension host and the webview each validate what they receive with the guards
// below; a message that fails them is dropped. No `vscode`, no Node, no DOM in here.
import type { Flag, LockEntry, LockFormat, Observation, ObservationState, Verdict } from '../core/vocabulary/types';
import { FLAG_ORDER } from '../core/vocabulary/flags';
import { LIVENESS_VERDICTS } from '../core/vocabulary/liveness';
import { AUDIT_KINDS, type AuditKind } from '../core/vocabulary/audit';

/** Bumped when a message changes shape; the webview ignores an `init` of another version. */
export const PROTOCOL_VERSION = 1;

/** The webview panel's view type (package.json `onWebviewPanel:` activation event). */
export const LOCK_DETAILS_VIEW_TYPE = 'redlock.lockDetails';

export type ActionKind = 'extend' | 'release' | 'forceRelease';
export const ACTION_KINDS: readonly ActionKind[] = ['extend', 'release', 'forceRelease'];

export type HistoryKind =
  | 'acquired'          // a token appeared on nodes that had no copy
  | 'extended'          // a token's expiry moved later on nodes
  | 'released'          // a copy vanished before its TTL ran out
  | 'expired'           // a copy vanished when its TTL ran out
  | 'holder-changed'    // a node's copy now holds another token
  | 'split-detected'    // the verdict became `split`
  | 'verdict-changed'   // any other verdict change (including the key vanishing: `to` null)
  | 'node-unreachable'
  | 'node-back'
  | 'lost'              // recorded by the holder: its lease was lost
  | 'failed';           // recorded by a client: its acquire gave up
export const HISTORY_KINDS: readonly HistoryKind[] = [
  'acquired', 'extended', 'released', 'expired', 'holder-changed', 'split-detected', 'verdict-changed', 'node-unreachable', 'node-back',
  'lost', 'failed',
];

/** One entry of the panel's event history (exported as JSON as is). */
export interface HistoryEvent {
  /** Epoch ms (the extension host's clock) at which the change was seen. */
  at: number;
  kind: HistoryKind;
  /** The nodes the event happened on, in configuration order; empty for verdict events. */
  nodes: string[];
  /** The token acquired / extended / released / expired / now held; null for node and verdict events. */
  token: string | null;
  /** holder-changed: the token before. Otherwise null. */
  previousToken: string | null;
  /** Verdict events: before and after (null: the key had no copy on any node). Otherwise null. */
  from: Verdict | null;
  to: Verdict | null;
  /**
   * Set for an event the locking client recorded on the nodes (`events: true`), which may
   * predate the panel: who did it (`billing-worker (pid 4121)`), or null when unknown.
   * Absent for changes the panel saw itself.
   */
  recordedBy?: string | null;
  /** Recorded `failed` / `lost`: why. */
  reason?: string;
  /** Recorded `acquired` / `failed`: ms from the call's first refused attempt to its grant or give-up. */
  waitMs?: number;
  /** Recorded `acquired` with fencing: the fence handed out. */
  fence?: number;
}

/** What the panel shows of one lock at one read. */
export interface LockView {
  key: string;
  /** Configured node ids in configuration order (also when `entry` is null). */
  nodes: string[];
  /** null: the key is not (or no longer) in the snapshot. */
  entry: LockEntry | null;
  /** Epoch ms (extension host clock) at which `entry` was read; PTTLs count down from here. */
  readAt: number;
  /** Epoch ms (extension host clock) at which this message was sent, to correct clock differences. */
  sentAt: number;
  /** Write commands are refused and hidden. */
  readOnly: boolean;
  /** Acquired in this window: Release applies (Extend and Force Release apply to any held copy). */
  mine: boolean;
  /** Validity below this is `expiring` (redlock.expiringThresholdMs). */
  expiringThresholdMs: number;
}

// Extension -> webview
export interface InitMessage extends LockView {
  type: 'init';
  version: number;
  /** The whole history, oldest first (the webview shows it newest first). */
  history: HistoryEvent[];
}
export interface SnapshotMessage extends LockView {
  type: 'snapshot';
}
export interface EventsMessage {
  type: 'events';
  key: string;
  /** New events, oldest first, to append. */
  events: HistoryEvent[];
}
/** An audit finding on the lock (docs/audit.md), where it happened: the chart marks it there. */
export interface PanelFinding {
  /** Epoch ms, the recording clients' clock (as recorded events). */
  at: number;
  kind: AuditKind;
  /** The audit's sentence: plain text, no key or token in it. */
  detail: string;
  /** Made from what the watch observed, not from recorded events (the detail says so). */
  observed?: true;
}
export interface FindingsMessage {
  type: 'findings';
  key: string;
  /** Every finding of the audited window, oldest first (replaces the ones sent before). */
  findings: PanelFinding[];
}
export type HostMessage = InitMessage | SnapshotMessage | EventsMessage | FindingsMessage;

// Webview -> extension
export interface ReadyMessage {
  type: 'ready';
  version: number;
}
export interface ActionMessage {
  type: 'action';
  kind: ActionKind;
  key: string;
}
export interface ExportHistoryMessage {
  type: 'exportHistory';
  key: string;
}
export interface CopyTokenMessage {
  type: 'copyToken';
  key: string;
  /** The node whose token (or, unreachable / unreadable, whose error) to copy; the host copies what it holds itself. */
  node: string;
}
export type WebviewMessage = ReadyMessage | ActionMessage | ExportHistoryMessage | CopyTokenMessage;

/** What the webview keeps with getState/setState, and the serializer gets back after a reload. */
export interface PanelState {
  key: string;
}

// ---------------------------------------------------------------------------------------
// Validators. Messages cross a process boundary: check every field, accept nothing extra
// that a renderer would trust. Strings are bounded so a hostile page cannot make the host
// allocate without limit.

const MAX_STRING = 1 << 20;
const MAX_NODES = 1024;
const MAX_EVENTS = 100_000;

type Rec = Record<string, unknown>;
export const isObj = (x: unknown): x is Rec => typeof x === 'object' && x !== null && !Array.isArray(x);
export const isStr = (x: unknown): x is string => typeof x === 'string' && x.length <= MAX_STRING;
const isStrOrNull = (x: unknown): x is string | null => x === null || isStr(x);
export const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
const isNumOrNull = (x: unknown): x is number | null => x === null || isNum(x);
const isBool = (x: unknown): x is boolean => typeof x === 'boolean';
const oneOf = <T extends string>(values: readonly T[]) => (x: unknown): x is T => typeof x === 'string' && (values as readonly string[]).includes(x);
export const arrayOf = <T>(x: unknown, item: (v: unknown) => v is T, max: number): x is T[] => Array.isArray(x) && x.length <= max && x.every(item);

const VERDICTS: readonly Verdict[] = ['split', 'held', 'unknown', 'partial'];
const STATES: readonly ObservationState[] = ['present', 'absent', 'unreachable', 'unreadable'];
const FORMATS: readonly LockFormat[] = ['string', 'redisson-lock', 'redisson-rwlock', 'semaphore'];
export const isVerdict = oneOf(VERDICTS);
export const isFlag = oneOf<Flag>(FLAG_ORDER);
export const isActionKind = oneOf(ACTION_KINDS);
export const isHistoryKind = oneOf(HISTORY_KINDS);
const isState = oneOf(STATES);
const isFormat = oneOf(FORMATS);
const isVerdictOrNull = (x: unknown): x is Verdict | null => x === null || isVerdict(x);

export function isObservation(x: unknown): x is Observation {
  return isObj(x) && isStr(x.node) && isState(x.state) && isStrOrNull(x.token) && isNumOrNull(x.pttlMs)
    && isStrOrNull(x.type) && (x.format === null || isFormat(x.format)) && isNumOrNull(x.holdCount) && isStrOrNull(x.reason)
    && (x.holder === undefined || x.holder === null || isPerson(x.holder));
}

/** holders: token -> count; any token string is fine (`__proto__` included: read with own-key checks). */
function isHolders(x: unknown): x is Record<string, number> {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return false;
  const keys = Object.keys(x);
  return keys.length <= MAX_NODES && keys.every((k) => k.length <= MAX_STRING && isNum((x as Rec)[k]));
}

const MAX_WAITERS = 10_000;

/** A holder or waiter: every field null or of its type (names come from other processes). */
function isPerson(x: unknown): x is Rec {
  return isObj(x) && isStrOrNull(x.name) && isStrOrNull(x.host) && isNumOrNull(x.pid) && isNumOrNull(x.since)
    && (x.thread === undefined || isNumOrNull(x.thread)) && (x.reason === undefined || isStr(x.reason));
}

export function isLockEntry(x: unknown): x is LockEntry {
  return isObj(x) && isStr(x.key) && isVerdict(x.verdict) && arrayOf(x.flags, isFlag, FLAG_ORDER.length) && isNumOrNull(x.validityMs)
    && isNum(x.quorum) && isHolders(x.holders) && arrayOf(x.nodes, isObservation, MAX_NODES)
    && (x.holder === undefined || x.holder === null || isPerson(x.holder))
    && (x.waiters === undefined || arrayOf(x.waiters, isPerson, MAX_WAITERS))
    && (x.cycle === undefined || arrayOf(x.cycle, isStr, MAX_WAITERS))
    // Optional on the wire: a panel state saved before fences existed still restores.
    && (x.fence === undefined || isNumOrNull(x.fence)) && (x.fenceRisk === undefined || isBool(x.fenceRisk))
    && (x.liveness === undefined || isLiveness(x.liveness));
}

const LIVENESS = new Set<string>(LIVENESS_VERDICTS);

/** The liveness line's parts: a known verdict, its evidence sentences, a suggestion. */
function isLiveness(x: unknown): boolean {
  return isObj(x) && typeof x.verdict === 'string' && LIVENESS.has(x.verdict) && isStr(x.suggestion)
    && arrayOf(x.evidence, (e): e is unknown => isObj(e) && isStr(e.kind) && isStr(e.says), 8);
}

export function isHistoryEvent(x: unknown): x is HistoryEvent {
  return isObj(x) && isNum(x.at) && isHistoryKind(x.kind) && arrayOf(x.nodes, isStr, MAX_NODES) && isStrOrNull(x.token)
    && isStrOrNull(x.previousToken) && isVerdictOrNull(x.from) && isVerdictOrNull(x.to)
    && (x.recordedBy === undefined || isStrOrNull(x.recordedBy)) && (x.reason === undefined || isStr(x.reason))
    && (x.waitMs === undefined || isNum(x.waitMs)) && (x.fence === undefined || isNum(x.fence));
}

function isLockView(x: Rec): boolean {
  return isStr(x.key) && arrayOf(x.nodes, isStr, MAX_NODES) && (x.entry === null || (isLockEntry(x.entry) && x.entry.key === x.key))
    && isNum(x.readAt) && isNum(x.sentAt) && isBool(x.readOnly) && isBool(x.mine) && isNum(x.expiringThresholdMs);
}

const isAuditKind = oneOf(AUDIT_KINDS);
const isFinding = (x: unknown): x is PanelFinding => isObj(x) && isNum(x.at) && isAuditKind(x.kind) && isStr(x.detail) && (x.observed === undefined || x.observed === true);

/** A message the extension host sent to the webview (checked in the webview). */
export function isHostMessage(x: unknown): x is HostMessage {
  if (!isObj(x)) return false;
  switch (x.type) {
    case 'init':
      return isNum(x.version) && isLockView(x) && arrayOf(x.history, isHistoryEvent, MAX_EVENTS);
    case 'snapshot':
      return isLockView(x);
    case 'events':
      return isStr(x.key) && arrayOf(x.events, isHistoryEvent, MAX_EVENTS);
    case 'findings':
      return isStr(x.key) && arrayOf(x.findings, isFinding, MAX_EVENTS);
    default:
      return false;
  }
}

/** A message the webview posted to the extension host (checked in the host). */
export function isWebviewMessage(x: unknown): x is WebviewMessage {
  if (!isObj(x)) return false;
  switch (x.type) {
    case 'ready':
      return isNum(x.version);
    case 'action':
      return isActionKind(x.kind) && isStr(x.key);
    case 'exportHistory':
      return isStr(x.key);
    case 'copyToken':
      return isStr(x.key) && isStr(x.node);
    default:
      return false;
  }
}

export function isPanelState(x: unknown): x is PanelState {
  return isObj(x) && isStr(x.key);
}
