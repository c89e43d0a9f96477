// The retry schedule of approvals jobs outlasts the workers' thread-lock lease. A redelivered
// approvals job whose old worker still held the thread waits for the lock only `runTimeoutMs`
// (10 s less than the lease) and fails STORE_THREAD_BUSY; its retry must come after the lease ran
// out, or it fails the same way. A small configured lease keeps this test to well under a second.
import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { ThreadBusyError, type RunRequest, type RunResult, type SubmitApprovalsRequest } from '@baton/runner';
import { QUEUE_DEFAULTS, QueueConfigError, createQueueRunner, startWorker, type WorkerJobEvent } from '../src/index.js';
import { testRedisUrl, uniquePrefix } from './helpers/redis.js';

const url = testRedisUrl();
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const connection = (u: string) => ({ host: new URL(u).hostname, port: Number(new URL(u).port || 6379) });

const resumed = (runId: string): RunResult => ({
  thread_id: 't',
  runs: [],
  run_id: runId,
  agent_id: 'a',
  response: 'resumed',
  status: 'completed',
  state: {},
  guardrail_decisions: [],
  trace_id: '0'.repeat(32),
  model: 'fake',
});

describe('approvals job retries', () => {
  it('waits the configured lease plus backoffMs before each retry of an approvals job; run jobs keep their backoff', async () => {
    const prefix = uniquePrefix('appr-retry');
    const lease = 400;
    const starts: number[] = [];
    const runner = {
      run: async (request: RunRequest): Promise<RunResult> => resumed(request.input),
      // The first attempt finds the thread still held by a worker whose lease has not run out.
      async submitApprovals(request: SubmitApprovalsRequest): Promise<RunResult> {
        starts.push(Date.now());
        if (starts.length === 1) throw new ThreadBusyError('t', 120_000, 'call_old');
        return resumed(request.runId);
      },
    };
    const events: WorkerJobEvent[] = [];
    const worker = startWorker({ connection: url, prefix, runner, onJobEvent: (e) => events.push(e) });
    cleanups.push(() => worker.close());
    const queue = createQueueRunner({ connection: url, prefix, backoffMs: 10, lockLeaseMs: lease });
    cleanups.push(() => queue.close());
    const raw = new Queue(QUEUE_DEFAULTS.runsQueue, { connection: connection(url), prefix });
    cleanups.push(() => raw.close());

    const done = await queue.submitApprovals({ runId: 'run_1', decisions: [{ id: 'appr_1', approve: true }] });
    expect(done.status).toBe('completed');
    expect(events.filter((e) => e.kind === 'approvals').map((e) => e.event)).toEqual(['started', 'retrying', 'started', 'completed']);
    // A lower bound only (a busy machine makes it longer, never shorter).
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(lease);
    const jobs = await raw.getJobs(['completed']);
    const approvals = jobs.find((j) => j.name === 'approvals')!;
    expect(approvals.opts.backoff).toEqual({ type: 'fixed', delay: lease + 10 });
    expect(approvals.opts.attempts).toBe(QUEUE_DEFAULTS.attempts);

    await queue.run({ agentId: 'a', input: 'x' });
    const run = (await raw.getJobs(['completed'])).find((j) => j.name === 'run')!;
    expect(run.opts.backoff).toEqual({ type: 'exponential', delay: 10 });
  });

  it("defaults the lease to the Runner's default (runTimeoutMs + 10 s) and refuses a lease that is not a positive number", () => {
    expect(QUEUE_DEFAULTS.lockLeaseMs).toBe(130_000);
    expect(() => createQueueRunner({ connection: url, lockLeaseMs: 0 })).toThrow(QueueConfigError);
    expect(() => createQueueRunner({ connection: url, lockLeaseMs: Number.NaN })).toThrow(QueueConfigError);
    expect(() => createQueueRunner({ connection: url, backoffMs: -1 })).toThrow(QueueConfigError);
  });
});
