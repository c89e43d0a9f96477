import { randomUUID } from 'node:crypto';
import type { ActionType, Decision, Finding, GuardrailCallOptions, GuardrailRequest, GuardrailValidator, TraceRef } from '@baton/manifest';
import { GuardrailCallError, GuardrailClientConfigError } from './errors.js';
import { GUARDRAIL_REASON_CODES, MAY_FAIL_OPEN, type FailModes, type GuardrailReasonCode } from './outcomes.js';
import { refusesRequest } from './in-process.js';
import { verifyResponse } from './verify-response.js';

/** The payload type of one action type. */
export type PayloadOf<A extends ActionType> = Extract<GuardrailRequest, { action_type: A }>['payload'];

/** Options for {@link createGuardrailChecker}. */
export interface GuardrailCheckerOptions {
  /** The transport: the HTTP client, the in-process engine, a test double. It may throw. */
  validator: GuardrailValidator;
  /** Budget of one check in milliseconds, whatever the transport does; default 2000. Past it: a failure. */
  timeoutMs?: number;
  /** Action types whose failed checks (never BLOCK decisions) are allowed through; default none. */
  failOpen?: Iterable<ActionType> | FailModes;
  /** Generates `action_id`s; default `crypto.randomUUID`. */
  generateId?: () => string;
}

/** One boundary crossing to check. */
export interface GuardrailCheckInput<A extends ActionType> {
  actionType: A;
  payload: PayloadOf<A>;
  /** Reverse-DNS id of the agent whose action this is. */
  sourceAgentId: string;
  threadId: string;
  /** The trace and span this check belongs to (the caller's real span, so the service joins the trace). */
  trace: TraceRef;
  /** W3C trace headers for HTTP transports; default a `traceparent` built from `trace`. */
  headers?: Pick<GuardrailCallOptions, 'traceparent' | 'tracestate'>;
  /** Aborts the check (an aborted check is a BLOCK, never fail-open). */
  signal?: AbortSignal;
}

/** What a check decided, with the payload to proceed with. */
export interface GuardrailCheckResult<P> {
  /** The request's `action_id`. */
  actionId: string;
  decision: Decision;
  reasonCode: string;
  reasonMessage: string;
  /** The original payload on ALLOW and BLOCK, the verified modified one on MODIFY. */
  payload: P;
  findings?: Finding[];
  /** Set when no trustworthy decision came back; `decision` is then BLOCK, or ALLOW where fail-open is configured. */
  failure?: { code: GuardrailReasonCode; message: string };
}

/**
 * The one guardrail call path: builds the request, bounds it by a timeout and the caller's
 * signal, verifies the answer once, and applies the fail-open/fail-closed policy. Never throws.
 */
export interface GuardrailChecker {
  check<A extends ActionType>(input: GuardrailCheckInput<A>): Promise<GuardrailCheckResult<PayloadOf<A>>>;
  /** The per-check budget in milliseconds. */
  readonly timeoutMs: number;
}

const DEFAULT_TIMEOUT_MS = 2000;

