// Public API of @baton/queue. Keep exports explicit.
export const PACKAGE_NAME = '@baton/queue';

export {
  QUEUE_ERROR_CODES,
  type QueueErrorCode,
  QueueError,
  QueueConfigError,
  QueueUnavailableError,
  QueueJobFailedError,
  QueueTimeoutError,
  InvalidJobDataError,
} from './errors.js';
export { QUEUE_DEFAULTS, tasksQueueName } from './defaults.js';
export { redisOptions, redact, type RedisConnection } from './connection.js';
export { createRedisThreadStore, REDIS_STORE_DEFAULTS, type RedisThreadStoreOptions } from './store/index.js';
export { createQueueRunner, type QueueRunner, type QueueRunnerOptions, type EnqueuedRun } from './queue-runner.js';
export {
  createQueueDispatcher,
  type QueueDispatcher,
  type QueueDispatcherOptions,
  type DelegatedTask,
  type DelegatedTaskResult,
} from './dispatcher.js';
export {
  startWorker,
  type BatonWorker,
  type BatonWorkerOptions,
  type TaskExecutor,
  type RunExecutor,
  type WorkerRunExecutor,
  type WorkerJobEvent,
  type QueueLogger,
} from './worker.js';
export { createRedisEditLedger, type RedisEditLedger, type RedisEditLedgerOptions, type EditLedgerEntry } from './edit-ledger.js';
export {
  RunJobDataSchema,
  ApprovalsJobDataSchema,
  TaskJobDataSchema,
  type RunJobData,
  type ApprovalsJobData,
  type ApprovalsJobResult,
  type TaskJobData,
} from './job-data.js';
