import { HANDOFF_PROTOCOL_NAME, HandoffPayloadSchema, type HandoffGuardrailCheck, type HandoffPayload } from '@baton/manifest';
import type { Context } from '@opentelemetry/api';
import { HandoffLimitError, HandoffLoopError, HandoffRejectedError, toErrorInfo } from '../errors.js';
import type { RegisteredAgent } from '../registry/types.js';
import type { JsonObject } from '../store/types.js';
import { nextStateMergeKey, type AgentRunState, type CallState } from './call-state.js';
import type { RunnerContext } from './context.js';
import { checkGuardrail } from './guardrails.js';
import type { AgentRunOutcome } from './in-process-agent.js';
import { successfulToolCalls } from './tool-evidence.js';
import { endSpan } from './tracing.js';
import type { PreparedHandoff } from './types.js';

/** One `system::handoff` the source agent's turn asked for. */
export interface HandoffStep {
  /** The call the chain runs in. */
  call: CallState;
  /** The source agent's run. */
  run: AgentRunState;
  /** The handoff the agent asked for (and any it asked for in the same turn, ignored). */
  outcome: Extract<AgentRunOutcome, { kind: 'handoff' }>;
  /** Agent ids run so far in this call, for loop detection. */
  chain: readonly string[];
  /** Handoffs honoured so far in this call, against `maxHandoffs`. */
  handoffsSoFar: number;
  /** The source run's span. */
  parent: Context;
}

/** Honoured (the next agent and what it receives) or rejected (the source run fails with `error`). */
export type HandoffOutcome =
  | { ok: true; target: RegisteredAgent; input: string; prepared?: PreparedHandoff }
  | { ok: false; error: { code: string; message: string } };

/**
 * Gate, guardrail check and handoff gate for one handoff, with its items, audit records and span;
 * the chain cancels the source run and starts the target's.
 */
