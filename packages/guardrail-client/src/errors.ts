import type { GuardrailReasonCode } from './outcomes.js';

/**
 * Base class of every error this package throws. `code` is stable. Decisions are never errors:
 * the checker (`createGuardrailChecker`) turns a failed call into a BLOCK (or, where configured,
 * a fail-open ALLOW).
 */
export class GuardrailClientError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'GuardrailClientError';
    this.code = code;
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
  constructor(code: GuardrailReasonCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'GuardrailCallError';
  }
}
