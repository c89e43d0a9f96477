import type { GuardrailChecker, GuardrailCheckResult, PayloadOf } from '@baton/guardrail-client';
import type { ActionType, Decision, Finding } from '@baton/manifest';
import type { Context } from '@opentelemetry/api';
import type { DecisionSubject } from './events.js';
import type { ThreadStore } from '../store/types.js';
import { endSpan, type RunTracing } from './tracing.js';
import type { WriteBuffer } from './write-buffer.js';

/** What a guardrail check decided, with the payload to proceed with. */
export interface GuardrailOutcome<P> {
  decision: Decision;
  reasonCode: string;
  reasonMessage: string;
  /** The original payload on ALLOW, the modified one on MODIFY, the original on BLOCK. */
  payload: P;
  findings?: Finding[];
  /** True when no guardrail answered and the fail policy decided. */
  failed: boolean;
}

/** A decision as listed in `RunResult.guardrail_decisions` (no payload content). */
export interface RecordedDecision {
  action_type: string;
  decision: string;
  reason_code: string;
  agent_id: string;
  findings?: unknown[];
}

export interface GuardrailCheck<A extends ActionType> {
  actionType: A;
  payload: PayloadOf<A>;
  agentId: string;
  threadId: string;
  runId: string | null;
  parent: Context;
  signal: AbortSignal;
  /** Extra span / audit attributes (e.g. the tool's protocol name); never content. */
  detail?: Record<string, string>;
  /** What the decision is about, for its `guardrail_decision` event (ids and names only). */
  about?: DecisionSubject;
}

/** Where one run call's guardrail checks go and are recorded. */
export interface GuardrailCheckerOptions {
  /** The one call path (request building, timeout, verification, fail policy): the Runner's. */
  checker: GuardrailChecker;
  tracing: RunTracing;
  store: ThreadStore;
  /** When set, audit records are queued here (committed with the turn's other writes). */
  writes?: WriteBuffer;
  decisions: RecordedDecision[];
  /** Told of every recorded decision (the runner's `guardrail_decision` event). */
  onDecision?: (decision: RecordedDecision, runId: string | null, about?: DecisionSubject) => void;
}

/**
 * Calls the guardrail for one boundary crossing through the checker (which never throws: a
 * failed call is a BLOCK, or an ALLOW where fail-open is configured) and records the decision
 * once: in the call's decision list, as an audit record and on its own span, whose ids are the
 * request's trace ids.
 */
export async function checkGuardrail<A extends ActionType>(
  options: GuardrailCheckerOptions,
  check: GuardrailCheck<A>,
): Promise<GuardrailOutcome<PayloadOf<A>>> {
  const scope = options.tracing.start(`baton.guardrail ${check.actionType}`, check.parent, {
    'baton.guardrail.action_type': check.actionType,
    'baton.agent.id': check.agentId,
    'baton.thread.id': check.threadId,
    ...check.detail,
  });
  const headers = options.tracing.headers(scope.context);
  const result: GuardrailCheckResult<PayloadOf<A>> = await options.checker.check({
    actionType: check.actionType,
    payload: check.payload,
    sourceAgentId: check.agentId,
    threadId: check.threadId,
    trace: { trace_id: scope.ids.traceId, span_id: scope.ids.spanId },
    headers,
    signal: check.signal,
  });

  const recorded: RecordedDecision = {
    action_type: check.actionType,
    decision: result.decision,
    reason_code: result.reasonCode,
    agent_id: check.agentId,
  };
  if (result.findings && result.findings.length > 0) recorded.findings = result.findings;
  options.decisions.push(recorded);
  options.onDecision?.(recorded, check.runId, check.about);
  scope.span.setAttributes({
    'baton.guardrail.decision': result.decision,
    'baton.guardrail.reason_code': result.reasonCode,
    'baton.guardrail.action_id': result.actionId,
  });
  await (options.writes ?? options.store)
    .appendAudit({
      threadId: check.threadId,
      runId: check.runId,
      kind: 'guardrail_decision',
      data: {
        action_id: result.actionId,
        action_type: check.actionType,
        decision: result.decision,
        reason_code: result.reasonCode,
        agent_id: check.agentId,
        findings: (result.findings ?? []).map((f) => ({ detector: f.detector, type: f.type, severity: f.severity })),
        trace_id: scope.ids.traceId,
        span_id: scope.ids.spanId,
        ...(result.failure ? { failure: result.failure.code } : {}),
        ...check.detail,
      },
    })
    .catch(() => undefined);
  endSpan(scope.span);
  const outcome: GuardrailOutcome<PayloadOf<A>> = {
    decision: result.decision,
    reasonCode: result.reasonCode,
    reasonMessage: result.reasonMessage,
    payload: result.payload,
    failed: result.failure !== undefined,
  };
  if (result.findings) outcome.findings = result.findings;
  return outcome;
}