/** Creates the checker over a transport (see {@link GuardrailChecker}). */
export function createGuardrailChecker(options: GuardrailCheckerOptions): GuardrailChecker {
  const validator = options?.validator;
  if (!validator || typeof validator.validate !== 'function') {
    throw new GuardrailClientConfigError(
      'createGuardrailChecker needs a validator with a validate(request) method; Baton never checks without a guardrail',
    );
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new GuardrailClientConfigError(`timeoutMs must be a positive number of milliseconds; got ${String(options.timeoutMs)}`);
  }
  const failOpen = failOpenSet(options.failOpen);
  const generateId = options.generateId ?? randomUUID;

  async function check<A extends ActionType>(input: GuardrailCheckInput<A>): Promise<GuardrailCheckResult<PayloadOf<A>>> {
    const request = {
      action_id: generateId(),
      action_type: input.actionType,
      source_agent_id: input.sourceAgentId,
      thread_id: input.threadId,
      trace: { trace_id: input.trace.trace_id, span_id: input.trace.span_id },
      payload: input.payload,
    } as GuardrailRequest;
    const failed = (code: GuardrailReasonCode, message: string, requestRefused = false): GuardrailCheckResult<PayloadOf<A>> => {
      const base = { actionId: request.action_id, payload: input.payload, failure: { code, message } };
      return failOpen.has(input.actionType) && MAY_FAIL_OPEN.has(code) && !requestRefused
        ? {
            ...base,
            decision: 'ALLOW',
            reasonCode: code,
            reasonMessage: `${message}; allowed because fail-open is configured for ${input.actionType}`,
          }
        : { ...base, decision: 'BLOCK', reasonCode: code, reasonMessage: `${message}; failing closed` };
    };
    let body: unknown;
    try {
      body = await call(request, input);
    } catch (error) {
      if (error instanceof GuardrailCallError) return failed(error.code, error.message, error.requestRefused);
      const name = error instanceof Error ? error.name : typeof error;
      return failed(
        GUARDRAIL_REASON_CODES.engineError,
        `guardrail validator threw ${name}${error instanceof Error && error.message ? `: ${error.message.slice(0, 200)}` : ''}`,
        refusesRequest(error),
      );
    }
    const verified = verifyResponse(request, body);
    if (!verified.ok) return failed(verified.code, verified.message);
    const response = verified.response;
    return {
      actionId: request.action_id,
      decision: response.decision,
      reasonCode: response.reason_code,
      reasonMessage: response.reason_message,
      payload: (response.decision === 'MODIFY' ? response.modified_payload : input.payload) as PayloadOf<A>,
      ...(response.findings ? { findings: response.findings } : {}),
    };
  }

  /** The validator's answer, or a GuardrailCallError for a timeout or an abort (a transport that ignores them cannot hold the check). */
  async function call<A extends ActionType>(request: GuardrailRequest, input: GuardrailCheckInput<A>): Promise<unknown> {
    const aborted = () => new GuardrailCallError(GUARDRAIL_REASON_CODES.aborted, 'guardrail check was aborted by the caller');
    if (input.signal?.aborted) throw aborted();
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const headers = input.headers ?? { traceparent: `00-${request.trace.trace_id}-${request.trace.span_id}-01` };
    const callOptions: GuardrailCallOptions = { signal: controller.signal, ...definedHeaders(headers) };
    try {
      // One promise settled by whichever comes first (the answer, the timeout, the caller's abort)
      // instead of a Promise.race of the answer and a second "stop" promise: the same outcome with
      // fewer promises per check (six checks a run; every promise costs more once an
      // AsyncLocalStorage is active, as with tracing).
      return await new Promise<unknown>((resolve, reject) => {
        timer = setTimeout(() => {
          const error = new GuardrailCallError(GUARDRAIL_REASON_CODES.timeout, `guardrail did not answer within ${timeoutMs} ms`);
          controller.abort(error);
          reject(error);
        }, timeoutMs);
        onAbort = () => {
          controller.abort(input.signal?.reason);
          reject(aborted());
        };
        input.signal?.addEventListener('abort', onAbort, { once: true });
        // A microtask later, as before: a validator that throws synchronously rejects like one that rejects.
        Promise.resolve()
          .then(() => validator.validate(request, callOptions))
          .then(resolve, reject);
      });
    } catch (error) {
      // A transport that saw our own abort reports it in its words; the reason is ours.
      if (controller.signal.aborted && controller.signal.reason instanceof GuardrailCallError) throw controller.signal.reason;
      if (controller.signal.aborted && input.signal?.aborted) throw aborted();
      throw error;
    } finally {
      clearTimeout(timer);
      if (onAbort) input.signal?.removeEventListener('abort', onAbort);
    }
  }

  return { check, timeoutMs };
}

function definedHeaders(
  headers: Pick<GuardrailCallOptions, 'traceparent' | 'tracestate'>,
): Pick<GuardrailCallOptions, 'traceparent' | 'tracestate'> {
  return {
    ...(headers.traceparent ? { traceparent: headers.traceparent } : {}),
    ...(headers.tracestate ? { tracestate: headers.tracestate } : {}),
  };
}

function failOpenSet(value: GuardrailCheckerOptions['failOpen']): ReadonlySet<ActionType> {
  if (value === undefined) return new Set();
  if (typeof (value as Iterable<ActionType>)[Symbol.iterator] === 'function') return new Set(value as Iterable<ActionType>);
  const modes = value as FailModes;
  return new Set((Object.keys(modes) as ActionType[]).filter((type) => Object.hasOwn(modes, type) && modes[type] === 'open'));
}
