import type { ActionType, GuardrailRequest, GuardrailResponse } from '@baton/manifest';

/** Reason codes the client itself produces when it cannot get a trustworthy decision. */
export const CLIENT_REASON_CODES = {
  unavailable: 'GUARDRAIL_UNAVAILABLE',
  timeout: 'GUARDRAIL_TIMEOUT',
  aborted: 'GUARDRAIL_ABORTED',
  httpError: 'GUARDRAIL_HTTP_ERROR',
  badResponse: 'GUARDRAIL_BAD_RESPONSE',
  actionIdMismatch: 'GUARDRAIL_ACTION_ID_MISMATCH',
  invalidModify: 'GUARDRAIL_INVALID_MODIFY',
  engineError: 'GUARDRAIL_ENGINE_ERROR',
  failOpen: 'GUARDRAIL_FAIL_OPEN',
} as const;

export type ClientReasonCode = (typeof CLIENT_REASON_CODES)[keyof typeof CLIENT_REASON_CODES];

/** Per action type: what a failed guardrail call means. Default everywhere: `closed` (BLOCK). */
export type FailMode = 'closed' | 'open';
export type FailModes = Partial<Record<ActionType, FailMode>>;

/**
 * Failures that may fail open when configured: the service could not be asked. A response that
 * came back but is wrong for this request (another action_id, an invalid MODIFY) and a caller's
 * abort always BLOCK: passing the original there could leak what the service meant to redact.
 */
const MAY_FAIL_OPEN: ReadonlySet<string> = new Set([
  CLIENT_REASON_CODES.unavailable,
  CLIENT_REASON_CODES.timeout,
  CLIENT_REASON_CODES.httpError,
  CLIENT_REASON_CODES.badResponse,
  CLIENT_REASON_CODES.engineError,
]);

/** The decision for a failed call: BLOCK with the reason, or ALLOW when fail-open is configured. */
export function failedCall(request: GuardrailRequest, code: ClientReasonCode, message: string, failModes: FailModes): GuardrailResponse {
  if (failModes[request.action_type] === 'open' && MAY_FAIL_OPEN.has(code)) {
    return {
      action_id: request.action_id,
      decision: 'ALLOW',
      reason_code: CLIENT_REASON_CODES.failOpen,
      reason_message: `guardrail check failed (${code}: ${message}); allowed because fail-open is configured for ${request.action_type}`,
    };
  }
  return { action_id: request.action_id, decision: 'BLOCK', reason_code: code, reason_message: message };
}
