import { DEFAULT_LIMITS, LOCK_LEASE_MARGIN_MS } from '@baton/runner';

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
  /**
   * The workers' thread-lock lease, ms, as producers assume it (the Runner's default,
   * `runTimeoutMs` + 10 s): an approvals job's retries wait longer than this.
   */
  lockLeaseMs: (DEFAULT_LIMITS.lockLeaseMs ?? DEFAULT_LIMITS.runTimeoutMs + LOCK_LEASE_MARGIN_MS) as number,
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

/**
 * The retry schedule of an approvals job: every retry waits the workers' lease plus `backoffMs`.
 * A redelivered approvals job whose old worker still held the thread (its lease not run out)
 * waits for the lock only `runTimeoutMs`, 10 s less than the lease, and fails `STORE_THREAD_BUSY`;
 * a retry that comes after the lease finds the thread free and resumes the run (the suspended
 * record stays until a resume commits, so nothing is lost either way).
 */
export function approvalsBackoff(options: { lockLeaseMs: number; backoffMs: number }): { type: 'fixed'; delay: number } {
  return { type: 'fixed', delay: options.lockLeaseMs + options.backoffMs };
}
