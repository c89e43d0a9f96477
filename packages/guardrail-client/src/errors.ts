/**
 * Base class of every error this package throws. Decisions are never errors (a failed guardrail
 * call is a BLOCK response); these are for misuse the caller must fix. `code` is stable.
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
