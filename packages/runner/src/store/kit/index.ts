// @baton/runner/store-kit: for authors of ThreadStore implementations (e.g. @baton/queue's Redis
// store). The facade does everything every store must do the same way; a backend stores and
// reads. Users of the built-in stores need none of this: they import from `@baton/runner`.
export { createThreadStoreFacade, type ThreadStoreFacadeOptions } from './facade.js';
export type { StoreBackend, NewThread, NewRun, NewLock, LockAttempt, PreparedWrite, WriteResult } from './backend.js';
// The rules the facade applies, for backends that check the same things on their side.
export {
  ABANDONED_RUN_MESSAGE,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  TERMINAL_RUN_STATUSES,
  ACTIVE_RUN_STATUSES,
  RUNNER_CRASHED,
  mergeStateObjects,
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
} from '../rules.js';
export { LOCK_DEFAULTS, waitForLock } from '../lock-wait.js';
export { createHeldLock, type HeldLockOptions } from '../held-lock.js';
export { defaultIdGenerator, type StoreIdKind } from '../ids.js';
export {
  StoreError,
  ThreadNotFoundError,
  RunNotFoundError,
  ThreadBusyError,
  InvalidStoreInputError,
  StoreUnavailableError,
  LockLostError,
} from '../errors.js';
// Paused runs (resumable approvals): the input check and limits every store applies.
export {
  assertTakenOnThread,
  checkSuspendedRunInput,
  MAX_SUSPENDED_STATE_CHARS,
  MAX_PENDING_APPROVALS,
  MAX_APPROVAL_ARGUMENTS_CHARS,
  type SuspendedRunMethods,
} from '../suspended-runs.js';
export { withStoreExtension, type StoreExtensionContext, type LockFence } from './extend.js';
