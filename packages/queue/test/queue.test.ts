// Runs and delegated subtasks as BullMQ jobs on a real Redis: results, flows, retries of
// infrastructure failures only, cancellation, bad job data, timeouts and trace context.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestTracing } from '@baton/tracing/testing';
import { AgentNotFoundError, type RunRequest, type RunResult } from '@baton/runner';
import {
  QueueJobFailedError,
  QueueTimeoutError,
  createQueueDispatcher,
  createQueueRunner,
  startWorker,
  tasksQueueName,
  type DelegatedTask,
  type DelegatedTaskResult,
  type WorkerJobEvent,
} from '../src/index.js';
import { makeWorkspace, removeWorkspace, startStack } from './helpers/stack.js';
import { testRedisUrl, uniquePrefix } from './helpers/redis.js';

const url = testRedisUrl();
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function result(partial: Partial<RunResult> & Pick<RunResult, 'status'>): RunResult {
  return {
    thread_id: 't',
    runs: [],
    run_id: 'r',
    agent_id: 'a',
    response: null,
    state: {},
    guardrail_decisions: [],
    trace_id: '0'.repeat(32),
    model: 'fake',
    ...partial,
  };
}

describe('queued runs', () => {
  it('returns the same result a Runner returns in-process, with the delegated edit applied once', async () => {
    const prefix = uniquePrefix('result');
    const workspace = makeWorkspace(2);
    cleanups.push(() => removeWorkspace(workspace));
    const stack = await startStack({ url, prefix, workspace });
    cleanups.push(() => stack.close());
    const queue = createQueueRunner({ connection: url, prefix });
    cleanups.push(() => queue.close());

    const r = await queue.run({ agentId: 'io.baton.scaleout.coordinator', input: 'Record T-1 please' });
    expect(r.status).toBe('completed');
    expect(r.agent_id).toBe('io.baton.scaleout.closer');
    expect(r.response).toBe('[offline model] Closed. Ticket T-1: SUCCESS');
    expect(r.runs.map((x) => x.status)).toEqual(['cancelled', 'completed']);
    expect(r.state).toEqual({ ticket: 'T-1', recorded: 'SUCCESS' });
    // The queued subtask's boundary checks are the run's decisions, as in-process.
    expect(r.guardrail_decisions.filter((d) => d.agent_id === 'io.baton.skill.appender').map((d) => [d.action_type, d.decision])).toEqual([
      ['AGENT_INPUT', 'ALLOW'],
      ['AGENT_RESPONSE', 'ALLOW'],
    ]);
    expect(readFileSync(join(workspace, 'ledger', 'T-1.txt'), 'utf8')).toBe('recorded T-1\nEND\n');
    // The thread is in the shared Redis store, readable from any process.
    const thread = await stack.store.getThread(r.thread_id);
    expect(thread?.state).toEqual({ ticket: 'T-1', recorded: 'SUCCESS' });
    // Both kinds completed. Delivery is at-least-once: on a loaded machine the test stack's 3 s
    // lock can stall and BullMQ runs a job again (seen in CI: the run completed twice), which the
    // ledger above shows applied the edit once all the same.
    expect(new Set(stack.events.filter((e) => e.event === 'completed').map((e) => e.kind))).toEqual(new Set(['run', 'task']));
  });

  it('makes each delegated subtask a child job of its run (a BullMQ flow)', async () => {
    const prefix = uniquePrefix('flow');
    const workspace = makeWorkspace(1);
    cleanups.push(() => removeWorkspace(workspace));
    // Long job locks: this test reads the child's value, and with the stack's 3 s locks a loaded
    // machine can stall the task job and BullMQ runs it a second time beside the first (at-least-once;
    // seen in CI at load 33). That duplicate finds the edit already on disk and answers FAILURE
    // (fail closed; the edit stays applied once), and its value can be the one stored. Redelivery
    // has its own tests.
    const stack = await startStack({ url, prefix, workspace, worker: { lockDurationMs: 60_000, stalledIntervalMs: 60_000 } });
    cleanups.push(() => stack.close());
    const queue = createQueueRunner({ connection: url, prefix });
    cleanups.push(() => queue.close());

    const { jobId } = await queue.enqueue({ agentId: 'io.baton.scaleout.coordinator', input: 'Record T-1' });
    expect((await queue.result(jobId)).status).toBe('completed');
    const taskEvent = stack.events.find((e) => e.kind === 'task' && e.event === 'completed') as WorkerJobEvent;
    const tasks = new Queue(tasksQueueName(1), { connection: { ...parse(url) }, prefix });
    const runs = new Queue('runs', { connection: { ...parse(url) }, prefix });
    cleanups.push(async () => {
      await tasks.close();
      await runs.close();
    });
    const child = await tasks.getJob(taskEvent.jobId);
    expect(child?.parent).toEqual({ id: jobId, queueKey: `${prefix}:runs` });
    const parent = await runs.getJob(jobId);
    const values = await parent!.getChildrenValues<DelegatedTaskResult>();
    // The whole response, so that a failure shows its error_report.
    expect(Object.values(values).map((v) => v.response)).toMatchObject([{ status: 'SUCCESS' }]);
    // The child's value carries its boundary decisions, made by the worker's checker.
    expect(Object.values(values).map((v) => v.guardrail_decisions.map((d) => [d.action_type, d.decision]))).toEqual([
      [
        ['AGENT_INPUT', 'ALLOW'],
        ['AGENT_RESPONSE', 'ALLOW'],
      ],
    ]);
  });

  it('retries a run that failed for infrastructure, and never a run that failed on its own terms', async () => {
    const prefix = uniquePrefix('retry');
    const calls: RunRequest[] = [];
    const runner = {
      async run(request: RunRequest): Promise<RunResult> {
        calls.push(request);
        if (request.input === 'flaky' && calls.filter((c) => c.input === 'flaky').length === 1) {
          return result({ status: 'failed', error: { code: 'STORE_UNAVAILABLE', message: 'redis went away' } });
        }
        if (request.input === 'blocked') return result({ status: 'failed', error: { code: 'GUARDRAIL_BLOCKED', message: 'no' } });
        return result({ status: 'completed', response: `ok ${request.input}` });
      },
    };
    const events: WorkerJobEvent[] = [];
    const worker = startWorker({ connection: url, prefix, runner, onJobEvent: (e) => events.push(e) });
    cleanups.push(() => worker.close());
    const queue = createQueueRunner({ connection: url, prefix, backoffMs: 10 });
    cleanups.push(() => queue.close());

    const [flaky, blocked] = await Promise.all([
      queue.run({ agentId: 'a', input: 'flaky' }),
      queue.run({ agentId: 'a', input: 'blocked' }),
    ]);
    expect(flaky.status).toBe('completed');
    expect(blocked.status).toBe('failed');
    // Delivery is at-least-once: on a loaded machine BullMQ may also re-run a job whose lock
    // renewal stalled, so count attempts as "at least", and tell retries apart by their events.
    const flakyCalls = calls.filter((c) => c.input === 'flaky');
    expect(flakyCalls.length).toBeGreaterThanOrEqual(2);
    expect(calls.filter((c) => c.input === 'blocked').length).toBeGreaterThanOrEqual(1);
    // Every attempt got the same idempotency key and thread: its writes dedupe against the first's.
    for (const call of flakyCalls) {
      expect(call.idempotencyKey).toBe(flakyCalls[0]!.idempotencyKey);
      expect(call.threadId).toBe(flakyCalls[0]!.threadId);
    }
    // Only the infrastructure failure was retried; the run that failed on its own terms never was.
    const retried = new Set(events.filter((e) => e.event === 'retrying').map((e) => e.jobId));
    expect(retried.size).toBe(1);
    const blockedJobIds = new Set(events.filter((e) => e.event === 'completed' && e.status === 'failed').map((e) => e.jobId));
    expect(blockedJobIds.size).toBe(1);
    for (const jobId of blockedJobIds) expect(retried.has(jobId)).toBe(false);
  });

  it('fails a job whose data is not a Baton job at once, and a run nobody picks up with QueueTimeoutError', async () => {
    const prefix = uniquePrefix('bad');
    const runner = { run: async () => result({ status: 'completed' }) };
    const worker = startWorker({ connection: url, prefix, runner });
    cleanups.push(() => worker.close());
    const raw = new Queue('runs', { connection: parse(url), prefix });
    cleanups.push(() => raw.close());
    const queue = createQueueRunner({ connection: url, prefix });
    cleanups.push(() => queue.close());
    const job = await raw.add('run', { v: 9, kind: 'run' }, { attempts: 5 });
    await expect(queue.result(job.id as string, { timeoutMs: 20_000 })).rejects.toThrow(QueueJobFailedError);
    const failed = await raw.getJob(job.id as string);
    expect(failed?.attemptsMade).toBe(1);
    expect(failed?.failedReason).toMatch(/not a Baton v1 job/);

    // A request no worker can ever run (unknown agent) fails at once too, with the runner's code.
    const picky = startWorker({
      connection: url,
      prefix: `${prefix}x`,
      runner: { run: async () => Promise.reject(new AgentNotFoundError("no agent with id 'nope'")) },
    });
    cleanups.push(() => picky.close());
    const pickyQueue = createQueueRunner({ connection: url, prefix: `${prefix}x` });
    cleanups.push(() => pickyQueue.close());
    const started = await pickyQueue.enqueue({ agentId: 'nope', input: 'x' });
    await expect(pickyQueue.result(started.jobId)).rejects.toThrow(/AGENT_NOT_FOUND/);
    const pickyRaw = new Queue('runs', { connection: parse(url), prefix: `${prefix}x` });
    cleanups.push(() => pickyRaw.close());
    expect((await pickyRaw.getJob(started.jobId))?.attemptsMade).toBe(1);

    const idle = createQueueRunner({ connection: url, prefix: uniquePrefix('idle'), resultTimeoutMs: 300 });
    cleanups.push(() => idle.close());
    await expect(idle.run({ agentId: 'a', input: 'x' })).rejects.toThrow(QueueTimeoutError);
  });

  it('refuses requests that cannot travel through a queue', async () => {
    const queue = createQueueRunner({ connection: url, prefix: uniquePrefix('refuse') });
    cleanups.push(() => queue.close());
    await expect(
      queue.run({
        agentId: 'a',
        input: 'x',
        systemTools: [{ name: 't', description: 'd', parameters: { type: 'object' }, execute: () => 'x' }],
      }),
    ).rejects.toThrow(/cannot travel through a queue/);
    await expect(queue.run({ agentId: 'a', input: 'x', depth: 2 })).rejects.toThrow(/top-level run/);
    expect(() => createQueueRunner({ connection: 'http://x', prefix: 'p' })).toThrow(/scheme http: is not supported/);
    expect(() => startWorker({ connection: 'redis://h/x', runner: { run: async () => result({ status: 'completed' }) } })).toThrow(
      /database "x"/,
    );
  });

  it('cancels a running job from another process, and a queued job before it starts', async () => {
    const prefix = uniquePrefix('cancel');
    const seen: string[] = [];
    const runner = {
      async run(request: RunRequest): Promise<RunResult> {
        seen.push(request.input);
        if (request.signal?.aborted) return result({ status: 'cancelled', error: { code: 'ABORTED', message: 'aborted' } });
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 20_000);
          request.signal?.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve();
          });
        });
        return result({ status: request.signal?.aborted ? 'cancelled' : 'completed' });
      },
    };
    const worker = startWorker({ connection: url, prefix, runner, concurrency: 1 });
    cleanups.push(() => worker.close());
    const queue = createQueueRunner({ connection: url, prefix });
    cleanups.push(() => queue.close());
    const running = await queue.enqueue({ agentId: 'a', input: 'long' });
    const waiting = await queue.enqueue({ agentId: 'a', input: 'next' });
    await waitUntil(() => seen.includes('long'));
    // No elapsed-time bound: an uncancelled run resolves 'completed' after its 20 s, which the
    // status checks below reject.
    await queue.cancel(waiting.jobId);
    await queue.cancel(running.jobId);
    expect((await queue.result(running.jobId)).status).toBe('cancelled');
    expect((await queue.result(waiting.jobId)).status).toBe('cancelled');
  });

  it('carries W3C trace context from the producer through the job into the run', async () => {
    const tracing = createTestTracing();
    cleanups.push(() => tracing.shutdown());
    const prefix = uniquePrefix('trace');
    const got: RunRequest[] = [];
    const worker = startWorker({
      connection: url,
      prefix,
      runner: { run: async (r: RunRequest) => (got.push(r), result({ status: 'completed' })) },
    });
    cleanups.push(() => worker.close());
    const queue = createQueueRunner({ connection: url, prefix });
    cleanups.push(() => queue.close());
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    await queue.run({ agentId: 'a', input: 'x', traceparent: `00-${traceId}-00f067aa0ba902b7-01` });
    expect(got[0]?.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    const spans = await tracing.spans();
    const publish = spans.find((s) => s.name === 'runs publish');
    const consumer = spans.find((s) => s.name === 'runs process');
    expect(publish?.spanContext().traceId).toBe(traceId);
    expect(consumer?.spanContext().traceId).toBe(traceId);
    expect(consumer?.parentSpanContext?.spanId).toBe(publish?.spanContext().spanId);
    // The run starts under the worker's span.
    expect(got[0]?.traceparent).toContain(consumer?.spanContext().spanId);
  });

  it('without an OpenTelemetry SDK, gives the job and the run their own span ids and keeps flags and tracestate as received', async () => {
    const prefix = uniquePrefix('trace-nosdk');
    const got: RunRequest[] = [];
    const worker = startWorker({
      connection: url,
      prefix,
      runner: { run: async (r: RunRequest) => (got.push(r), result({ status: 'completed' })) },
    });
    cleanups.push(() => worker.close());
    const queue = createQueueRunner({ connection: url, prefix });
    cleanups.push(() => queue.close());
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    // Unsampled, random trace id (Level 2 flag 0x02), with a vendor's tracestate.
    await queue.run({
      agentId: 'a',
      input: 'x',
      traceparent: `00-${traceId}-${callerSpan}-02`,
      tracestate: 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7',
    });
    const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(got[0]?.traceparent ?? '');
    expect(match?.[1]).toBe(traceId);
    expect(match?.[2]).not.toBe(callerSpan);
    expect(match?.[3]).toBe('02');
    expect(got[0]?.tracestate).toBe('congo=t61rcWkgMzE,rojo=00f067aa0ba902b7');
  });
});

