import type { LoadResult, ManifestProblem } from './problems.js';

/** Base class of every error @baton/manifest throws. `code` is stable; `message` is for people. */
export class ManifestError extends Error {
  /** Machine-readable error code, e.g. `MANIFEST_INVALID`. */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
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

/** A load result's value, or throws `ManifestValidationError` carrying every problem. */
export function unwrapManifest<T>(result: LoadResult<T>): T {
  if (result.ok) return result.value;
  throw new ManifestValidationError(result.problems);
}
