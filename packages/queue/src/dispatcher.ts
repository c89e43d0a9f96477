import { Queue, QueueEvents, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { trace, type Tracer } from '@opentelemetry/api';
import type { ResponsePackage } from '@baton/manifest';
import { requestCancel } from './cancel.js';
import { blockingOptions, producerConnection, redisOptions, type RedisConnection } from './connection.js';
import { currentJob } from './current-job.js';
import { QUEUE_DEFAULTS, tasksQueueName } from './defaults.js';
import { QueueConfigError, QueueTimeoutError } from './errors.js';
import { jobIdFor } from './job-ids.js';
import type { TaskJobData } from './job-data.js';
import { TRACER_NAME, startEnqueueSpan } from './trace.js';
import { waitForJob } from './wait-for-job.js';

/** A delegated subtask as @baton/skills hands it to a dispatcher, and what it answers: the one contracts, from `@baton/manifest/contracts`. */
import type { DelegatedTask, DelegatedTaskResult } from '@baton/manifest/contracts';
export type { DelegatedTask, DelegatedTaskResult };

/** Options for {@link createQueueDispatcher}. */
export interface QueueDispatcherOptions {
  /** The Redis the workers use. */
  connection: RedisConnection;
  /** BullMQ key prefix (default `baton`). */
  prefix?: string;
  /** Deepest delegation the queues serve (default 3); deeper tasks are refused. */
  maxDepth?: number;
  /** How long a parent waits for a child task, ms (default 10 minutes); the child is then cancelled. */
  resultTimeoutMs?: number;
  /** Attempts per task job: the first plus retries of infrastructure failures (default 3). */
  attempts?: number;
  /** First retry delay, ms (default 500). */
  backoffMs?: number;
  /** OpenTelemetry tracer (default the global `@baton/queue` tracer). */
  tracer?: Tracer;
}

/** Sends `delegate_task` subtasks to the queues; give `dispatch` to `createDelegation({ dispatch })`. */
export interface QueueDispatcher {
  /**
   * Resolves to what the worker's `runDelegated` returned (the job's return value, passed on as
   * it came: the delegation that called `dispatch` validates it), or to a FAILURE of this side's
   * own (depth, timeout) with no decisions.
   */
  dispatch(task: DelegatedTask, options?: { signal?: AbortSignal }): Promise<DelegatedTaskResult>;
  close(): Promise<void>;
}

function failurePackage(code: string, message: string): DelegatedTaskResult {
  const response: ResponsePackage = { status: 'FAILURE', output_payload: {}, log_summary: message, error_report: { code, message } };
  // Nothing ran on a worker, so no boundary decision was made there.
  return { response, guardrail_decisions: [] };
}

/**
 * Delegated subtasks as BullMQ jobs. A task at depth d goes to queue `tasks-d<d>`: a parent
 * waiting for its child holds a slot of another queue than the child needs, so parents can never
 * starve their own children of workers. Inside a worker the task becomes a child of the job
 * being processed (a BullMQ flow), and its job id comes from the parent's idempotency key: a
 * parent retried after a crash re-adds the same child, which BullMQ ignores, and gets the result
 * the child already produced instead of running it again.
 */
export function createQueueDispatcher(options: QueueDispatcherOptions): QueueDispatcher {
  // A bad URL is a configuration error now, not a connection error on the first job.
  redisOptions(options.connection);
  const prefix = options.prefix ?? QUEUE_DEFAULTS.prefix;
  const maxDepth = options.maxDepth ?? QUEUE_DEFAULTS.maxDepth;
  if (!Number.isInteger(maxDepth) || maxDepth < 1 || maxDepth > 16)
    throw new QueueConfigError(`maxDepth must be an integer from 1 to 16, got ${String(maxDepth)}`);
  const resultTimeoutMs = options.resultTimeoutMs ?? QUEUE_DEFAULTS.resultTimeoutMs;
  const tracer = options.tracer ?? trace.getTracer(TRACER_NAME);
  const jobOptions: JobsOptions = {
    attempts: options.attempts ?? QUEUE_DEFAULTS.attempts,
    backoff: { type: 'exponential', delay: options.backoffMs ?? QUEUE_DEFAULTS.backoffMs },
    removeOnComplete: QUEUE_DEFAULTS.keepCompleted,
    removeOnFail: QUEUE_DEFAULTS.keepFailed,
  };
  let producer: Redis | undefined;
  const queues = new Map<number, { queue: Queue; events: QueueEvents }>();
  const queueFor = (depth: number) => {
    let entry = queues.get(depth);
    if (!entry) {
      producer ??= producerConnection(options.connection);
      const name = tasksQueueName(depth);
      entry = {
        queue: new Queue(name, { connection: producer, prefix }),
        events: new QueueEvents(name, { connection: blockingOptions(options.connection), prefix }),
      };
      entry.queue.on('error', () => undefined);
      // Each child being waited for listens for the queue closing: many at once is normal here.
      entry.queue.setMaxListeners(0);
      entry.events.on('error', () => undefined);
      queues.set(depth, entry);
    }
    return entry;
  };

  async function dispatch(task: DelegatedTask, opts: { signal?: AbortSignal } = {}): Promise<DelegatedTaskResult> {
    const depth = task.scope.depth + 1;
    if (depth > maxDepth) {
      return failurePackage('ERR_CONSTRAINT_VIOLATION', `delegation depth ${depth} is deeper than the queues serve (maxDepth ${maxDepth})`);
    }
    const { queue, events } = queueFor(depth);
    const jobId = jobIdFor('task', task.context.idempotencyKey);
    const target = typeof task.args.subagent_type === 'string' ? task.args.subagent_type : '?';
    const { span, carrier } = startEnqueueSpan(
      tracer,
      `${tasksQueueName(depth)} publish`,
      {
        ...(task.context.traceparent ? { traceparent: task.context.traceparent } : {}),
        ...(task.context.tracestate ? { tracestate: task.context.tracestate } : {}),
      },
      {
        'messaging.system': 'bullmq',
        'messaging.operation.type': 'publish',
        'messaging.destination.name': tasksQueueName(depth),
        'messaging.message.id': jobId,
        'baton.subagent': target,
      },
    );
    const data: TaskJobData = { v: 1, kind: 'task', task: { ...task, context: { ...task.context, ...carrier } }, trace: carrier };
    const parent = currentJob.getStore();
    let job;
    try {
      job = await (async () => {
        await events.waitUntilReady();
        return queue.add('task', data, {
          ...jobOptions,
          jobId,
          ...(parent ? { parent: { id: parent.id, queue: parent.queueQualifiedName } } : {}),
        });
      })();
    } finally {
      span.end();
    }
    const onAbort = () => void requestCancel(producer as Redis, prefix, jobId, 'the parent run was cancelled').catch(() => undefined);
    if (opts.signal?.aborted) onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await waitForJob<DelegatedTaskResult>(job, events, resultTimeoutMs);
    } catch (error) {
      if (error instanceof QueueTimeoutError) {
        onAbort();
        return failurePackage(
          'ERR_TIMEOUT',
          `the delegated task to ${target} did not finish within ${resultTimeoutMs} ms on the workers; it was cancelled`,
        );
      }
      throw error;
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
    }
  }

  return {
    dispatch,
    async close() {
      await Promise.allSettled([...queues.values()].flatMap((e) => [e.events.close(), e.queue.close()]));
      queues.clear();
      producer?.disconnect();
    },
  };
}
