import { randomUUID } from 'node:crypto';
import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { trace, type Tracer } from '@opentelemetry/api';
import {
  ApprovalError,
  InvalidRunRequestError,
  RUNNER_ERROR_CODES,
  RunnerError,
  type RunRequest,
  type RunResult,
  type RunnerEventListener,
  type RunnerErrorCode,
  type SubmitApprovalsRequest,
} from '@baton/runner';
import { requestCancel } from './cancel.js';
import { blockingOptions, producerConnection, redisOptions, type RedisConnection } from './connection.js';
import { QUEUE_DEFAULTS, approvalsBackoff } from './defaults.js';
import { QueueConfigError, QueueJobFailedError, QueueUnavailableError } from './errors.js';
import { jobIdFor } from './job-ids.js';
import { MAX_APPROVALS_JOB_DECISIONS, type ApprovalsJobData, type ApprovalsJobResult, type RunJobData } from './job-data.js';
import { createRunEventsHub, type RunEventsRelay } from './run-events.js';
import { TRACER_NAME, startEnqueueSpan } from './trace.js';
import { waitForJob } from './wait-for-job.js';

/** Options for {@link createQueueRunner}. */
export interface QueueRunnerOptions {
  /** The Redis that `baton worker` processes read from. */
  connection: RedisConnection;
  /** BullMQ key prefix; producers and workers must agree (default `baton`). */
  prefix?: string;
  /** How long `run()` waits for a worker to finish the job, ms (default 10 minutes). */
  resultTimeoutMs?: number;
  /** Attempts per job: the first plus retries of infrastructure failures (default 3). */
  attempts?: number;
  /** First retry delay, ms, doubled per retry (default 500). */
  backoffMs?: number;
  /**
   * The workers' thread-lock lease, ms (their Runner's `limits.lockLeaseMs`; default the Runner's
   * default, `runTimeoutMs` + 10 s = 130 000). Each retry of an approvals job waits this plus
   * `backoffMs`, so it comes after a stalled or dead worker's lease ran out.
   */
  lockLeaseMs?: number;
  /** Thread ids for requests without one (default `thread_<32 hex>`), fixed before enqueueing so a retried job lands on the same thread. */
  threadIdGenerator?: () => string;
  /** OpenTelemetry tracer (default the global `@baton/queue` tracer). */
  tracer?: Tracer;
}

/** A queued run as {@link QueueRunner.enqueue} reports it. */
export interface EnqueuedRun {
  jobId: string;
  threadId: string;
}

/**
 * Runs requests on `baton worker` processes instead of in this process. `run()` has the same
 * contract as `Runner.run()` (and fits `createRunnerServer`): failures of the run come back as
 * results; infrastructure that stays down throws QueueError subclasses.
 */
export interface QueueRunner {
  /**
   * Runs the request on a worker and waits for its result. `onEvent` hears the run's events as
   * in-process (the worker sends them through Redis; all of them have been heard when this
   * resolves); a job retried after a crash sends its events again. `stream` streams the answer.
   */
  run(request: RunRequest): Promise<RunResult>;
  /** Puts a run on the queue and returns at once (no `onEvent`: use `run()` to hear a run's events). */
  enqueue(request: RunRequest): Promise<EnqueuedRun>;
  /** Waits for a queued run's result. */
  result(jobId: string, options?: { timeoutMs?: number }): Promise<RunResult>;
  /**
   * Decides the pending approvals of a run paused in `requires_action` and waits for the resumed
   * run, on a worker (the runner's `submitApprovals` there). A refusal (no such run, already
   * decided, expired, malformed decisions) throws the runner's error with its code. `onEvent`
   * hears the resumed run's events, as in `run()`.
   */
  submitApprovals(request: SubmitApprovalsRequest): Promise<RunResult>;
  /** Asks the worker holding the job to cancel it (the run ends `cancelled`); a job not yet started never starts. */
  cancel(jobId: string, reason?: string): Promise<void>;
  close(): Promise<void>;
}

