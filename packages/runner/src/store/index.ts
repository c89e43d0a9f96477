// Thread stores of @baton/runner. Re-exported by the package index; keep exports explicit.
export { createSqliteThreadStore } from './sqlite-store.js';
export type { SqliteThreadStoreOptions } from './sqlite-store.js';
export { createMemoryThreadStore } from './memory-store.js';
export type { MemoryThreadStoreOptions } from './memory-store.js';
export {
  StoreError,
  ThreadNotFoundError,
  RunNotFoundError,
  ThreadBusyError,
  InvalidStoreInputError,
  StoreUnavailableError,
} from './errors.js';
export { mergeStateObjects, RUNNER_CRASHED, TERMINAL_RUN_STATUSES, ACTIVE_RUN_STATUSES } from './rules.js';
// The building blocks of the built-in stores, for other ThreadStore implementations (e.g.
// @baton/queue's Redis store) so they validate input with the same rules and messages.
export {
  ABANDONED_RUN_MESSAGE,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  isPlainObject,
  encodeObject,
  checkId,
  checkStatus,
  checkAuditInput,
  type CheckedAuditInput,
  checkError,
  checkLockOptions,
  checkMergeOptions,
  checkIdempotencyKey,
  assertTransition,
} from './rules.js';
export { LOCK_DEFAULTS, waitForLock } from './lock-wait.js';
export { createHeldLock, type HeldLockOptions } from './held-lock.js';
export { defaultIdGenerator } from './ids.js';
export { checkSuspendedRunInput, MAX_SUSPENDED_STATE_CHARS, MAX_PENDING_APPROVALS, MAX_APPROVAL_ARGUMENTS_CHARS } from './suspended-runs.js';
export type { SuspendedRunMethods } from './suspended-runs.js';
export type { StoreIdKind } from './ids.js';
export { RUN_STATUSES } from './types.js';
export type {
  RunStatus,
  JsonObject,
  ThreadRecord,
  RunRecord,
  ThreadItem,
  AuditRecord,
  CreateRunInput,
  UpdateRunInput,
  ThreadLock,
  AcquireLockOptions,
  ThreadStore,
  StoreWrite,
  MergeStateOptions,
  PendingApproval,
  SuspendedRun,
  SaveSuspendedRunInput,
} from './types.js';
