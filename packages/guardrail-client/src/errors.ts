import type { ErrorKind } from '@baton/manifest/contracts';

/** Every code @baton/guardrail-client throws, with whose fault it is (the README's errors table lists each). */
export const GUARDRAIL_CLIENT_ERROR_CODES = {
  GUARDRAIL_CLIENT_CONFIG: 'usage',
} as const satisfies Record<string, ErrorKind>;
export type GuardrailClientErrorCode = keyof typeof GUARDRAIL_CLIENT_ERROR_CODES;

/**
 * Base class of every error this package throws. Decisions are never errors (a failed guardrail
 * call is a BLOCK response); these are for misuse the caller must fix. `code` is stable.
 */
export class GuardrailClientError extends Error {
  readonly code: GuardrailClientErrorCode;
  /** Whose fault: `usage`, `config`, `upstream` or `internal` (`@baton/manifest/contracts`' `ErrorKind`); follows from `code`. */
  readonly kind: ErrorKind;
  constructor(code: GuardrailClientErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'GuardrailClientError';
    this.code = code;
    this.kind = GUARDRAIL_CLIENT_ERROR_CODES[code];
  }
}

/** The client or adapter was configured wrongly (the caller's fault): bad URL, bad timeout, … */
export class GuardrailClientConfigError extends GuardrailClientError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('GUARDRAIL_CLIENT_CONFIG', message, options);
    this.name = 'GuardrailClientConfigError';
  }
}
