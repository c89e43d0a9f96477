/** Base class of every error this package throws. `code` is stable and machine-readable. */
export class GuardrailError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'GuardrailError';
    this.code = code;
  }
}

/** The policy file or policy object is wrong: the operator's (configuration) fault. */
export class PolicyError extends GuardrailError {
  /** The policy file, when the policy came from one. */
  readonly file: string | undefined;
  /** 1-based line of the problem, when known. */
  readonly line: number | undefined;
  /** 1-based column of the problem, when known. */
  readonly column: number | undefined;
  constructor(
    message: string,
    options?: { cause?: unknown; file?: string; line?: number; column?: number },
  ) {
    super('POLICY_INVALID', message, options);
    this.name = 'PolicyError';
    this.file = options?.file;
    this.line = options?.line;
    this.column = options?.column;
  }
}

/** A guardrail request does not match the contract: the caller's fault. */
export class GuardrailRequestError extends GuardrailError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('REQUEST_INVALID', message, options);
    this.name = 'GuardrailRequestError';
  }
}
