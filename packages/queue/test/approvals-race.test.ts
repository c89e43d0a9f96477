// Queued approvals under contention (red team): the same decision submitted at once through two
// QueueRunners resumes the run once (one result, one APPROVAL_CONFLICT, the delegated edit applied
// once), and another tenant's auth cannot decide a run (the same refusal as an unknown run).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createQueueRunner } from '../src/index.js';
import { makeWorkspace, removeWorkspace, startStack } from './helpers/stack.js';
import { testRedisUrl, uniquePrefix } from './helpers/redis.js';

const url = testRedisUrl();
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('queued approvals under contention', () => {
  it('resumes once when two producers submit the same decision at once; a foreign tenant cannot decide', async () => {
    const prefix = uniquePrefix('approvals-race');
    const workspace = makeWorkspace(1);
    cleanups.push(() => removeWorkspace(workspace));
    const stack = await startStack({
      url,
      prefix,
      workspace,
      runner: { approvals: { policy: (request) => request.toolName === 'delegate_task' } },
      worker: { concurrency: 2 },
    });
    cleanups.push(() => stack.close());
    const one = createQueueRunner({ connection: url, prefix });
    const two = createQueueRunner({ connection: url, prefix });
    cleanups.push(() => one.close());
    cleanups.push(() => two.close());
    const auth = { tenant: 'acme', subject: 'alice', roles: ['support_agent'] };

    const paused = await one.run({ agentId: 'io.baton.scaleout.coordinator', input: 'Record T-1 please', auth });
    expect(paused.status).toBe('requires_action');
    const decisions = [{ id: paused.required_action!.approvals[0]!.id, approve: true }];

    const foreign = await two
      .submitApprovals({ runId: paused.run_id, decisions, auth: { tenant: 'globex', subject: 'bob', roles: ['support_agent'] } })
      .then(
        () => undefined,
        (e: { code?: string }) => e.code,
      );
    expect(foreign).toBe('APPROVAL_RUN_NOT_FOUND');

    const outcomes = await Promise.allSettled([
      one.submitApprovals({ runId: paused.run_id, decisions, auth }),
      two.submitApprovals({ runId: paused.run_id, decisions, auth }),
    ]);
    const done = outcomes.filter((o) => o.status === 'fulfilled');
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(done).toHaveLength(1);
    expect(refused.map((r) => (r.reason as { code?: string }).code)).toEqual(['APPROVAL_CONFLICT']);
    expect(readFileSync(join(workspace, 'ledger', 'T-1.txt'), 'utf8')).toBe('recorded T-1\nEND\n');
  }, 180_000);
});
