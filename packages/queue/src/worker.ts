import { hostname } from 'node:os';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { errorKindOf, type BatonLogger, type DelegatedTaskResult, type RunExecutor } from '@baton/manifest/contracts';
import type { RunRequest, RunResult, SubmitApprovalsRequest } from '@baton/runner';
import { cancelChannel, isCancelRequested } from './cancel.js';
import { blockingOptions, producerConnection, redisOptions, type RedisConnection } from './connection.js';
import { currentJob } from './current-job.js';
import { QUEUE_DEFAULTS, tasksQueueName } from './defaults.js';
import { QueueConfigError, type InvalidJobDataError } from './errors.js';
import type { DelegatedTask } from './dispatcher.js';
import { parseRunsQueueJobData, parseTaskJobData, type ApprovalsJobData, type ApprovalsJobResult } from './job-data.js';
import { runEventsPublisher } from './run-events.js';
import { TRACER_NAME, startProcessSpan, type JobTrace } from './trace.js';

/**
 * Runs delegated subtasks: `createDelegation(...)` from @baton/skills fits (its `runDelegated`).
 * Its result (the ResponsePackage and the task's boundary decisions) is the job's return value,
 * so the delegating run records the decisions made here.
 */
export interface TaskExecutor {
  runDelegated(task: DelegatedTask, options?: { signal?: AbortSignal }): Promise<DelegatedTaskResult>;
}

/** Something that runs a request (the Baton `Runner` fits): the one contract, from `@baton/manifest/contracts`. */
export type { RunExecutor };

/**
 * The worker's runner: runs, and (when it has `submitApprovals`, as the Baton `Runner` does)
 * decisions for runs paused in `requires_action`.
 */
export interface WorkerRunExecutor extends RunExecutor {
  submitApprovals?(request: SubmitApprovalsRequest): Promise<RunResult>;
}

/** What a worker reports about the jobs it handles (for logs, tests and benchmarks). */
export interface WorkerJobEvent {
  kind: 'run' | 'task' | 'approvals';
  jobId: string;
  /** Which attempt this is (1 first; higher after a crash or an infrastructure failure). */
  attempt: number;
  /** For a delegated subtask: the job that delegated it (its BullMQ flow parent). */
  parentJobId?: string;
  event: 'started' | 'completed' | 'retrying' | 'failed';
  /** The run's or task's status when it completed. */
  status?: string;
  error?: string;
}

/** Minimal structured logger: the one contract, `BatonLogger` (the @baton/tracing logger fits). */
export type QueueLogger = BatonLogger;

/** Options for {@link startWorker}. */
export interface BatonWorkerOptions {
  /** The Redis producers enqueue to. */
  connection: RedisConnection;
  /** BullMQ key prefix (default `baton`). */
  prefix?: string;
  /**
   * Executes run jobs: a Baton `Runner` whose store every worker shares (createRedisThreadStore).
   * Without it this worker takes no run jobs. Its `submitApprovals`, when present, resumes paused runs.
   */
  runner?: WorkerRunExecutor;
  /** Executes delegated subtasks (createDelegation with `dispatch`); without it this worker takes no task jobs. */
  tasks?: TaskExecutor;
  /** Run jobs this process executes at once (default 4). */
  concurrency?: number;
  /** Task jobs per depth queue this process executes at once (default 4). */
  taskConcurrency?: number;
  /** Deepest delegation queue served (default 3; match the dispatchers'). */
  maxDepth?: number;
  /** How long this worker's hold on a job lives without renewal, ms: a killed worker's jobs are retried after about this (default 30000). */
  lockDurationMs?: number;
  /** How often to look for jobs whose worker died, ms (default 30000). */
  stalledIntervalMs?: number;
  /** Times a job may lose its worker before it fails (default 2). */
  maxStalledCount?: number;
  /** Name in logs and events (default `<host>:<pid>`). */
  name?: string;
  /** OpenTelemetry tracer (default the global `@baton/queue` tracer). */
  tracer?: Tracer;
  logger?: QueueLogger;
  /** Called for every job this worker starts, completes, retries or fails. */
  onJobEvent?: (event: WorkerJobEvent) => void;
}

