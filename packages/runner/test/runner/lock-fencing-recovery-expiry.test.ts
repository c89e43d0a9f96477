// Fencing of the writes a call makes right after taking the thread lock, before its run starts:
// the recovery of runs a dead process abandoned, the closing of an expired approval (from a new
// run on the thread and from a late decision) and the removal of a finished run's left-over
// suspended record. A call whose lease ran out and whose thread another owner took in between
// must change none of them. As in lock-fencing-direct-writes.test.ts, a store wrapper (the store
// is the runner's seam) makes the take-over happen right before the write.
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

const CLERK = 'io.baton.test.clerk';
const LEASE_MS = 60_000;
const APPROVAL_TIMEOUT_MS = 600_000;

/** Which write is preceded by the take-over: a run leaving `in_progress`, a run expiring, or a record taken. */
type Trigger = 'recover' | 'expire' | 'take';

const stores: Array<[string, (clock: () => Date) => ThreadStore]> = [
  ['memory', (clock) => createMemoryThreadStore({ clock })],
  ['sqlite', (clock) => createSqliteThreadStore({ file: ':memory:', clock })],
  // Without writeBatch: the store's single methods (the take is fenced there).
  [
    'memory, unbatched',
    (clock) => {
      const { writeBatch: _b, commitAndRelease: _c, ...rest } = createMemoryThreadStore({ clock });
      return rest as ThreadStore;
    },
  ],
];

function takingOver(store: ThreadStore, clock: ReturnType<typeof manualClock>, trigger: Trigger) {
  const state: { armed: boolean; intruder?: ThreadLock } = { armed: false };
  const takeOver = async (threadId: string) => {
    state.armed = false;
    clock.advance(LEASE_MS + 1);
    state.intruder = await store.acquireThreadLock(threadId, { owner: 'intruder', waitMs: 0, leaseMs: 60 * LEASE_MS, autoRenew: false });
  };
  const fires = (status: unknown) =>
    state.armed &&
    ((trigger === 'recover' && (status === 'failed' || status === 'requires_action')) || (trigger === 'expire' && status === 'expired'));
  const wrapped: ThreadStore = {
    ...store,
    async updateRun(runId, input) {
      if (fires(input.status)) await takeOver((await store.getRun(runId))!.threadId);
      return store.updateRun(runId, input);
    },
    async takeSuspendedRun(runId, options) {
      if (state.armed && (trigger === 'take' || trigger === 'expire')) await takeOver((await store.getSuspendedRun!(runId))!.threadId);
      return store.takeSuspendedRun!(runId, options);
    },
  };
  if (store.writeBatch)
    wrapped.writeBatch = async (writes: readonly StoreWrite[], options) => {
      for (const w of writes) if (w.op === 'updateRun' && fires(w.input.status)) await takeOver((await store.getRun(w.runId))!.threadId);
      return store.writeBatch!(writes, options);
    };
  return { wrapped, state };
}

function clerkRunner(store: ThreadStore, clock: ReturnType<typeof manualClock>) {
  return new Runner({
    registry: registry([manifest(CLERK, { tools: [lookupTool()] })], `agents:\n  ${CLERK}:\n    approval_required_tools: [lookup_order]\n`),
    tools: { lookup_order: async () => 'found' },
    guardrails: scriptedGuardrail().validator,
    store,
    modelProvider: createScriptedProvider({
      scripts: {
        clerk: (req) =>
          JSON.stringify(req).includes('pause')
            ? { toolCalls: [{ name: 'lookup_order', arguments: { order_id: '42' } }] }
            : { message: 'done' },
      },
    }).provider,
    clock: clock.now,
    limits: { lockLeaseMs: LEASE_MS, runTimeoutMs: 600_000, approvalTimeoutMs: APPROVAL_TIMEOUT_MS },
  });
}

