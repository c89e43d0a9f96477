// Types only at load time: `baton --help` stays fast (the contracts entry loads zod).
import { BatonError, type ErrorKind } from '@baton/manifest/contracts';

/** Every code the baton command throws, with whose fault it is (the README's errors table lists each). */
export const CLI_ERROR_CODES = {
  CLI_USAGE: 'usage',
  INVALID_AUTH: 'usage',
  STACK_CONFIG: 'usage',
  STACK_CLOSE: 'upstream',
  STACK_CLOSED: 'usage',
} as const satisfies Record<string, ErrorKind>;
export type CliErrorCode = keyof typeof CLI_ERROR_CODES;

/** Base class of the errors the baton command throws itself; `kind` follows from `code`. */
export class CliError extends BatonError<CliErrorCode> {
  constructor(code: CliErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, CLI_ERROR_CODES[code], message, options);
    this.name = 'CliError';
  }
}

/** A usage mistake (exit code 2): the message says which flag is wrong. */
export class UsageError extends CliError {
  constructor(message: string) {
    super('CLI_USAGE', message);
    this.name = 'UsageError';
  }
}

/** A malformed caller identity (a usage error for `baton run`, a 400 for `baton serve`). */
export class AuthInputError extends CliError {
  constructor(message: string) {
    super('INVALID_AUTH', message);
    this.name = 'AuthInputError';
  }
}

/**
 * The exit code for an error a command could not handle, from its `kind` alone (never its
 * message or code): 2 for a usage error (a flag, argument or request to fix), 1 for anything else
 * (the command ran and failed). An error that is not a Baton error counts as `internal`.
 */
export async function exitCodeFor(error: unknown): Promise<1 | 2> {
  const { errorKindOf, exitCodeForKind } = await import('@baton/manifest/contracts');
  return exitCodeForKind(errorKindOf(error));
}
