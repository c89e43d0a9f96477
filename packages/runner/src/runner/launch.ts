import { GuardrailBlockedError } from '../errors.js';
import type { SuspendedRun } from '../store/types.js';
import { applyDecisions, approvalDecider } from './approval-flow.js';
import type { ResumePlan } from './approval-gate.js';
import { APPROVAL_STATE_INVALID } from './approvals.js';
import type { AgentRunState, CallState } from './call-state.js';
import type { RunnerContext } from './context.js';
import { loadAgentHistory } from './history.js';
import { runInProcessAgent, type AgentRunOutcome, type InProcessAgentOptions } from './in-process-agent.js';
import { runSubprocessAgent } from './subprocess-agent.js';
import type { PreparedHandoff } from './types.js';

/** Thrown inside a racing model call when the AGENT_INPUT check blocks. */
export class InputBlockedDuringRace extends GuardrailBlockedError {}

/** A paused run being continued: the caller's decisions and the run as it was kept. */
export interface ResumingRun {
  plan: ResumePlan;
  suspended: SuspendedRun;
}

/** One agent run to start. */
export interface LaunchOptions {
  /** The call it belongs to. */
  call: CallState;
  /** The run, already created. */
  run: AgentRunState;
  /** The input as checked (empty when resuming). */
  input: string;
  /** What a handoff gate prepared for this run, if one did. */
  prepared: PreparedHandoff | undefined;
  /** The call's signal, or a racing input check's on top of it. */
  signal: AbortSignal;
  /** Continue this paused run instead of starting fresh. */
  resume?: ResumingRun;
}

/** Starts one agent run in its deployment mode (subprocess or in-process, fresh or resumed). */
export function launchAgent(ctx: RunnerContext, options: LaunchOptions): Promise<AgentRunOutcome> {
  const { call, run, input, prepared, signal, resume } = options;
  if (run.agent.deployment.mode === 'subprocess')
    return call.writes.flush().then(() => runSubprocessAgent(call, run, input, { signal, ...(prepared ? { prepared } : {}) }));
  const onRecipient = prepared?.onRecipientModelRequest?.bind(prepared);
  const { refused, ...hooks } = approvalHooks(ctx, call, run, resume);
  // A refused state never reaches the SDK.
  if (refused !== undefined)
    return Promise.resolve({
      kind: 'error',
      error: { code: APPROVAL_STATE_INVALID, message: `the paused run's stored state was refused: ${refused}` },
    });
  return runInProcessAgent(call, run, input, {
    sdkRunner: ctx.sdkRunner,
    modelProvider: ctx.options.modelProvider,
    signal,
    blockedError: () => new InputBlockedDuringRace('AGENT_INPUT', 'BLOCK', 'input blocked by guardrail'),
    ...(onRecipient ? { onFirstRequest: onRecipient } : {}),
    // A run reached through a handoff starts at the boundary: its input (the packet) is all it
    // sees. A thread this call created has no earlier turns: nothing to read.
    ...(run.ordinal === 0 && !resume && !call.freshThread ? { history: () => historyFor(ctx, call, run, signal) } : {}),
    ...hooks,
  });
}

/** needsApproval for the agent's tools and, when resuming, the restored state with the decisions applied. */
function approvalHooks(
  ctx: RunnerContext,
  call: CallState,
  run: AgentRunState,
  resume: ResumingRun | undefined,
): Pick<InProcessAgentOptions, 'needsApproval' | 'resume'> & { refused?: string } {
  const needsApproval = approvalDecider(call, run, ctx.options.approvals?.policy);
  const hooks: Pick<InProcessAgentOptions, 'needsApproval' | 'resume'> = needsApproval ? { needsApproval } : {};
  if (!resume) return hooks;
  const opened = ctx.seal.open(resume.suspended.runId, resume.suspended.state);
  if (!opened.ok) return { ...hooks, refused: opened.reason };
  hooks.resume = {
    state: opened.state,
    apply: (restored) =>
      applyDecisions({
        call,
        run,
        state: restored,
        suspended: resume.suspended,
        decisions: resume.plan.decisions,
        decidedBy: resume.plan.decidedBy,
        ...(resume.plan.recorded ? { recorded: resume.plan.recorded } : {}),
      }),
  };
  return hooks;
}

/** The thread's earlier turns as this agent may see them (history.ts), within its baton.yml window. */
function historyFor(ctx: RunnerContext, call: CallState, run: AgentRunState, signal: AbortSignal) {
  return loadAgentHistory({
    store: ctx.store,
    threadId: call.threadId,
    agentId: run.agent.manifest.id,
    runId: run.runId,
    window: run.agent.deployment.history,
    signal,
    ...(ctx.options.summarizeHistory ? { summarize: ctx.options.summarizeHistory } : {}),
  });
}