describe('delegated subtasks on the queues', () => {
  it('runs a task once per idempotency key: a retried parent gets the first result', async () => {
    const prefix = uniquePrefix('dedupe');
    let executed = 0;
    const tasks = {
      async runDelegated(task: DelegatedTask) {
        executed++;
        return { response: { status: 'SUCCESS' as const, output_payload: { echo: task.args.instruction_set } }, guardrail_decisions: [] };
      },
    };
    const worker = startWorker({ connection: url, prefix, tasks });
    cleanups.push(() => worker.close());
    const dispatcher = createQueueDispatcher({ connection: url, prefix });
    cleanups.push(() => dispatcher.close());
    const task: DelegatedTask = {
      args: { subagent_type: 's', instruction_set: 'hello', input_data: {}, max_iterations: 5 },
      scope: { depth: 0, maxDepth: 3, lineage: ['parent'] },
      context: { idempotencyKey: 'job_1#r0.call0.abc' },
    };
    const first = await dispatcher.dispatch(task);
    // At least once (a stalled lock on a loaded machine may run it twice before it completes);
    // once completed, the same key never runs it again.
    expect(executed).toBeGreaterThanOrEqual(1);
    const executedBefore = executed;
    const again = await dispatcher.dispatch(task);
    expect(first).toEqual({ response: { status: 'SUCCESS', output_payload: { echo: 'hello' } }, guardrail_decisions: [] });
    expect(again).toEqual(first);
    expect(executed).toBe(executedBefore);
    // Deeper than the queues serve: refused as a FAILURE package, nothing queued.
    const deep = await dispatcher.dispatch({ ...task, scope: { depth: 3, maxDepth: 9, lineage: [] } });
    expect(deep.response.status).toBe('FAILURE');
    expect(deep.response.error_report?.code).toBe('ERR_CONSTRAINT_VIOLATION');
    expect(deep.guardrail_decisions).toEqual([]);
  });

  it('stops waiting for a child after resultTimeoutMs with ERR_TIMEOUT, and cancels it on its worker', async () => {
    const prefix = uniquePrefix('task-timeout');
    let aborted = false;
    const tasks = {
      runDelegated: (_task: DelegatedTask, options?: { signal?: AbortSignal }) =>
        new Promise<DelegatedTaskResult>((resolve) => {
          options?.signal?.addEventListener('abort', () => {
            aborted = true;
            resolve({ response: { status: 'FAILURE', output_payload: {} }, guardrail_decisions: [] });
          });
        }),
    };
    const worker = startWorker({ connection: url, prefix, tasks });
    cleanups.push(() => worker.close());
    const dispatcher = createQueueDispatcher({ connection: url, prefix, resultTimeoutMs: 500 });
    cleanups.push(() => dispatcher.close());
    const r = await dispatcher.dispatch({
      args: { subagent_type: 'slow', instruction_set: 'i', input_data: {}, max_iterations: 5 },
      scope: { depth: 0, maxDepth: 3, lineage: [] },
      context: {},
    });
    expect(r.response.status).toBe('FAILURE');
    expect(r.response.error_report?.code).toBe('ERR_TIMEOUT');
    expect(r.response.error_report?.message).toMatch(/slow did not finish within 500 ms/);
    await waitUntil(() => aborted);
  });

  it('puts each depth on its own queue so waiting parents never starve their children', async () => {
    const prefix = uniquePrefix('depth');
    const seenDepths: number[] = [];
    const dispatcher = createQueueDispatcher({ connection: url, prefix });
    cleanups.push(() => dispatcher.close());
    // One slot per depth queue: a parent at depth 1 waits for its child at depth 2 while holding
    // the only depth-1 slot. With one shared queue this would deadlock.
    const tasks = {
      async runDelegated(task: DelegatedTask) {
        seenDepths.push(task.scope.depth + 1);
        if (task.scope.depth + 1 < 3) {
          const child = await dispatcher.dispatch({ ...task, scope: { ...task.scope, depth: task.scope.depth + 1 }, context: {} });
          return {
            response: { status: 'SUCCESS' as const, output_payload: { child: child.response.output_payload } },
            guardrail_decisions: [],
          };
        }
        return { response: { status: 'SUCCESS' as const, output_payload: { leaf: true } }, guardrail_decisions: [] };
      },
    };
    const worker = startWorker({ connection: url, prefix, tasks, taskConcurrency: 1 });
    cleanups.push(() => worker.close());
    const r = await dispatcher.dispatch({
      args: { subagent_type: 's', instruction_set: 'i', input_data: {}, max_iterations: 5 },
      scope: { depth: 0, maxDepth: 3, lineage: [] },
      context: {},
    });
    expect(r.response).toEqual({ status: 'SUCCESS', output_payload: { child: { child: { leaf: true } } } });
    expect(seenDepths).toEqual([1, 2, 3]);
  });
});

function parse(u: string) {
  const x = new URL(u);
  return { host: x.hostname, port: Number(x.port || 6379) };
}

async function waitUntil(probe: () => boolean, timeoutMs = 20_000): Promise<void> {
  const started = Date.now();
  while (!probe()) {
    if (Date.now() - started > timeoutMs) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}