describe.each(stores)('fenced writes under a fresh thread lock (%s store)', (name, makeStore) => {
  // A store without batches has no fenced updateRun: its recovery is not fenced (README), so this
  // case is for stores with batches only.
  if (!name.includes('unbatched'))
    it('refuses the recovery of abandoned runs after a take-over (STORE_LOCK_LOST): both runs stay as they were', async () => {
      const clock = manualClock();
      const store = makeStore(clock.now);
      const { wrapped, state } = takingOver(store, clock, 'recover');
      // Two runs a dead process left: one plainly in progress, one that died resuming after approvals.
      await store.createThread({ id: 'thread-recover' });
      const crashed = await store.createRun('thread-recover', { agentId: CLERK, agentVersion: '1.0.0', status: 'in_progress' });
      const resuming = await store.createRun('thread-recover', { agentId: CLERK, agentVersion: '1.0.0', status: 'requires_action' });
      await store.saveSuspendedRun!({
        runId: resuming.id,
        threadId: 'thread-recover',
        state: 'sealed',
        approvals: [{ id: 'appr_1', callId: 'call_1', toolName: 'lookup_order', arguments: '{}', agentId: CLERK }],
        expiresAt: new Date(clock.now().getTime() + 10 * APPROVAL_TIMEOUT_MS).toISOString(),
      });
      await store.updateRun(resuming.id, { status: 'in_progress' });
      state.armed = true;
      const result = await clerkRunner(wrapped, clock).run({ agentId: CLERK, input: 'hello', threadId: 'thread-recover' });
      expect(state.intruder).toBeDefined();
      expect(result.status).toBe('failed');
      expect(result.error?.code).toBe('STORE_LOCK_LOST');
      expect((await store.getRun(crashed.id))?.status).toBe('in_progress');
      expect((await store.getRun(resuming.id))?.status).toBe('in_progress');
      expect(await store.listRuns('thread-recover')).toHaveLength(2);
      await state.intruder!.release();
      await store.close();
    });

  const pausedRun = async (store: ThreadStore, clock: ReturnType<typeof manualClock>, threadId: string) => {
    const paused = await clerkRunner(store, clock).run({ agentId: CLERK, input: 'pause here', threadId });
    expect(paused.status).toBe('requires_action');
    clock.advance(APPROVAL_TIMEOUT_MS + 1);
    return { paused, auditBefore: await store.listAudit(threadId), itemsBefore: await store.listItems(threadId) };
  };

  it('refuses the closing of an expired approval by a new run after a take-over (STORE_LOCK_LOST): the run still waits', async () => {
    const clock = manualClock();
    const store = makeStore(clock.now);
    const { wrapped, state } = takingOver(store, clock, 'expire');
    const { paused, auditBefore, itemsBefore } = await pausedRun(store, clock, 'thread-expire-new');
    state.armed = true;
    const result = await clerkRunner(wrapped, clock).run({ agentId: CLERK, input: 'hello', threadId: 'thread-expire-new' });
    expect(state.intruder).toBeDefined();
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('STORE_LOCK_LOST');
    // Nothing half-done: the run waits with its record, no approval_expired audit, no new run.
    expect((await store.getRun(paused.run_id))?.status).toBe('requires_action');
    expect(await store.getSuspendedRun!(paused.run_id)).toBeDefined();
    expect(await store.listAudit('thread-expire-new')).toEqual(auditBefore);
    expect(await store.listItems('thread-expire-new')).toEqual(itemsBefore);
    expect(await store.listRuns('thread-expire-new')).toHaveLength(1);
    await state.intruder!.release();
    await store.close();
  });

  it('refuses the closing of an expired approval by a late decision after a take-over (STORE_LOCK_LOST): the run still waits', async () => {
    const clock = manualClock();
    const store = makeStore(clock.now);
    const { wrapped, state } = takingOver(store, clock, 'expire');
    const { paused, auditBefore } = await pausedRun(store, clock, 'thread-expire-late');
    state.armed = true;
    const id = paused.required_action!.approvals[0]!.id;
    const outcome = await clerkRunner(wrapped, clock)
      .submitApprovals({ runId: paused.run_id, decisions: [{ id, approve: true }] })
      .then(
        (r) => r.error?.code ?? r.status,
        (error: { code?: string }) => error.code,
      );
    expect(state.intruder).toBeDefined();
    expect(outcome).toBe('STORE_LOCK_LOST');
    expect((await store.getRun(paused.run_id))?.status).toBe('requires_action');
    expect(await store.getSuspendedRun!(paused.run_id)).toBeDefined();
    expect(await store.listAudit('thread-expire-late')).toEqual(auditBefore);
    await state.intruder!.release();
    // The holder that took over closes it, once.
    const closed = await clerkRunner(store, clock).run({ agentId: CLERK, input: 'hello', threadId: 'thread-expire-late' });
    expect(closed.status).not.toBe('failed');
    expect((await store.getRun(paused.run_id))?.status).toBe('expired');
    expect((await store.listAudit('thread-expire-late')).filter((a) => a.kind === 'approval_expired')).toHaveLength(1);
    await store.close();
  });

  it("refuses the removal of a finished run's left-over record after a take-over (STORE_LOCK_LOST): the record stays", async () => {
    const clock = manualClock();
    const store = makeStore(clock.now);
    const { wrapped, state } = takingOver(store, clock, 'take');
    await store.createThread({ id: 'thread-leftover' });
    const run = await store.createRun('thread-leftover', { agentId: CLERK, agentVersion: '1.0.0', status: 'requires_action' });
    await store.saveSuspendedRun!({
      runId: run.id,
      threadId: 'thread-leftover',
      state: 'sealed',
      approvals: [{ id: 'appr_1', callId: 'call_1', toolName: 'lookup_order', arguments: '{}', agentId: CLERK }],
      expiresAt: new Date(clock.now().getTime() + APPROVAL_TIMEOUT_MS).toISOString(),
    });
    await store.updateRun(run.id, { status: 'completed' });
    state.armed = true;
    const result = await clerkRunner(wrapped, clock).run({ agentId: CLERK, input: 'hello', threadId: 'thread-leftover' });
    expect(state.intruder).toBeDefined();
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('STORE_LOCK_LOST');
    expect(await store.getSuspendedRun!(run.id)).toBeDefined();
    await state.intruder!.release();
    await store.close();
  });
});