export async function runHandoff(ctx: RunnerContext, step: HandoffStep): Promise<HandoffOutcome> {
  const { call, run, outcome, chain, handoffsSoFar, parent } = step;
  const source = run.agent;
  const scope = ctx.tracing.start(`baton.handoff`, parent, {
    'baton.handoff.protocol': HANDOFF_PROTOCOL_NAME,
    'baton.handoff.source': source.manifest.id,
    'baton.handoff.target': outcome.payload.target_agent_id,
    'baton.handoff.call_id': outcome.callId,
  });
  const audit = async (status: string, data: JsonObject = {}) => {
    await call.writes.appendAudit({
      threadId: call.threadId,
      runId: run.runId,
      kind: 'handoff',
      data: {
        protocol: HANDOFF_PROTOCOL_NAME,
        source_agent_id: source.manifest.id,
        status,
        trace_id: scope.ids.traceId,
        span_id: scope.ids.spanId,
        ...data,
      },
    });
  };
  for (const ignored of outcome.ignored) {
    await call.writes.appendItems(call.threadId, run.runId, [
      {
        type: 'handoff',
        protocol: HANDOFF_PROTOCOL_NAME,
        call_id: ignored.callId,
        target_agent_id: ignored.payload.target_agent_id,
        status: 'ignored',
      },
    ]);
    await audit('ignored', {
      call_id: ignored.callId,
      target_agent_id: ignored.payload.target_agent_id,
      reason: 'only the first handoff of a turn is honoured',
    });
  }
  const reject = async (
    error: { code: string; message: string },
    target: string,
  ): Promise<{ ok: false; error: { code: string; message: string } }> => {
    await call.writes.appendItems(call.threadId, run.runId, [
      {
        type: 'handoff',
        protocol: HANDOFF_PROTOCOL_NAME,
        call_id: outcome.callId,
        target_agent_id: target,
        status: 'rejected',
        error: error.code,
      },
    ]);
    await audit('rejected', { call_id: outcome.callId, target_agent_id: target, error_code: error.code });
    endSpan(scope.span, error);
    return { ok: false, error };
  };
  const limitCheck = (target: string): { code: string; message: string } | undefined => {
    if (!source.deployment.handoffs.includes(target)) {
      const e = new HandoffRejectedError(`${source.manifest.id} may not hand off to ${target} (not in its baton.yml handoffs)`, {
        code: 'HANDOFF_TARGET_NOT_ALLOWED',
      });
      return { code: e.code, message: e.message };
    }
    if (chain.includes(target)) {
      const e = new HandoffLoopError(`handoff loop: ${[...chain, target].join(' → ')}`);
      return { code: e.code, message: e.message };
    }
    if (handoffsSoFar + 1 > ctx.limits.maxHandoffs) {
      const e = new HandoffLimitError(`more than ${ctx.limits.maxHandoffs} handoffs in one run (${[...chain, target].join(' → ')})`);
      return { code: e.code, message: e.message };
    }
    return undefined;
  };

  let payload: HandoffPayload = outcome.payload;
  const early = limitCheck(payload.target_agent_id);
  if (early) return reject(early, payload.target_agent_id);

  const check = await checkGuardrail(call.guard, {
    actionType: 'AGENT_HANDOFF',
    payload,
    agentId: source.manifest.id,
    threadId: call.threadId,
    runId: run.runId,
    parent: scope.context,
    signal: call.signal,
    detail: { 'baton.handoff.target': payload.target_agent_id },
    about: { subject: payload.target_agent_id, checked: 'request' },
  });
  if (check.decision === 'BLOCK') {
    const e = new HandoffRejectedError(
      `handoff ${source.manifest.id} → ${payload.target_agent_id} blocked by guardrail (${check.reasonCode}): ${check.reasonMessage}`,
      { code: 'HANDOFF_BLOCKED' },
    );
    return reject({ code: e.code, message: e.message }, payload.target_agent_id);
  }
  if (check.decision === 'MODIFY') {
    payload = check.payload;
    const again = limitCheck(payload.target_agent_id);
    if (again) return reject(again, payload.target_agent_id);
  }
  const target = ctx.registry.get(payload.target_agent_id);
  if (!target)
    return reject(
      { code: 'AGENT_NOT_FOUND', message: `handoff target ${payload.target_agent_id} is not registered` },
      payload.target_agent_id,
    );

  let prepared: PreparedHandoff | undefined;
  let input = payload.input;
  const mergeKey = nextStateMergeKey(call, run);
  if (!ctx.options.handoffGate) {
    await call.writes.mergeState(call.threadId, payload.state, mergeKey);
  } else {
    // The gate may read the store: everything so far is committed first.
    await call.writes.flush();
    // Fenced like the batches: a worker that lost the thread's lock since the flush writes nothing.
    const threadState = await ctx.store.mergeState(call.threadId, payload.state, {
      ...(mergeKey !== undefined ? { idempotencyKey: mergeKey } : {}),
      ...(call.writes.lock ? { lock: call.writes.lock } : {}),
    });
    // What crosses is the gate's, so the gate checks it through the runner's checker (once,
    // recorded here); a gate that does not is checked by the runner on what it returns.
    let crossingChecked = false;
    const checkHandoff: HandoffGuardrailCheck = async (crossing) => {
      crossingChecked = true;
      // A gate's bug must not reach the guardrail as a payload it cannot judge (nor fail open on it).
      if (!HandoffPayloadSchema.safeParse(crossing).success) {
        const invalid = {
          action_type: 'AGENT_HANDOFF',
          decision: 'BLOCK',
          reason_code: 'HANDOFF_CROSSING_INVALID',
          agent_id: source.manifest.id,
        };
        call.guard.decisions.push(invalid);
        call.guard.onDecision?.(invalid, run.runId, { subject: target.manifest.id, checked: 'crossing' });
        return {
          decision: 'BLOCK',
          reasonCode: 'HANDOFF_CROSSING_INVALID',
          reasonMessage: 'the handoff gate asked to check something that is not a handoff payload',
        };
      }
      const c = await checkGuardrail(call.guard, {
        actionType: 'AGENT_HANDOFF',
        payload: crossing,
        agentId: source.manifest.id,
        threadId: call.threadId,
        runId: run.runId,
        parent: scope.context,
        signal: call.signal,
        detail: { 'baton.handoff.target': String(crossing?.target_agent_id), 'baton.handoff.checked': 'crossing' },
        about: { subject: crossing.target_agent_id, checked: 'crossing' },
      });
      return { decision: c.decision, reasonCode: c.reasonCode, reasonMessage: c.reasonMessage };
    };
    try {
      const toolResults = await successfulToolCalls(ctx.store, call.threadId);
      prepared = await ctx.options.handoffGate.prepare({
        threadId: call.threadId,
        runId: run.runId,
        sourceAgentId: source.manifest.id,
        targetAgentId: target.manifest.id,
        input: payload.input,
        state: payload.state,
        threadState,
        auth: call.auth,
        traceId: scope.ids.traceId,
        toolResults,
        checkHandoff,
      });
      input = prepared.input;
    } catch (error) {
      const info = toErrorInfo(error, 'HANDOFF_GATE_FAILED');
      return reject(
        { code: info.code, message: `handoff gate refused ${source.manifest.id} → ${target.manifest.id}: ${info.message}` },
        target.manifest.id,
      );
    }
    if (!crossingChecked && (prepared.input !== payload.input || prepared.state !== undefined)) {
      const crossing = await checkHandoff({ target_agent_id: target.manifest.id, input: prepared.input, state: prepared.state ?? {} });
      if (crossing.decision !== 'ALLOW') {
        const e = new HandoffRejectedError(
          `handoff ${source.manifest.id} → ${target.manifest.id} blocked by guardrail on what crosses (${crossing.reasonCode}): ${crossing.reasonMessage}`,
          { code: 'HANDOFF_BLOCKED' },
        );
        return reject({ code: e.code, message: e.message }, target.manifest.id);
      }
    }
  }
  await call.writes.appendItems(call.threadId, run.runId, [
    {
      type: 'handoff',
      protocol: HANDOFF_PROTOCOL_NAME,
      call_id: outcome.callId,
      target_agent_id: target.manifest.id,
      status: 'honoured',
      state_keys: Object.keys(payload.state),
      ...(prepared?.packetId ? { packet_id: prepared.packetId } : {}),
    },
  ]);
  await audit('honoured', {
    call_id: outcome.callId,
    target_agent_id: target.manifest.id,
    state_keys: Object.keys(payload.state),
    guardrail_decision: check.decision,
    ...(prepared?.packetId ? { packet_id: prepared.packetId } : {}),
  });
  endSpan(scope.span);
  return prepared ? { ok: true, target, input, prepared } : { ok: true, target, input };
}
