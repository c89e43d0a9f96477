import { randomUUID } from 'node:crypto';
import {
  GuardrailResponseSchema,
  payloadSchemaFor,
  type ActionType,
  type Decision,
  type Finding,
  type GuardrailRequest,
  type GuardrailValidator,
} from '@baton/manifest';
import type { Context } from '@opentelemetry/api';
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
}

/** A decision as listed in `RunResult.guardrail_decisions` (no payload content). */
export interface RecordedDecision {
  action_type: string;
  decision: string;
  reason_code: string;
  agent_id: string;
  findings?: unknown[];
}

type PayloadOf<A extends ActionType> = Extract<GuardrailRequest, { action_type: A }>['payload'];

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
}

export interface GuardrailCheckerOptions {
  validator: GuardrailValidator;
  tracing: RunTracing;
  store: ThreadStore;
  /** When set, audit records are queued here (committed with the turn's other writes). */
  writes?: WriteBuffer;
  timeoutMs: number;
  /** Action types whose failures (not BLOCK decisions) are allowed through. Default none. */
  failOpen: ReadonlySet<ActionType>;
  decisions: RecordedDecision[];
  /** Told of every recorded decision (the runner's `guardrail_decision` event). */
  onDecision?: (decision: RecordedDecision, runId: string | null) => void;
}

class GuardrailFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Calls the guardrail for one boundary crossing. Never throws: a validator that throws, times
 * out or answers something invalid is a BLOCK (fail closed) unless that action type fails open.
 * Every decision is recorded in the call's decision list, as an audit record and as a span.
 */
export async function checkGuardrail<A extends ActionType>(options: GuardrailCheckerOptions, check: GuardrailCheck<A>): Promise<GuardrailOutcome<PayloadOf<A>>> {
  const scope = options.tracing.start(`baton.guardrail ${check.actionType}`, check.parent, {
    'baton.guardrail.action_type': check.actionType,
    'baton.agent.id': check.agentId,
    'baton.thread.id': check.threadId,
    ...check.detail,
  });
  const request = {
    action_id: randomUUID(),
    action_type: check.actionType,
    source_agent_id: check.agentId,
    thread_id: check.threadId,
    trace: { trace_id: scope.ids.traceId, span_id: scope.ids.spanId },
    payload: check.payload,
  } as GuardrailRequest;

  let outcome: GuardrailOutcome<PayloadOf<A>>;
  try {
    outcome = await callValidator(options, request, scope.context, check);
  } catch (error) {
    const failure = error instanceof GuardrailFailure ? error : new GuardrailFailure('GUARDRAIL_ERROR', `guardrail call failed: ${error instanceof Error ? error.message : String(error)}`);
    outcome = options.failOpen.has(check.actionType)
      ? { decision: 'ALLOW', reasonCode: `${failure.code}_FAIL_OPEN`, reasonMessage: `${failure.message} (fail-open configured for ${check.actionType})`, payload: check.payload }
      : { decision: 'BLOCK', reasonCode: failure.code, reasonMessage: `${failure.message}; failing closed`, payload: check.payload };
  }

  const recorded: RecordedDecision = { action_type: check.actionType, decision: outcome.decision, reason_code: outcome.reasonCode, agent_id: check.agentId };
  if (outcome.findings && outcome.findings.length > 0) recorded.findings = outcome.findings;
  options.decisions.push(recorded);
  options.onDecision?.(recorded, check.runId);
  scope.span.setAttributes({ 'baton.guardrail.decision': outcome.decision, 'baton.guardrail.reason_code': outcome.reasonCode, 'baton.guardrail.action_id': request.action_id });
  await (options.writes ?? options.store)
    .appendAudit({
      threadId: check.threadId,
      runId: check.runId,
      kind: 'guardrail_decision',
      data: {
        action_id: request.action_id,
        action_type: check.actionType,
        decision: outcome.decision,
        reason_code: outcome.reasonCode,
        agent_id: check.agentId,
        findings: (outcome.findings ?? []).map((f) => ({ detector: f.detector, type: f.type, severity: f.severity })),
        trace_id: scope.ids.traceId,
        span_id: scope.ids.spanId,
        ...check.detail,
      },
    })
    .catch(() => undefined);
  endSpan(scope.span);
  return outcome;
}

async function callValidator<A extends ActionType>(
  options: GuardrailCheckerOptions,
  request: GuardrailRequest,
  context: Context,
  check: GuardrailCheck<A>,
): Promise<GuardrailOutcome<PayloadOf<A>>> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  // One listener on the call's signal per check, removed afterwards (no listener build-up).
  const stop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort(new Error('guardrail timeout'));
      reject(new GuardrailFailure('GUARDRAIL_TIMEOUT', `guardrail did not answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    onAbort = () => {
      controller.abort(check.signal.reason);
      reject(new GuardrailFailure('GUARDRAIL_ABORTED', 'run was aborted during the guardrail check'));
    };
    if (check.signal.aborted) onAbort();
    else check.signal.addEventListener('abort', onAbort, { once: true });
  });
  stop.catch(() => undefined);
  let raw: unknown;
  try {
    raw = await Promise.race([
      Promise.resolve().then(() => options.validator.validate(request, { signal: controller.signal, ...options.tracing.headers(context) })),
      stop,
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) check.signal.removeEventListener('abort', onAbort);
  }
  const parsed = GuardrailResponseSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new GuardrailFailure('GUARDRAIL_INVALID_RESPONSE', `guardrail answered an invalid response (${issue ? `${issue.path.join('.') || '<root>'}: ${issue.message}` : 'unknown'})`);
  }
  const response = parsed.data;
  if (response.action_id !== request.action_id) throw new GuardrailFailure('GUARDRAIL_INVALID_RESPONSE', 'guardrail answered for a different action_id');
  const base = { reasonCode: response.reason_code, reasonMessage: response.reason_message, ...(response.findings ? { findings: response.findings } : {}) };
  if (response.decision === 'MODIFY') {
    const modified = payloadSchemaFor(check.actionType).safeParse(response.modified_payload);
    if (!modified.success) throw new GuardrailFailure('GUARDRAIL_INVALID_MODIFY', 'guardrail answered MODIFY without a valid modified_payload');
    return { decision: 'MODIFY', ...base, payload: modified.data as PayloadOf<A> };
  }
  return { decision: response.decision, ...base, payload: check.payload };
}
