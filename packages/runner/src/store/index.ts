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
  LockLostError,
} from './errors.js';
export { mergeStateObjects, RUNNER_CRASHED, TERMINAL_RUN_STATUSES, ACTIVE_RUN_STATUSES } from './rules.js';
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
  CommitAndReleaseOptions,
  WriteBatchOptions,
  MergeStateOptions,
  SaveSuspendedRunOptions,
  TakeSuspendedRunOptions,
  PendingApproval,
  SuspendedRun,
  SaveSuspendedRunInput,
} from './types.js';
