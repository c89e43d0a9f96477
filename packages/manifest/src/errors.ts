import type { LoadResult, ManifestProblem } from './problems.js';
import { BatonError, type ErrorKind } from './contracts/errors.js';

/** Every code @baton/manifest throws, with whose fault it is (the README's errors table lists each). */
export const MANIFEST_ERROR_CODES = {
  MANIFEST_INVALID: 'config',
  MANIFEST_BAD_ARGUMENT: 'usage',
  SCRIPT_EXHAUSTED: 'config',
} as const satisfies Record<string, ErrorKind>;
export type ManifestErrorCode = keyof typeof MANIFEST_ERROR_CODES;

/**
 * Base class of every error @baton/manifest throws. `code` is stable; `message` is for people;
 * `kind` says whose fault it is and follows from the code (each subclass picks its code by fault).
 */
export class ManifestError extends BatonError<ManifestErrorCode> {
  constructor(code: ManifestErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, MANIFEST_ERROR_CODES[code], message, options);
  }
}

/**
 * The manifest itself is wrong (the author's fault): thrown by `unwrapManifest` when a load
 * result has problems. Carries every problem, each with file, line and column.
 */
export class ManifestValidationError extends ManifestError {
  /** Every problem found, in source order. */
  readonly problems: ManifestProblem[];

  constructor(problems: ManifestProblem[]) {
    const first = problems[0];
    const where = first ? `${first.file}:${first.line}:${first.col}: ${first.message}` : 'invalid manifest';
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''})` : '';
    super('MANIFEST_INVALID', `${where}${more}`);
    this.problems = problems;
  }
}

/** A caller passed a bad argument to a @baton/manifest function (the calling code's fault). */
export class ManifestUsageError extends ManifestError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('MANIFEST_BAD_ARGUMENT', message, options);
  }
}

/**
 * A scripted model (`@baton/manifest/testing`) was asked for something its script cannot answer:
 * no reply left, no script for the model name, or a scripted `error` (the test's script's fault).
 */
export class ScriptExhaustedError extends ManifestError {
  constructor(message: string) {
    super('SCRIPT_EXHAUSTED', message);
  }
}

/** A load result's value, or throws `ManifestValidationError` carrying every problem. */
export function unwrapManifest<T>(result: LoadResult<T>): T {
  if (result.ok) return result.value;
  throw new ManifestValidationError(result.problems);
}