/** A running worker process's share of the queues. */
export interface BatonWorker {
  readonly name: string;
  /** Resolves when every queue is being listened to. */
  ready(): Promise<void>;
  /** Stops taking jobs and waits for the ones in progress to finish (`force`: abandon them; they are retried elsewhere). */
  close(options?: { force?: boolean }): Promise<void>;
}

/**
 * Failed runs whose cause is infrastructure (the store could not be reached, the thread stayed
 * locked): retried with backoff. A run that failed on its own terms (guardrail block, model error,
 * timeout) is a result, not retried: running it again would not change the answer.
 */
const INFRASTRUCTURE_RUN_ERRORS: ReadonlySet<string> = new Set(['STORE_UNAVAILABLE', 'STORE_THREAD_BUSY', 'QUEUE_UNAVAILABLE']);

/**
 * The one rule for a thrown error, by its `kind` (every Baton error has one): `usage` (the
 * request is wrong: no such agent, bad input) and `config` (the setup is wrong: no model, bad
 * options) fail the same way on every attempt, so the job fails at once; `upstream` (the store,
 * Redis, a dependency) and `internal` (anything else) may pass on another attempt and are retried.
 */
function isCallerFault(error: unknown): boolean {
  const kind = errorKindOf(error);
  return kind === 'usage' || kind === 'config';
}

/**
 * A refusal of decisions that asking again cannot change: the caller's fault ({@link isCallerFault}:
 * no such run, already decided, expired, malformed) or a stored approval state this runner will not
 * open (`internal`, but the same on every attempt). Anything else (the store down, the thread busy)
 * is thrown and the job retried.
 */
function isRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return isCallerFault(error) || code.startsWith('APPROVAL_STATE_');
}

/** Rethrows a caller's fault as BullMQ's UnrecoverableError, so the job fails at once (`CODE: message`). */
function unrecoverableIfCallerFault(error: unknown): never {
  if (error instanceof UnrecoverableError || !isCallerFault(error)) throw error;
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  throw new UnrecoverableError(typeof code === 'string' ? `${code}: ${message}` : message);
}

/** How {@link startWorker} handles one kind of job. */
interface JobHandler<T> {
  kind: WorkerJobEvent['kind'];
  queueName: string;
  /** Trace context the producer stored in the job. */
  trace: JobTrace;
  /** Does the work under the worker's span (`trace` is that span's context). */
  execute(signal: AbortSignal, trace: JobTrace): Promise<T>;
  /** The run's or task's status, for events and spans. */
  statusOf(value: T): string;
  /** Why to retry, when the value reports an infrastructure failure rather than a result. */
  retryReason?(value: T): string | undefined;
}

class InfrastructureFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InfrastructureFailure';
  }
}

function positive(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < 1) throw new QueueConfigError(`${name} must be a positive integer, got ${String(value)}`);
  return v;
}

/**
 * Starts taking Baton jobs from the queues: top-level runs with `runner`, delegated subtasks with
 * `tasks`. Any number of workers on any number of machines may share one Redis; each job runs on
 * exactly one at a time, and a job whose worker dies is retried on another.
 */
