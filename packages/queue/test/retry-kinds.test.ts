// Which thrown errors a worker retries: one rule, the error's `kind` (BatonError). A `usage` or
// `config` error (the request or the setup is wrong) fails the job at once; an `upstream` or
// `internal` one (the store, Redis, a dependency) is retried with backoff.
import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { RunnerError, type RunRequest, type RunResult } from '@baton/runner';
import {
  QueueJobFailedError,
  createQueueDispatcher,
  createQueueRunner,
  startWorker,
  type DelegatedTask,
  type WorkerJobEvent,
} from '../src/index.js';
import { testRedisUrl, uniquePrefix } from './helpers/redis.js';

const url = testRedisUrl();
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function connection(u: string) {
  const x = new URL(u);
  return { host: x.hostname, port: Number(x.port || 6379) };
}

function completed(input: string): RunResult {
  return {
    thread_id: 't',
    runs: [],
    run_id: 'r',
    agent_id: 'a',
    response: `ok ${input}`,
    status: 'completed',
    state: {},
    guardrail_decisions: [],
    trace_id: '0'.repeat(32),
    model: 'fake',
  };
}

describe('retries by error kind', () => {
  it('fails a run job at once on a usage or config error, and retries an upstream one', async () => {
    const prefix = uniquePrefix('kinds');
    const calls: string[] = [];
    const runner = {
      async run(request: RunRequest): Promise<RunResult> {
        calls.push(request.input);
        // Usage and config codes the worker used to retry (only four codes were "the caller's").
        if (request.input === 'usage') throw new RunnerError('STORE_INVALID_INPUT', 'thread id is not a thread id');
        if (request.input === 'config') throw new RunnerError('MODEL_CONFIGURATION_INVALID', 'no model for this agent');
        if (request.input === 'upstream' && calls.filter((c) => c === 'upstream').length === 1)
          throw new RunnerError('STORE_UNAVAILABLE', 'redis went away');
        return completed(request.input);
      },
    };
    const events: WorkerJobEvent[] = [];
    const worker = startWorker({ connection: url, prefix, runner, onJobEvent: (e) => events.push(e) });
    cleanups.push(() => worker.close());
    const queue = createQueueRunner({ connection: url, prefix, backoffMs: 10 });
    cleanups.push(() => queue.close());
    const raw = new Queue('runs', { connection: connection(url), prefix });
    cleanups.push(() => raw.close());

    const usage = await queue.enqueue({ agentId: 'a', input: 'usage' });
    await expect(queue.result(usage.jobId)).rejects.toThrow(QueueJobFailedError);
    expect((await raw.getJob(usage.jobId))?.attemptsMade).toBe(1);
    expect((await raw.getJob(usage.jobId))?.failedReason).toMatch(/^STORE_INVALID_INPUT: /);

    const config = await queue.enqueue({ agentId: 'a', input: 'config' });
    await expect(queue.result(config.jobId)).rejects.toThrow(/MODEL_CONFIGURATION_INVALID/);
    expect((await raw.getJob(config.jobId))?.attemptsMade).toBe(1);

    const upstream = await queue.enqueue({ agentId: 'a', input: 'upstream' });
    expect((await queue.result(upstream.jobId)).response).toBe('ok upstream');
    expect(calls.filter((c) => c === 'upstream').length).toBeGreaterThanOrEqual(2);
    expect(events.some((e) => e.jobId === upstream.jobId && e.event === 'retrying')).toBe(true);
    for (const jobId of [usage.jobId, config.jobId]) {
      expect(events.filter((e) => e.jobId === jobId).map((e) => e.event)).toEqual(['started', 'failed']);
    }
  });

  it('applies the same rule to delegated task jobs', async () => {
    const prefix = uniquePrefix('task-kinds');
    const calls: string[] = [];
    const tasks = {
      async runDelegated(task: DelegatedTask) {
        const what = String(task.args.instruction_set);
        calls.push(what);
        if (what === 'usage') throw new RunnerError('INVALID_REQUEST', 'no such skill');
        if (what === 'upstream' && calls.filter((c) => c === 'upstream').length === 1)
          throw new RunnerError('STORE_THREAD_BUSY', 'the thread stayed locked');
        return { response: { status: 'SUCCESS' as const, output_payload: { what } }, guardrail_decisions: [] };
      },
    };
    const events: WorkerJobEvent[] = [];
    const worker = startWorker({ connection: url, prefix, tasks, onJobEvent: (e) => events.push(e) });
    cleanups.push(() => worker.close());
    const dispatcher = createQueueDispatcher({ connection: url, prefix, backoffMs: 10 });
    cleanups.push(() => dispatcher.close());
    const task = (what: string, key: string): DelegatedTask => ({
      args: { subagent_type: 's', instruction_set: what, input_data: {}, max_iterations: 1 },
      scope: { depth: 0, maxDepth: 3, lineage: ['parent'] },
      context: { idempotencyKey: key },
    });

    await expect(dispatcher.dispatch(task('usage', 'job_u#r0.call0'))).rejects.toThrow(/INVALID_REQUEST: no such skill/);
    expect(calls.filter((c) => c === 'usage')).toHaveLength(1);
    expect(events.filter((e) => e.event === 'retrying')).toHaveLength(0);

    const upstream = await dispatcher.dispatch(task('upstream', 'job_up#r0.call0'));
    expect(upstream.response).toEqual({ status: 'SUCCESS', output_payload: { what: 'upstream' } });
    expect(calls.filter((c) => c === 'upstream').length).toBeGreaterThanOrEqual(2);
    expect(events.some((e) => e.event === 'retrying')).toBe(true);
  });
});
