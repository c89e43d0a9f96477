/** Every default of @baton/queue, in one place. */
export const QUEUE_DEFAULTS = {
  /** Key prefix of BullMQ's keys (and of the Redis thread store's, by the CLI). */
  prefix: 'baton',
  /** Queue of top-level runs. */
  runsQueue: 'runs',
  /** Delegated subtasks at depth d go to `tasks-d<d>`, so a waiting parent never starves its children. */
  tasksQueuePrefix: 'tasks-d',
  /** Deepest delegation with its own queue (the skills' default maximum depth). */
  maxDepth: 3,
  /** Run jobs one worker process executes at once. */
  concurrency: 4,
  /** Task jobs per depth queue one worker process executes at once. */
  taskConcurrency: 4,
  /** Attempts per job: the first plus retries of infrastructure failures. */
  attempts: 3,
  /** First retry delay, ms (exponential). */
  backoffMs: 500,
  /** How long a worker's hold on a job lives without renewal: a killed worker's job is retried after this. */
  lockDurationMs: 30_000,
  /** How often workers look for jobs whose worker died. */
  stalledIntervalMs: 30_000,
  /** Times a job may be found abandoned (its worker died) before it fails. */
  maxStalledCount: 2,
  /** How long `run()` waits for a worker to finish a job, ms. */
  resultTimeoutMs: 10 * 60_000,
  /** Finished jobs kept for result lookups and idempotent re-adds. */
  keepCompleted: { age: 24 * 3600, count: 10_000 },
  keepFailed: { age: 7 * 24 * 3600 },
  /** Lifetime of a cancellation marker, s. */
  cancelMarkerTtlSeconds: 24 * 3600,
} as const;

/** The BullMQ queue name of delegated subtasks at `depth` (1 = children of a top-level run). */
export function tasksQueueName(depth: number): string {
  return `${QUEUE_DEFAULTS.tasksQueuePrefix}${depth}`;
}
