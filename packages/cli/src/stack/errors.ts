/** A stack configuration that can never work (a missing file, a malformed tool module): the caller's fault. */
export class StackConfigError extends Error {
  readonly code = 'STACK_CONFIG';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StackConfigError';
  }
}

/** Releasing the stack failed for one or more parts; `errors` holds every failure, in release order. */
export class StackCloseError extends AggregateError {
  readonly code = 'STACK_CLOSE';
  constructor(errors: unknown[], labels: string[]) {
    super(errors, `closing the Baton stack failed for ${labels.join(', ')}: ${errors.map((e) => (e as Error)?.message ?? String(e)).join('; ')}`);
    this.name = 'StackCloseError';
  }
}
