import { BatonError, type ErrorKind } from '@baton/manifest/contracts';
import type { GuardrailReasonCode } from './outcomes.js';

/**
 * Every code @baton/guardrail-client throws, with whose fault it is (the README's errors table
 * lists each). The transports' failure codes are the checker's reason codes (`GuardrailCallError`).
 */
export const GUARDRAIL_CLIENT_ERROR_CODES = {
  GUARDRAIL_CLIENT_CONFIG: 'usage',
  GUARDRAIL_UNAVAILABLE: 'upstream',
  GUARDRAIL_TIMEOUT: 'upstream',
  GUARDRAIL_ABORTED: 'usage',
  GUARDRAIL_HTTP_ERROR: 'upstream',
  GUARDRAIL_BAD_RESPONSE: 'upstream',
  GUARDRAIL_ACTION_ID_MISMATCH: 'upstream',
  GUARDRAIL_INVALID_MODIFY: 'upstream',
  GUARDRAIL_ENGINE_ERROR: 'upstream',
} as const satisfies Record<string, ErrorKind> & Record<GuardrailReasonCode, ErrorKind>;
export type GuardrailClientErrorCode = keyof typeof GUARDRAIL_CLIENT_ERROR_CODES;

/**
 * Base class of every error this package throws. `code` is stable. Decisions are never errors:
 * the checker (`createGuardrailChecker`) turns a failed call into a BLOCK (or, where configured,
 * a fail-open ALLOW).
 */
export class GuardrailClientError extends BatonError<GuardrailClientErrorCode> {
  constructor(code: GuardrailClientErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, GUARDRAIL_CLIENT_ERROR_CODES[code], message, options);
    this.name = 'GuardrailClientError';
  }
}

/** The client or adapter was configured wrongly (the caller's fault): bad URL, bad timeout, … */
export class GuardrailClientConfigError extends GuardrailClientError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('GUARDRAIL_CLIENT_CONFIG', message, options);
    this.name = 'GuardrailClientConfigError';
  }
}

/**
 * A transport (the HTTP client, the in-process wrapper) could not get an answer: the service is
 * down, timed out, answered an error status or something that is not JSON, or the engine threw.
 * `code` is the reason code the checker records for it; the guardrail's fault, not the caller's.
 */
export class GuardrailCallError extends GuardrailClientError {
  declare readonly code: GuardrailReasonCode;
  /**
   * True when the service answered and refused this request itself (too large, malformed): the
   * checker then BLOCKs even where fail-open is configured, as failing open would pass exactly
   * what the service could not inspect.
   */
  readonly requestRefused: boolean;
  constructor(code: GuardrailReasonCode, message: string, options?: { cause?: unknown; requestRefused?: boolean }) {
    super(code, message, options?.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'GuardrailCallError';
    this.requestRefused = options?.requestRefused === true;
  }
}
