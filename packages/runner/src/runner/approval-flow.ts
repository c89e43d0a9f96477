// The runner's side of resumable approvals: which calls wait, pausing a run into the store, and
// applying decisions to the restored SDK run state. runner.ts calls these through small hooks.
import type { Agent, RunState } from '@openai/agents-core';
import { RunnerError, toErrorInfo } from '../errors.js';
import type { SuspendedRun, ThreadStore } from '../store/types.js';
import type { AgentRunState, CallState } from './call-state.js';
import {
  APPROVAL_STATE_INVALID,
  ApprovalsUnsupportedError,
  DEFAULT_REJECTION,
  newApprovalId,
  type ApprovalPolicy,
  type StateSeal,
} from './approvals.js';
import type { ToolSpec } from './tool-calls.js';
import type { ApprovalDecision } from './types.js';

/** The store methods approvals need, all present. */
export type ApprovalStore = ThreadStore &
  Required<Pick<ThreadStore, 'saveSuspendedRun' | 'getSuspendedRun' | 'listSuspendedRuns' | 'takeSuspendedRun'>>;

/** The store, when it can keep paused runs. */
export function approvalStore(store: ThreadStore): ApprovalStore | undefined {
  return store.saveSuspendedRun && store.getSuspendedRun && store.listSuspendedRuns && store.takeSuspendedRun
    ? (store as ApprovalStore)
    : undefined;
}

/**
 * Whether one call waits for a human: baton.yml `approval_required_tools`, the system tool's
 * `needsApproval`, then `RunnerOptions.approvals.policy`. A rule that throws says yes (fail closed).
 */
export function approvalDecider(
  call: CallState,
  run: AgentRunState,
  policy: ApprovalPolicy | undefined,
): ((spec: ToolSpec, args: Record<string, unknown>) => Promise<boolean>) | undefined {
  const listed = new Set(run.agent.deployment.approval_required_tools ?? []);
  const anySystem = [...call.systemTools.values(), ...call.requestSystemTools].some(
    (t) => t.needsApproval !== undefined && t.needsApproval !== false,
  );
  if (listed.size === 0 && !anySystem && !policy) return undefined;
  return async (spec, args) => {
    if (listed.has(spec.protocolName)) return true;
    try {
      const own = spec.system?.needsApproval;
      if (own === true) return true;
      if (typeof own === 'function' && (await own(args, { agentId: run.agent.manifest.id, threadId: call.threadId })) === true) return true;
      if (
        policy &&
        (await policy({ agentId: run.agent.manifest.id, threadId: call.threadId, toolName: spec.protocolName, arguments: args })) === true
      )
        return true;
      return false;
    } catch (error) {
      call.logger.warn('an approval rule threw; the call waits for approval', {
        agent_id: run.agent.manifest.id,
        tool: spec.protocolName,
        error: toErrorInfo(error),
      });
      return true;
    }
  };
}

/** Keeps a paused agent run in the store: its sealed state and one pending approval per waiting call. */
export async function suspendAgentRun(input: {
  store: ThreadStore;
  seal: StateSeal;
  call: CallState;
  run: AgentRunState;
  state: string;
  calls: Array<{ callId: string; toolName: string; arguments: string }>;
  expiresAt: string;
}): Promise<SuspendedRun> {
  const store = approvalStore(input.store);
  if (!store)
    throw new ApprovalsUnsupportedError(
      'a tool call needs approval, but the thread store cannot keep paused runs (saveSuspendedRun/getSuspendedRun/listSuspendedRuns/takeSuspendedRun)',
    );
  const { call, run } = input;
  const approvals = input.calls.map((c) => ({
    id: newApprovalId(),
    callId: c.callId,
    toolName: c.toolName,
    arguments: c.arguments,
    agentId: run.agent.manifest.id,
  }));
  await call.writes.flush();
  // Fenced like the batches: a worker that lost the thread's lock since the flush saves nothing.
  const saved = await store.saveSuspendedRun(
    {
      runId: run.runId,
      threadId: call.threadId,
      state: input.seal.seal(run.runId, input.state),
      approvals,
      expiresAt: input.expiresAt,
    },
    call.writes.lock ? { lock: call.writes.lock } : undefined,
  );
  await call.writes.appendAudit({
    threadId: call.threadId,
    runId: run.runId,
    kind: 'approval_requested',
    data: {
      agent_id: run.agent.manifest.id,
      expires_at: input.expiresAt,
      approvals: approvals.map((a) => ({ id: a.id, tool_name: a.toolName, call_id: a.callId })),
    },
  });
  // Only once the paused run is kept: a listener told to decide must find something to decide.
  call.events.emit({
    type: 'approval_required',
    thread_id: call.threadId,
    run_id: run.runId,
    agent_id: run.agent.manifest.id,
    approvals: saved.approvals.map((a) => ({ id: a.id, tool_name: a.toolName })),
    expires_at: saved.expiresAt,
  });
  return saved;
}

