// A request retried with the same idempotency key (a queue job retried after its worker died)
// applies its state merges once, hands tools the same keys, and finds the dead attempt's run
// recorded as crashed.
import { describe, expect, it } from 'vitest';
import { createMemoryThreadStore, InvalidRunRequestError, Runner, RUNNER_CRASHED, type ToolContext } from '../../src/index.js';
import { lookupTool, manifest, registry } from '../helpers/agents.js';
import { scriptedGuardrail } from '@baton/manifest/testing';
import { createScriptedProvider } from '../../src/testing/index.js';

const TRIAGE = 'io.baton.test.triage';
const REFUNDS = 'io.baton.test.refunds';
const BATON_YML = `
agents:
  ${TRIAGE}:
    handoffs: [${REFUNDS}]
`;

function script() {
  return {
    triage: [
      { toolCalls: [{ name: 'lookup_order', arguments: { order_id: '1234' } }] },
      {
        toolCalls: [
          {
            name: 'system__handoff',
            arguments: { target_agent_id: REFUNDS, input: 'Refund order 1234', state: { order_id: '1234', stage: 'refund' } },
          },
        ],
      },
    ],
    refunds: [{ message: 'Done.' }],
  };
}

function setup(store = createMemoryThreadStore()) {
  const contexts: ToolContext[] = [];
  const make = () =>
    new Runner({
      registry: registry([manifest(TRIAGE, { tools: [lookupTool()] }), manifest(REFUNDS)], BATON_YML),
      tools: { lookup_order: (_args, ctx) => (contexts.push(ctx), { status: 'delivered' }) },
      guardrails: scriptedGuardrail().validator,
      store,
      modelProvider: createScriptedProvider({ scripts: script() }).provider,
    });
  return { store, contexts, make };
}

describe('idempotency keys', () => {
  it("applies a retried request's state merge once, even after another run changed the state", async () => {
    const { store, contexts, make } = setup();
    const thread = await store.createThread({ id: 'thread_retry' });
    const first = await make().run({ agentId: TRIAGE, input: 'refund 1234', threadId: thread.id, idempotencyKey: 'job_42' });
    expect(first.state).toEqual({ order_id: '1234', stage: 'refund' });
    // Between the attempts another request moved the thread on.
    await store.mergeState(thread.id, { stage: 'closed' });
    const retried = await make().run({ agentId: TRIAGE, input: 'refund 1234', threadId: thread.id, idempotencyKey: 'job_42' });
    expect(retried.status).toBe('completed');
    expect(retried.state).toEqual({ order_id: '1234', stage: 'closed' });
    // Same call, same place, same arguments: the same key for the tool, derived from the request's.
    expect(contexts).toHaveLength(2);
    expect(contexts[0]!.idempotencyKey).toMatch(/^job_42#r0\.call0\.[0-9a-f]{16}$/);
    expect(contexts[1]!.idempotencyKey).toBe(contexts[0]!.idempotencyKey);
  });

  it('gives no keys without a request key, and refuses a malformed one', async () => {
    const { store, contexts, make } = setup();
    const thread = await store.createThread({ id: 'thread_plain' });
    await make().run({ agentId: TRIAGE, input: 'refund 1234', threadId: thread.id });
    await store.mergeState(thread.id, { stage: 'closed' });
    const again = await make().run({ agentId: TRIAGE, input: 'refund 1234', threadId: thread.id });
    expect(again.state.stage).toBe('refund');
    expect(contexts[0]!.idempotencyKey).toBeUndefined();
    await expect(make().run({ agentId: TRIAGE, input: 'x', idempotencyKey: 'has space' })).rejects.toThrow(InvalidRunRequestError);
    await expect(make().run({ agentId: TRIAGE, input: 'x', idempotencyKey: 'k'.repeat(121) })).rejects.toThrow(/1-120 characters/);
  });

  it('records a run left active by a dead process as crashed once it holds the thread lock', async () => {
    const { store, make } = setup();
    const thread = await store.createThread({ id: 'thread_dead' });
    // What a killed worker leaves behind: an in-progress run and an expired lease.
    const dead = await store.createRun(thread.id, { agentId: TRIAGE, agentVersion: '1.0.0', status: 'in_progress' });
    const lock = await store.acquireThreadLock(thread.id, { owner: 'dead-worker', leaseMs: 50, autoRenew: false });
    void lock;
    const result = await make().run({ agentId: TRIAGE, input: 'refund 1234', threadId: thread.id });
    expect(result.status).toBe('completed');
    const runs = await store.listRuns(thread.id);
    expect(runs.find((r) => r.id === dead.id)).toMatchObject({ status: 'failed', error: { code: RUNNER_CRASHED } });
    expect(runs.filter((r) => r.status === 'completed')).toHaveLength(1);
  });

  it('looks for abandoned runs on every thread it did not just create', async () => {
    const store = createMemoryThreadStore();
    const listed: string[] = [];
    const listRuns = store.listRuns.bind(store);
    store.listRuns = (threadId) => (listed.push(threadId), listRuns(threadId));
    const { make } = setup(store);
    // A new thread, created already locked (under the store's id or the caller's): nobody can
    // have run on it, nothing to recover.
    const fresh = await make().run({ agentId: TRIAGE, input: 'refund 1234' });
    expect(fresh.status).toBe('completed');
    await make().run({ agentId: TRIAGE, input: 'refund 1234', threadId: 'thread_named' });
    expect(listed).toEqual([]);
    // Their next runs are checked after the lock.
    await make().run({ agentId: TRIAGE, input: 'refund 1234', threadId: fresh.thread_id });
    await make().run({ agentId: TRIAGE, input: 'refund 1234', threadId: 'thread_named' });
    // (The continued threads' runs are listed twice: also to replay their history.)
    expect([...new Set(listed)]).toEqual([fresh.thread_id, 'thread_named']);
  });
});
