import type { ActionType } from '@baton/manifest';

/**
 * The reason codes of a guardrail check that got no trustworthy decision: one code per failure,
 * the same whether the checker then blocks (the default) or fails open (decision ALLOW).
 */
export const GUARDRAIL_REASON_CODES = {
  unavailable: 'GUARDRAIL_UNAVAILABLE',
  timeout: 'GUARDRAIL_TIMEOUT',
  aborted: 'GUARDRAIL_ABORTED',
  httpError: 'GUARDRAIL_HTTP_ERROR',
  badResponse: 'GUARDRAIL_BAD_RESPONSE',
  actionIdMismatch: 'GUARDRAIL_ACTION_ID_MISMATCH',
  invalidModify: 'GUARDRAIL_INVALID_MODIFY',
  engineError: 'GUARDRAIL_ENGINE_ERROR',
} as const;

/** @deprecated the old name of {@link GUARDRAIL_REASON_CODES}. */
export const CLIENT_REASON_CODES = GUARDRAIL_REASON_CODES;

export type GuardrailReasonCode = (typeof GUARDRAIL_REASON_CODES)[keyof typeof GUARDRAIL_REASON_CODES];
/** @deprecated the old name of {@link GuardrailReasonCode}. */
export type ClientReasonCode = GuardrailReasonCode;

/** Per action type: what a failed guardrail call means. Default everywhere: `closed` (BLOCK). */
export type FailMode = 'closed' | 'open';
export type FailModes = Partial<Record<ActionType, FailMode>>;

/**
 * Failures that may fail open when configured: the service could not be asked. A response that
 * came back but is wrong for this request (another action_id, an invalid MODIFY) and a caller's
 * abort always BLOCK: passing the original there could leak what the service meant to redact.
 */
export const MAY_FAIL_OPEN: ReadonlySet<GuardrailReasonCode> = new Set<GuardrailReasonCode>([
  GUARDRAIL_REASON_CODES.unavailable,
  GUARDRAIL_REASON_CODES.timeout,
  GUARDRAIL_REASON_CODES.httpError,
  GUARDRAIL_REASON_CODES.badResponse,
  GUARDRAIL_REASON_CODES.engineError,
]);