function checkRequest(request: RunRequest): void {
  if (!request || typeof request !== 'object') throw new InvalidRunRequestError('run(request): request object is required');
  if (request.systemTools !== undefined && request.systemTools.length > 0) {
    throw new InvalidRunRequestError(
      "run(request): systemTools are functions and cannot travel through a queue; give them to the workers' Runner",
    );
  }
  if (request.depth !== undefined && request.depth !== 0) {
    throw new InvalidRunRequestError(
      'run(request): a queued run is a top-level run (depth 0); delegated subtasks are queued by the dispatcher',
    );
  }
  if (typeof request.agentId !== 'string' || request.agentId === '')
    throw new InvalidRunRequestError('run(request): agentId must be a non-empty string');
  if (typeof request.input !== 'string') throw new InvalidRunRequestError('run(request): input must be a string');
  if (request.onEvent !== undefined && typeof request.onEvent !== 'function')
    throw new InvalidRunRequestError('run(request): onEvent must be a function');
}

/** Creates a {@link QueueRunner}. Connects lazily; `close()` releases every connection. */
export function createQueueRunner(options: QueueRunnerOptions): QueueRunner {
  // A bad URL is a configuration error now, not a connection error on the first job.
  redisOptions(options.connection);
  const prefix = options.prefix ?? QUEUE_DEFAULTS.prefix;
  const resultTimeoutMs = options.resultTimeoutMs ?? QUEUE_DEFAULTS.resultTimeoutMs;
  if (!Number.isInteger(resultTimeoutMs) || resultTimeoutMs < 1)
    throw new QueueConfigError(`resultTimeoutMs must be a positive integer, got ${String(resultTimeoutMs)}`);
  const attempts = options.attempts ?? QUEUE_DEFAULTS.attempts;
  if (!Number.isInteger(attempts) || attempts < 1)
    throw new QueueConfigError(`attempts must be a positive integer, got ${String(attempts)}`);
  const backoffMs = options.backoffMs ?? QUEUE_DEFAULTS.backoffMs;
  if (!Number.isFinite(backoffMs) || backoffMs < 0)
    throw new QueueConfigError(`backoffMs must be a non-negative number, got ${String(backoffMs)}`);
  const lockLeaseMs = options.lockLeaseMs ?? QUEUE_DEFAULTS.lockLeaseMs;
  if (!Number.isFinite(lockLeaseMs) || lockLeaseMs <= 0)
    throw new QueueConfigError(`lockLeaseMs must be a positive number, got ${String(lockLeaseMs)}`);
  const tracer = options.tracer ?? trace.getTracer(TRACER_NAME);
  const threadId = options.threadIdGenerator ?? (() => `thread_${randomUUID().replace(/-/g, '')}`);

  // Runner events of the runs being waited for: one subscriber connection, opened on first use.
  const hub = createRunEventsHub(
    () => producerConnection(options.connection),
    () => connect().producer,
    prefix,
  );
  const relayOf = (jobId: string, listener: RunnerEventListener | undefined): RunEventsRelay | undefined =>
    listener ? hub.relay(jobId, listener, () => undefined) : undefined;

  let producer: Redis | undefined;
  let queue: Queue | undefined;
  let events: QueueEvents | undefined;
  const connect = () => {
    if (!queue) {
      producer = producerConnection(options.connection);
      queue = new Queue(QUEUE_DEFAULTS.runsQueue, { connection: producer, prefix });
      // A dedicated blocking connection: QueueEvents reads a stream with XREAD BLOCK.
      events = new QueueEvents(QUEUE_DEFAULTS.runsQueue, { connection: blockingOptions(options.connection), prefix });
      events.on('error', () => undefined);
      queue.on('error', () => undefined);
      // Each run being waited for listens for the queue closing: many at once is normal here.
      queue.setMaxListeners(0);
    }
    return { queue, events: events as QueueEvents, producer: producer as Redis };
  };

  /** The producer's span for one job put on the runs queue, continuing the caller's trace. */
  function publishSpan(request: { traceparent?: string; tracestate?: string }, jobId: string, attributes: Record<string, string>) {
    return startEnqueueSpan(
      tracer,
      `${QUEUE_DEFAULTS.runsQueue} publish`,
      {
        ...(request.traceparent ? { traceparent: request.traceparent } : {}),
        ...(request.tracestate ? { tracestate: request.tracestate } : {}),
      },
      {
        'messaging.system': 'bullmq',
        'messaging.operation.type': 'publish',
        'messaging.destination.name': QUEUE_DEFAULTS.runsQueue,
        'messaging.message.id': jobId,
        ...attributes,
      },
    );
  }

  async function enqueue(request: RunRequest): Promise<EnqueuedRun> {
    checkRequest(request);
    if (request.onEvent !== undefined)
      throw new InvalidRunRequestError('enqueue(request): onEvent needs a caller that waits for the run; use run()');
    return enqueueRun(request, undefined);
  }

  /** Puts a run on the queue; with `listener`, its events are relayed from before the job exists. */
  async function enqueueRun(
    request: RunRequest,
    listener: RunnerEventListener | undefined,
  ): Promise<EnqueuedRun & { relay?: RunEventsRelay }> {
    const { queue: q, events: ev } = connect();
    const thread = request.threadId ?? threadId();
    const jobId = jobIdFor('run', request.idempotencyKey, request.auth?.tenant);
    const { span, carrier } = publishSpan(request, jobId, { 'baton.thread.id': thread });
    const data: RunJobData = {
      v: 1,
      kind: 'run',
      request: {
        agent_id: request.agentId,
        input: request.input,
        thread_id: thread,
        ...(request.agentVersion !== undefined ? { agent_version: request.agentVersion } : {}),
        ...(request.auth !== undefined ? { auth: request.auth } : {}),
        ...(request.maxTurns !== undefined ? { max_turns: request.maxTurns } : {}),
        ...(listener ? { events: true as const } : {}),
        ...(listener && request.stream === true ? { stream: true as const } : {}),
      },
      trace: carrier,
    };
    const relay = relayOf(jobId, listener);
    try {
      await relay?.ready;
      await add(q, ev, jobId, data);
    } catch (error) {
      await relay?.stop();
      throw error instanceof QueueUnavailableError
        ? error
        : new QueueUnavailableError(`could not listen for the run's events: ${(error as Error).message}`, { cause: error });
    } finally {
      span.end();
    }
    return { jobId, threadId: thread, ...(relay ? { relay } : {}) };
  }

  /** Adds a job to the runs queue, listening for its end first so a fast worker's is never missed. */
  async function add(q: Queue, ev: QueueEvents, jobId: string, data: RunJobData | ApprovalsJobData): Promise<void> {
    try {
      await ev.waitUntilReady();
      await q.add(data.kind, data, {
        jobId,
        attempts,
        backoff: data.kind === 'approvals' ? approvalsBackoff({ lockLeaseMs, backoffMs }) : { type: 'exponential', delay: backoffMs },
        removeOnComplete: QUEUE_DEFAULTS.keepCompleted,
        removeOnFail: QUEUE_DEFAULTS.keepFailed,
      });
    } catch (error) {
      throw new QueueUnavailableError(`could not put the ${data.kind} job on the queue: ${(error as Error).message}`, { cause: error });
    }
  }

  async function submitApprovals(request: SubmitApprovalsRequest): Promise<RunResult> {
    if (!request || typeof request !== 'object') throw new InvalidRunRequestError('submitApprovals(request): request object is required');
    if (typeof request.runId !== 'string' || request.runId.length === 0 || request.runId.length > 200)
      throw new ApprovalError('APPROVAL_RUN_NOT_FOUND', 'submitApprovals(request): runId must be a string of 1 to 200 characters');
    if (!Array.isArray(request.decisions))
      throw new ApprovalError('APPROVAL_INVALID', 'submitApprovals(request): decisions must be an array');
    if (request.onEvent !== undefined && typeof request.onEvent !== 'function')
      throw new InvalidRunRequestError('submitApprovals(request): onEvent must be a function');
    // Refused here rather than by the worker's job schema, which would fail the job (not a refusal).
    if (request.decisions.length > MAX_APPROVALS_JOB_DECISIONS)
      throw new ApprovalError(
        'APPROVAL_INVALID',
        `submitApprovals(request): decisions has ${request.decisions.length} entries; an approvals job carries at most ${MAX_APPROVALS_JOB_DECISIONS}`,
      );
    const decisions = plainJsonDecisions(request.decisions);
    const { queue: q, events: ev } = connect();
    const jobId = jobIdFor('approvals', undefined);
    const { span, carrier } = publishSpan(request, jobId, { 'baton.run.id': request.runId });
    const data: ApprovalsJobData = {
      v: 1,
      kind: 'approvals',
      request: {
        run_id: request.runId,
        decisions,
        ...(request.auth !== undefined ? { auth: request.auth } : {}),
        ...(request.onEvent ? { events: true as const } : {}),
      },
      trace: carrier,
    };
    const relay = relayOf(jobId, request.onEvent);
    try {
      await relay?.ready;
      await add(q, ev, jobId, data);
    } catch (error) {
      await relay?.stop();
      throw error instanceof QueueUnavailableError
        ? error
        : new QueueUnavailableError(`could not listen for the run's events: ${(error as Error).message}`, { cause: error });
    } finally {
      span.end();
    }
    const answer = await answerWithEvents<ApprovalsJobResult>(jobId, relay, { signal: request.signal, what: 'approvals' });
    if ('result' in answer) return answer.result;
    throw refusalError(jobId, answer.refused);
  }

  async function result(jobId: string, opts: { timeoutMs?: number } = {}): Promise<RunResult> {
    return answerOf<RunResult>(jobId, { timeoutMs: opts.timeoutMs });
  }

  /**
   * Waits for a job's answer; a caller's `signal` that aborts (an HTTP client that hung up)
   * cancels the job, as in-process.
   */
  async function answerOf<T>(
    jobId: string,
    opts: { timeoutMs?: number | undefined; signal?: AbortSignal | undefined; what?: string },
  ): Promise<T> {
    const { queue: q, events: ev } = connect();
    const onAbort = () => void cancel(jobId, `the caller aborted the ${opts.what ?? 'job'}`).catch(() => undefined);
    if (opts.signal?.aborted) onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const job = await q.getJob(jobId);
      if (!job)
        throw new QueueConfigError(
          `no job ${jobId} on queue ${QUEUE_DEFAULTS.runsQueue} (finished jobs are kept ${QUEUE_DEFAULTS.keepCompleted.age} s)`,
        );
      return await waitForJob<T>(job, ev, opts.timeoutMs ?? resultTimeoutMs);
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** {@link answerOf}, then the events the relay has not delivered yet (the job has finished: all are in Redis). */
  async function answerWithEvents<T>(
    jobId: string,
    relay: RunEventsRelay | undefined,
    opts: { signal?: AbortSignal | undefined; what: string },
  ): Promise<T> {
    try {
      return await answerOf<T>(jobId, opts);
    } finally {
      await relay?.finish().catch(() => undefined);
    }
  }

  async function cancel(jobId: string, reason = 'cancelled by the caller'): Promise<void> {
    const { producer: redis } = connect();
    await requestCancel(redis, prefix, jobId, reason);
  }

  return {
    enqueue,
    result,
    cancel,
    submitApprovals,
    async run(request) {
      checkRequest(request);
      const { jobId, relay } = await enqueueRun(request, request.onEvent);
      return answerWithEvents<RunResult>(jobId, relay, { signal: request.signal, what: 'run' });
    },
    async close() {
      hub.close();
      await Promise.allSettled([events?.close(), queue?.close()]);
      producer?.disconnect();
    },
  };
}

/** The runner's refusal, rebuilt on this side with its code (so HTTP answers 404/409/410 as in-process). */
/**
 * The decisions as plain JSON: they cross Redis, and the worker's runner validates them. A value
 * JSON cannot carry (a BigInt, a cycle, a throwing `toJSON`) is the caller's mistake, refused
 * before anything is queued.
 */
function plainJsonDecisions(decisions: unknown[]): unknown[] {
  try {
    return JSON.parse(JSON.stringify(decisions)) as unknown[];
  } catch (error) {
    throw new ApprovalError(
      'APPROVAL_INVALID',
      `submitApprovals(request): decisions must be plain JSON values (${(error as Error)?.name ?? 'Error'}: ${String((error as Error)?.message).slice(0, 200)})`,
      { cause: error },
    );
  }
}

function refusalError(jobId: string, refused: { code: string; message: string }): Error {
  // Own members only: an inherited name ("constructor", "toString") is no runner code.
  if (typeof refused.code !== 'string' || !Object.hasOwn(RUNNER_ERROR_CODES, refused.code))
    return new QueueJobFailedError(jobId, `the worker refused the approvals with ${refused.code}: ${refused.message}`);
  const code = refused.code as RunnerErrorCode;
  return code.startsWith('APPROVAL') ? new ApprovalError(code, refused.message) : new RunnerError(code, refused.message);
}