/**
 * Applies decisions to a restored run state: every interruption in it must be a pending approval
 * of the suspended record (same call id and tool) and every pending approval must be in it, or
 * the state is refused (`APPROVAL_STATE_INVALID`). Records each decision as a thread item and an
 * audit record (the reason stays out of the audit record), and announces it, except those in
 * `recorded`: an earlier resume of the same record committed them already (its decisions are
 * the same, see ApprovalGate.claim), so a second resume applies them without repeating them.
 */
export async function applyDecisions(input: {
  call: CallState;
  run: AgentRunState;
  state: RunState<unknown, Agent<unknown, 'text'>>;
  suspended: SuspendedRun;
  decisions: readonly ApprovalDecision[];
  decidedBy: string | undefined;
  /** Decisions already on the thread (an earlier, unfinished resume): approval id → recorded reason. */
  recorded?: ReadonlyMap<string, { reason?: string }>;
}): Promise<void> {
  const { call, run, state, suspended } = input;
  const interruptions = state.getInterruptions();
  const byCall = new Map(suspended.approvals.map((a) => [a.callId, a]));
  const decisionOf = new Map(input.decisions.map((d) => [d.id, d]));
  const decided: Array<{ id: string; approved: boolean }> = [];
  const mismatch = (why: string) =>
    new RunnerError(APPROVAL_STATE_INVALID, `the paused run's state does not match its pending approvals: ${why}`);
  if (interruptions.length !== suspended.approvals.length)
    throw mismatch(`${interruptions.length} waiting call(s) in the state, ${suspended.approvals.length} pending approval(s)`);
  for (const item of interruptions) {
    const raw = item.rawItem as { callId?: string; arguments?: string };
    const pending = raw.callId !== undefined ? byCall.get(raw.callId) : undefined;
    if (!pending) throw mismatch(`call ${JSON.stringify(String(raw.callId).slice(0, 100))} is not pending`);
    if ((raw.arguments ?? '') !== pending.arguments)
      throw mismatch(`the arguments of call ${JSON.stringify(pending.callId.slice(0, 100))} changed`);
    const decision = decisionOf.get(pending.id);
    if (!decision) throw mismatch(`no decision for ${pending.id}`);
    if (decision.approve) {
      state.approve(item);
      (run.approvedCalls ??= new Map()).set(pending.callId, pending.id);
    } else {
      // A rejection already on the thread is repeated as recorded: the model is told what the
      // thread says, not a later request's reason (claim made sure the decision itself is the same).
      const earlier = input.recorded?.get(pending.id);
      state.reject(item, { message: (earlier ? earlier.reason : decision.reason) ?? DEFAULT_REJECTION });
    }
    if (input.recorded?.has(pending.id)) continue;
    await call.writes.appendItems(call.threadId, run.runId, [
      {
        type: 'approval',
        approval_id: pending.id,
        call_id: pending.callId,
        name: pending.toolName,
        decision: decision.approve ? 'approved' : 'rejected',
        ...(decision.reason ? { reason: decision.reason } : {}),
      },
    ]);
    await call.writes.appendAudit({
      threadId: call.threadId,
      runId: run.runId,
      kind: 'approval_decision',
      data: {
        approval_id: pending.id,
        tool_name: pending.toolName,
        call_id: pending.callId,
        decision: decision.approve ? 'approved' : 'rejected',
        ...(input.decidedBy ? { decided_by: input.decidedBy } : {}),
      },
    });
    decided.push({ id: pending.id, approved: decision.approve });
  }
  // Only once every interruption matched: a refused state runs nothing, so no decision is announced.
  for (const d of decided) call.events.emit({ type: 'approval_decided', run_id: run.runId, id: d.id, approved: d.approved });
}
