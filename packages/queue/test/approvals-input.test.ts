// Red-team cases for queued approvals: decisions that cannot travel as JSON or that the worker's
// job schema would refuse are refused by the producer with the runner's APPROVAL_INVALID (before
// anything is queued), and a worker's refusal code is trusted only when it is one of the runner's
// own codes (not an inherited member such as "constructor").
import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { ApprovalError } from '@baton/runner';
import { createQueueRunner, QUEUE_DEFAULTS, QueueJobFailedError, startWorker } from '../src/index.js';
import { testRedisUrl, uniquePrefix } from './helpers/redis.js';
import { refusal } from './helpers/refusal.js';

const url = testRedisUrl();
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Jobs in any state under the prefix: nothing was queued when this is 0. */
async function jobsQueued(prefix: string): Promise<number> {
  const q = new Queue(QUEUE_DEFAULTS.runsQueue, { connection: { url }, prefix });
  try {
    const counts = await q.getJobCounts();
    return Object.values(counts).reduce((a, b) => a + b, 0);
  } finally {
    await q.close();
  }
}

describe('queued approvals: decisions the producer refuses', () => {
  it('refuses decisions that are not plain JSON (BigInt, a cycle) as APPROVAL_INVALID and queues nothing', async () => {
    const prefix = uniquePrefix('approvals-json');
    // No worker: a queued job would wait for the (long) result timeout instead of being refused.
    const queue = createQueueRunner({ connection: url, prefix, resultTimeoutMs: 60_000 });
    cleanups.push(() => queue.close());
    const big = await refusal(queue.submitApprovals({ runId: 'run_1', decisions: [{ id: 'a', approve: true, n: 1n }] as never }));
    expect(big).toBeInstanceOf(ApprovalError);
    expect(big.code).toBe('APPROVAL_INVALID');
    expect(big.message).toMatch(/decisions.*JSON/);
    const cyclic: Record<string, unknown> = { id: 'a', approve: true };
    cyclic.self = cyclic;
    const cycle = await refusal(queue.submitApprovals({ runId: 'run_1', decisions: [cyclic] as never }));
    expect(cycle).toBeInstanceOf(ApprovalError);
    expect(cycle.code).toBe('APPROVAL_INVALID');
    expect(await jobsQueued(prefix)).toBe(0);
  });

  it('refuses more decisions than an approvals job may carry before queueing', async () => {
    const prefix = uniquePrefix('approvals-many');
    const queue = createQueueRunner({ connection: url, prefix, resultTimeoutMs: 60_000 });
    cleanups.push(() => queue.close());
    const decisions = Array.from({ length: 1025 }, (_, i) => ({ id: `call_${i}`, approve: true }));
    const many = await refusal(queue.submitApprovals({ runId: 'run_1', decisions }));
    expect(many).toBeInstanceOf(ApprovalError);
    expect(many.code).toBe('APPROVAL_INVALID');
    expect(many.message).toContain('1024');
    expect(await jobsQueued(prefix)).toBe(0);
  });

  it("takes a worker's refusal code only when it is one of the runner's own codes, never an inherited name", async () => {
    const prefix = uniquePrefix('approvals-code');
    const worker = startWorker({
      connection: url,
      prefix,
      runner: {
        run: () => Promise.reject(new Error('not used')),
        submitApprovals: () => Promise.reject(Object.assign(new Error('odd refusal'), { code: 'constructor', kind: 'usage' })),
      },
    });
    cleanups.push(() => worker.close());
    await worker.ready();
    const queue = createQueueRunner({ connection: url, prefix });
    cleanups.push(() => queue.close());
    const odd = await refusal(queue.submitApprovals({ runId: 'run_1', decisions: [{ id: 'a', approve: true }] }));
    expect(odd).toBeInstanceOf(QueueJobFailedError);
    expect(odd.message).toContain('constructor');
  }, 60_000);
});