export function startWorker(options: BatonWorkerOptions): BatonWorker {
  if (!options.runner && !options.tasks)
    throw new QueueConfigError('startWorker needs `runner` (run jobs), `tasks` (delegated subtasks), or both');
  // A bad URL is a configuration error now, not a connection error on the first job.
  redisOptions(options.connection);
  const prefix = options.prefix ?? QUEUE_DEFAULTS.prefix;
  const maxDepth = positive('maxDepth', options.maxDepth, QUEUE_DEFAULTS.maxDepth);
  const lockDuration = positive('lockDurationMs', options.lockDurationMs, QUEUE_DEFAULTS.lockDurationMs);
  const common = {
    prefix,
    lockDuration,
    stalledInterval: positive('stalledIntervalMs', options.stalledIntervalMs, QUEUE_DEFAULTS.stalledIntervalMs),
    maxStalledCount: positive('maxStalledCount', options.maxStalledCount, QUEUE_DEFAULTS.maxStalledCount),
  };
  const name = options.name ?? `${hostname()}:${process.pid}`;
  const tracer = options.tracer ?? trace.getTracer(TRACER_NAME);
  const log = options.logger ?? { info: () => undefined, warn: () => undefined };
  const emit = (event: WorkerJobEvent) => {
    try {
      options.onJobEvent?.(event);
    } catch {
      // An observer's bug must not fail a job.
    }
  };

  const commands: Redis = producerConnection(options.connection);
  const workers: Worker[] = [];

  /** One job, start to end: events, the worker's span, cancellation, infrastructure retries. */
  async function processJob<T>(job: Job, signal: AbortSignal | undefined, handler: JobHandler<T>): Promise<T> {
    const { kind, queueName } = handler;
    const jobId = job.id as string;
    const attempt = job.attemptsStarted || job.attemptsMade + 1;
    const base = { kind, jobId, attempt, ...(job.parent?.id ? { parentJobId: job.parent.id } : {}) };
    emit({ ...base, event: 'started' });
    const { span, carrier: inner } = startProcessSpan(tracer, `${queueName} process`, handler.trace, {
      'messaging.system': 'bullmq',
      'messaging.operation.type': 'process',
      'messaging.destination.name': queueName,
      'messaging.message.id': jobId,
      'baton.queue.attempt': attempt,
      'baton.worker': name,
    });
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();
    try {
      if (await isCancelRequested(commands, prefix, jobId)) controller.abort(new Error('cancelled before it started'));
      const value = await currentJob
        .run({ id: jobId, queueQualifiedName: job.queueQualifiedName }, () => handler.execute(controller.signal, inner))
        .catch(unrecoverableIfCallerFault);
      const retry = handler.retryReason?.(value);
      if (retry) throw new InfrastructureFailure(retry);
      span.setAttribute('baton.status', handler.statusOf(value));
      emit({ ...base, event: 'completed', status: handler.statusOf(value) });
      return value;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      span.setStatus({ code: SpanStatusCode.ERROR, message });
      const final = error instanceof UnrecoverableError || attempt >= (job.opts.attempts ?? 1);
      emit({ ...base, event: final ? 'failed' : 'retrying', error: message });
      log.warn(final ? 'job failed' : 'job failed; it will be retried', { kind, job_id: jobId, attempt, error: message });
      throw error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      span.end();
    }
  }

  if (options.runner) {
    const runner = options.runner;
    const worker = new Worker(
      QUEUE_DEFAULTS.runsQueue,
      async (job, _token, signal) => {
        let data;
        try {
          data = parseRunsQueueJobData(job.data);
        } catch (error) {
          throw new UnrecoverableError((error as InvalidJobDataError).message);
        }
        const events = data.request.events ? eventsOf(job) : undefined;
        if (data.kind === 'approvals') return processJob<ApprovalsJobResult>(job, signal, approvalsHandler(runner, data, events));
        const r = data.request;
        return processJob<RunResult>(job, signal, {
          kind: 'run',
          queueName: QUEUE_DEFAULTS.runsQueue,
          trace: data.trace,
          execute: async (runSignal, trace) => {
            // The in-process-only members of a RunRequest; a RunExecutor that reads less ignores them.
            const local: Pick<RunRequest, 'onEvent' | 'stream'> = {
              ...(events ? { onEvent: events.listener } : {}),
              ...(r.stream ? { stream: true } : {}),
            };
            try {
              return await runner.run({
                agentId: r.agent_id,
                input: r.input,
                threadId: r.thread_id,
                ...(r.agent_version !== undefined ? { agentVersion: r.agent_version } : {}),
                ...(r.auth !== undefined ? { auth: r.auth } : {}),
                ...(r.max_turns !== undefined ? { maxTurns: r.max_turns } : {}),
                ...trace,
                // The job id is stable across retries: the runner derives its state-merge and
                // tool-call keys from it, so a retried run does not apply them twice.
                idempotencyKey: job.id as string,
                signal: runSignal,
                ...local,
              });
            } finally {
              // Every event is in Redis before the job completes: the producer reads the rest then.
              await events?.flush();
            }
          },
          statusOf: (result) => result.status,
          retryReason: (result) =>
            result.status === 'failed' && result.error && INFRASTRUCTURE_RUN_ERRORS.has(result.error.code)
              ? `${result.error.code}: ${result.error.message}`
              : undefined,
        });
      },
      {
        ...common,
        connection: blockingOptions(options.connection),
        concurrency: positive('concurrency', options.concurrency, QUEUE_DEFAULTS.concurrency),
        name,
      },
    );
    workers.push(worker);
  }

  /** The publisher of a job's runner events, for a producer that asked for them. */
  function eventsOf(job: Job) {
    const attempt = job.attemptsStarted || job.attemptsMade + 1;
    return runEventsPublisher(commands, prefix, job.id as string, attempt, (error) =>
      log.warn('a runner event could not be sent to the producer; the run goes on', {
        job_id: job.id,
        error: error instanceof Error ? error.message : String(error),
      }),
    );
  }

  /** Decisions for a paused run: resumed with the runner's `submitApprovals`; its refusals answer as values. */
  function approvalsHandler(
    runner: WorkerRunExecutor,
    data: ApprovalsJobData,
    events: ReturnType<typeof eventsOf> | undefined,
  ): JobHandler<ApprovalsJobResult> {
    const a = data.request;
    return {
      kind: 'approvals',
      queueName: QUEUE_DEFAULTS.runsQueue,
      trace: data.trace,
      async execute(approvalSignal, trace) {
        const submit = runner.submitApprovals?.bind(runner);
        if (!submit)
          return { refused: { code: 'APPROVALS_UNSUPPORTED', message: `worker ${name}: its runner does not resume paused runs` } };
        try {
          const result = await submit({
            runId: a.run_id,
            decisions: a.decisions as SubmitApprovalsRequest['decisions'],
            ...(a.auth !== undefined ? { auth: a.auth } : {}),
            ...trace,
            signal: approvalSignal,
            ...(events ? { onEvent: events.listener } : {}),
          });
          return { result };
        } catch (error) {
          if (!isRefusal(error)) throw error;
          const e = error as { code: string; message?: unknown };
          return { refused: { code: e.code, message: typeof e.message === 'string' ? e.message : String(e.message) } };
        } finally {
          await events?.flush();
        }
      },
      statusOf: (answer) => ('result' in answer ? answer.result.status : `refused ${answer.refused.code}`),
    };
  }

  if (options.tasks) {
    const tasks = options.tasks;
    for (let depth = 1; depth <= maxDepth; depth++) {
      const queueName = tasksQueueName(depth);
      const worker = new Worker(
        queueName,
        async (job, _token, signal) => {
          let data;
          try {
            data = parseTaskJobData(job.data);
          } catch (error) {
            throw new UnrecoverableError((error as InvalidJobDataError).message);
          }
          return processJob<DelegatedTaskResult>(job, signal, {
            kind: 'task',
            queueName,
            trace: data.trace,
            execute: (taskSignal, trace) =>
              tasks.runDelegated({ ...data.task, context: { ...data.task.context, ...trace } } as DelegatedTask, { signal: taskSignal }),
            statusOf: (result) => (result as Partial<DelegatedTaskResult> | null)?.response?.status ?? 'INVALID',
          });
        },
        {
          ...common,
          connection: blockingOptions(options.connection),
          concurrency: positive('taskConcurrency', options.taskConcurrency, QUEUE_DEFAULTS.taskConcurrency),
          name,
        },
      );
      workers.push(worker);
    }
  }

  for (const w of workers) {
    w.on('error', (error) => log.warn('worker connection error', { error: error.message }));
  }

  // Cancellation requests from any process reach the worker that holds the job.
  const subscriber: Redis = producerConnection(options.connection);
  const subscribed = subscriber.subscribe(cancelChannel(prefix)).then(() => undefined);
  subscriber.on('message', (_channel: string, jobId: string) => {
    for (const w of workers) if (w.cancelJob(jobId, 'cancel requested')) log.info('job cancelled on request', { job_id: jobId });
  });

  let closing: Promise<void> | undefined;
  return {
    name,
    async ready() {
      await Promise.all([...workers.map((w) => w.waitUntilReady()), subscribed]);
    },
    close(opts = {}) {
      closing ??= (async () => {
        await Promise.allSettled(workers.map((w) => w.close(opts.force === true)));
        subscriber.disconnect();
        commands.disconnect();
      })();
      return closing;
    },
  };
}
