// Fencing of the runner's single writes outside its batches: the handoff-gate path's state merge,
// the resumed run's return to `in_progress` and the paused run's suspended record. Each comes
// right after a fenced flush; a worker whose lease ran out and whose thread another owner took in
// between must not write over the new holder's thread. The take-over happens at the moment the
// stale worker makes that write: a store wrapper (the store is the runner's seam) takes the lock
// first, on the underlying store, then lets the write through.
import { describe, expect, it } from 'vitest';
import {
  createMemoryThreadStore,
  createSqliteThreadStore,
  Runner,
  type StoreWrite,
  type ThreadLock,
  type ThreadStore,
} from '../../src/index.js';
import { createScriptedProvider, manualClock } from '../../src/testing/index.js';
import { lookupTool, manifest, registry } from '../helpers/agents.js';
import { scriptedGuardrail } from '@baton/manifest/testing';

const TRIAGE = 'io.baton.test.triage';
const REFUNDS = 'io.baton.test.refunds';
const CLERK = 'io.baton.test.clerk';
const LEASE_MS = 60_000;

type Trigger = 'mergeState' | 'resume' | 'saveSuspendedRun';

const stores: Array<[string, (clock: () => Date) => ThreadStore]> = [
  ['memory', (clock) => createMemoryThreadStore({ clock })],
  ['sqlite', (clock) => createSqliteThreadStore({ file: ':memory:', clock })],
];

/**
 * The store the runner gets: `store`, except that the first write of kind `trigger` (armed by
 * the test) is preceded by a take-over: the clock passes the lease and an intruder takes the lock.
 */
function takingOver(store: ThreadStore, clock: ReturnType<typeof manualClock>, trigger: Trigger) {
  const state: { armed: boolean; runId?: string; intruder?: ThreadLock } = { armed: false };
  const takeOver = async (threadId: string) => {
    state.armed = false;
    clock.advance(LEASE_MS + 1);
    state.intruder = await store.acquireThreadLock(threadId, { owner: 'intruder', waitMs: 0, leaseMs: 60 * LEASE_MS, autoRenew: false });
  };
  const resumesRun = (runId: string, status: unknown) =>
    state.armed && trigger === 'resume' && runId === state.runId && status === 'in_progress';
  const wrapped: ThreadStore = {
    ...store,
    async mergeState(threadId, patch, options) {
      if (state.armed && trigger === 'mergeState') await takeOver(threadId);
      return store.mergeState(threadId, patch, options);
    },
    async updateRun(runId, input) {
      if (resumesRun(runId, input.status)) await takeOver((await store.getRun(runId))!.threadId);
      return store.updateRun(runId, input);
    },
    async writeBatch(writes: readonly StoreWrite[], options) {
      for (const w of writes)
        if (w.op === 'updateRun' && resumesRun(w.runId, w.input.status)) await takeOver((await store.getRun(w.runId))!.threadId);
      return store.writeBatch!(writes, options);
    },
    async saveSuspendedRun(input, options) {
      if (state.armed && trigger === 'saveSuspendedRun') await takeOver(input.threadId);
      return store.saveSuspendedRun!(input, options);
    },
  };
  return { wrapped, state };
}

