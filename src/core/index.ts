// The core's one door: surfaces and the library's users import from here (or, for words
// only, from ./vocabulary). Layers: docs/architecture.md.
export * from './vocabulary';
export { Redlock, Lock, validateTtl } from './lock/redlock';
export type { RedlockOptions, AcquireOptions, Resource, ReleaseResult, ReleaseNode, ForceReleaseResult, ReleaseOutcome, ForceOutcome, ObservedCopy } from './lock/redlock';
export { RedlockError, LockAbortedError } from './lock/errors';
export { UnsupportedWriteError } from './lock/writeSupport';
export type { NodeAttempt, AttemptOutcome } from './lock/errors';
export { RedisNode, createNodes, describeFailure } from './connection/nodes';
export type { NodeInput, NodeSetOptions, FailureOutcome } from './connection/nodes';
export { parseNodeUrl, redactUrl, NodeConfigError } from './connection/urls';
export type { NodeSpec } from './connection/urls';
export { DEFAULT_PATTERNS } from './read/inspect';
export { Watcher, JUMP_TOLERANCE_MS } from './read/watch';
export type { WatchOptions, WatchChange, WatchListener, WatchStatus, WatchSubscription } from './read/watch';
export { INTERNAL_PREFIX, internalKey, isInternalKey, parseInternalKey, hashTagOf } from './bookkeeping/internalKeys';
export type { InternalKind } from './bookkeeping/internalKeys';
export { decodeIdentity, holderOf, PROCESS_ID } from './bookkeeping/holderIdentity';
export type { IdentityMode, IdentityOptions, Identity } from './bookkeeping/holderIdentity';
export type { LockEvent, EventType, EventOptions } from './bookkeeping/events';
export type { History } from './read/history';
export { fencedWrite, readFenced, fenceKeyOf } from './lock/fencing';
export type { FencedWriteResult } from './lock/fencing';
export { readTlsFiles, checkTls, PLAIN_ON_TLS } from './connection/tls';
export type { TlsSettings, TlsFiles } from './connection/tls';
export { keySlot, patternSlot } from './connection/clusterTopology';
export { diagnose } from './doctor/doctor';
export type { Finding, FindingCode, Severity, DoctorReport, DoctorOptions, DiagnoseInput } from './doctor/doctor';
export type { DeploymentFacts, DeniedCommand } from './doctor/deploymentFacts';
