import type { GuardrailChecker, GuardrailCheckResult, PayloadOf } from '@baton/guardrail-client';
import type { ActionType, Decision, Finding } from '@baton/manifest';
import type { GuardrailDecisionRecord } from '@baton/manifest/contracts';
import type { Context } from '@opentelemetry/api';
import type { DecisionSubject } from './events.js';
import type { ThreadStore } from '../store/types.js';
import { endSpan, type RunTracing, type SpanScope } from './tracing.js';
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

/** A decision as listed in `RunResult.guardrail_decisions` (no payload content): the one contract. */
export type RecordedDecision = GuardrailDecisionRecord;

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

  await recordDecision(options, {
    scope,
    threadId: check.threadId,
    runId: check.runId,
    decision: {
      action_type: check.actionType,
      decision: result.decision,
      reason_code: result.reasonCode,
      agent_id: check.agentId,
      ...(result.findings && result.findings.length > 0 ? { findings: result.findings } : {}),
    },
    ...(check.detail ? { detail: check.detail } : {}),
    ...(check.about ? { about: check.about } : {}),
    actionId: result.actionId,
    ...(result.failure ? { failure: result.failure.code } : {}),
  });
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

/** One decision to record, wherever it was made (here through the checker, or by a worker). */
export interface DecisionToRecord {
  /** The decision's own span (started by the caller, ended by it after recording). */
  scope: Pick<SpanScope, 'span' | 'ids'>;
  threadId: string;
  runId: string | null;
  decision: RecordedDecision;
  /** Extra span / audit attributes; never content. */
  detail?: Record<string, string>;
  about?: DecisionSubject;
  /** The guardrail's action id, when the decision was made here. */
  actionId?: string;
  /** The checker's failure code when no guardrail answered and the fail policy decided. */
  failure?: string;
}

/**
 * Records one decision: the call's decision list, the `guardrail_decision` event, the span's
 * attributes and the audit record. The one recording path: the runner's own checks, a tool's
 * `checkBoundary` and a dispatched subtask's decisions (`recordBoundaryDecisions`) all go here.
 */
export async function recordDecision(options: GuardrailCheckerOptions, input: DecisionToRecord): Promise<void> {
  const { decision, scope } = input;
  const recorded: RecordedDecision = {
    action_type: decision.action_type,
    decision: decision.decision,
    reason_code: decision.reason_code,
    agent_id: decision.agent_id,
  };
  if (decision.findings && decision.findings.length > 0) recorded.findings = decision.findings;
  options.decisions.push(recorded);
  options.onDecision?.(recorded, input.runId, input.about);
  scope.span.setAttributes({
    'baton.guardrail.decision': decision.decision,
    'baton.guardrail.reason_code': decision.reason_code,
    ...(input.actionId ? { 'baton.guardrail.action_id': input.actionId } : {}),
  });
  const findings = (decision.findings ?? []) as Array<Partial<Finding>>;
  await (options.writes ?? options.store)
    .appendAudit({
      threadId: input.threadId,
      runId: input.runId,
      kind: 'guardrail_decision',
      data: {
        ...(input.actionId ? { action_id: input.actionId } : {}),
        action_type: decision.action_type,
        decision: decision.decision,
        reason_code: decision.reason_code,
        agent_id: decision.agent_id,
        findings: findings.map((f) => ({ detector: f.detector, type: f.type, severity: f.severity })),
        trace_id: scope.ids.traceId,
        span_id: scope.ids.spanId,
        ...(input.failure ? { failure: input.failure } : {}),
        ...input.detail,
      },
    })
    .catch(() => undefined);
}
