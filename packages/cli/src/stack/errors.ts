import type { ErrorKind } from '@baton/manifest/contracts';
import { CLI_ERROR_CODES, CliError } from '../errors.js';

/** A stack configuration that can never work (a missing file, a malformed tool module): the caller's fault. */
export class StackConfigError extends CliError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('STACK_CONFIG', message, options);
    this.name = 'StackConfigError';
  }
}

/** Releasing the stack failed for one or more parts; `errors` holds every failure, in release order. */
export class StackCloseError extends AggregateError {
  readonly code = 'STACK_CLOSE';
  /** Whose fault (`@baton/manifest/contracts`' `ErrorKind`): a part that failed to release. */
  readonly kind: ErrorKind = CLI_ERROR_CODES.STACK_CLOSE;
  constructor(errors: unknown[], labels: string[]) {
    super(
      errors,
      `closing the Baton stack failed for ${labels.join(', ')}: ${errors.map((e) => (e as Error)?.message ?? String(e)).join('; ')}`,
    );
    this.name = 'StackCloseError';
  }
}

/** `runner.run()` after the stack's `close()`. */
export class StackClosedError extends CliError {
  constructor() {
    super('STACK_CLOSED', 'this Baton stack is closed');
    this.name = 'StackClosedError';
  }
}