describe.each(stores)('fenced single writes (%s store)', (_name, makeStore) => {
  it("refuses the handoff-gate path's state merge after a take-over (STORE_LOCK_LOST), the state unchanged", async () => {
    const clock = manualClock();
    const store = makeStore(clock.now);
    const { wrapped, state } = takingOver(store, clock, 'mergeState');
    state.armed = true;
    let gateRan = false;
    const runner = new Runner({
      registry: registry([manifest(TRIAGE), manifest(REFUNDS)], `agents:\n  ${TRIAGE}:\n    handoffs: [${REFUNDS}]\n`),
      guardrails: scriptedGuardrail().validator,
      store: wrapped,
      modelProvider: createScriptedProvider({
        scripts: {
          triage: [
            {
              toolCalls: [
                { name: 'system__handoff', arguments: { target_agent_id: REFUNDS, input: 'refund it', state: { stale: 'write' } } },
              ],
            },
          ],
          refunds: [{ message: 'done' }],
        },
      }).provider,
      handoffGate: {
        prepare: async () => {
          gateRan = true;
          return { input: 'refund it' };
        },
      },
      limits: { lockLeaseMs: LEASE_MS },
    });
    const result = await runner.run({ agentId: TRIAGE, input: 'refund order 1', threadId: 'thread-merge' });
    expect(state.intruder).toBeDefined();
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('STORE_LOCK_LOST');
    expect(gateRan).toBe(false);
    expect((await store.getThread('thread-merge'))!.state).toEqual({});
    await state.intruder!.release();
    await store.close();
  });

  const approvalsRunner = (store: ThreadStore, clock: ReturnType<typeof manualClock>) => {
    const calls: string[] = [];
    const runner = new Runner({
      registry: registry(
        [manifest(CLERK, { tools: [lookupTool()] })],
        `agents:\n  ${CLERK}:\n    approval_required_tools: [lookup_order]\n`,
      ),
      tools: {
        lookup_order: async () => {
          calls.push('lookup_order');
          return 'found';
        },
      },
      guardrails: scriptedGuardrail().validator,
      store,
      modelProvider: createScriptedProvider({
        scripts: {
          clerk: (_req, i) => (i === 0 ? { toolCalls: [{ name: 'lookup_order', arguments: { order_id: '42' } }] } : { message: 'done' }),
        },
      }).provider,
      clock: clock.now,
      limits: { lockLeaseMs: LEASE_MS, runTimeoutMs: 600_000 },
    });
    return { runner, calls };
  };

  it("refuses the resumed run's return to in_progress after a take-over (STORE_LOCK_LOST): the run still waits, the tool never ran", async () => {
    const clock = manualClock();
    const store = makeStore(clock.now);
    const { wrapped, state } = takingOver(store, clock, 'resume');
    const { runner, calls } = approvalsRunner(wrapped, clock);
    const paused = await runner.run({ agentId: CLERK, input: 'look up 42', threadId: 'thread-resume' });
    expect(paused.status).toBe('requires_action');
    const itemsBefore = await store.listItems('thread-resume');
    const auditBefore = await store.listAudit('thread-resume');
    state.runId = paused.run_id;
    state.armed = true;
    const id = paused.required_action!.approvals[0]!.id;
    const outcome = await runner.submitApprovals({ runId: paused.run_id, decisions: [{ id, approve: true }] }).then(
      (r) => r.error?.code ?? r.status,
      (error: { code?: string }) => error.code,
    );
    expect(state.intruder).toBeDefined();
    expect(outcome).toBe('STORE_LOCK_LOST');
    // Nothing changed: the run still waits for its decision, with its record; no item, no audit.
    expect((await store.getRun(paused.run_id))?.status).toBe('requires_action');
    expect(await store.getSuspendedRun!(paused.run_id)).toBeDefined();
    expect(await store.listItems('thread-resume')).toEqual(itemsBefore);
    expect(await store.listAudit('thread-resume')).toEqual(auditBefore);
    expect(calls).toEqual([]);
    await state.intruder!.release();
    await store.close();
  });

  it('refuses the suspended record of a paused run after a take-over (STORE_LOCK_LOST): no record, nothing waits', async () => {
    const clock = manualClock();
    const store = makeStore(clock.now);
    const { wrapped, state } = takingOver(store, clock, 'saveSuspendedRun');
    state.armed = true;
    const { runner } = approvalsRunner(wrapped, clock);
    const result = await runner.run({ agentId: CLERK, input: 'look up 42', threadId: 'thread-suspend' });
    expect(state.intruder).toBeDefined();
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('STORE_LOCK_LOST');
    expect(await store.listSuspendedRuns!('thread-suspend')).toEqual([]);
    expect((await store.listAudit('thread-suspend')).map((a) => a.kind)).not.toContain('approval_requested');
    await state.intruder!.release();
    await store.close();
  });
});
