/**
 * The one error model. Every Baton package's base error class carries a stable string `code` and a
 * `kind` saying whose fault it is; the CLI picks its exit code from `kind` alone.
 */

/**
 * Whose fault an error is:
 * - `usage`: what the caller passed: a flag, an argument, an option object, a request (an unknown
 *   agent, a malformed request, a bad URL given as an option);
 * - `config`: the deployment's configuration files and environment (manifests, `baton.yml`,
 *   policies, contracts, scenarios, keys);
 * - `upstream`: something Baton depends on failed or refused (a model, the guardrail, Redis, a
 *   subprocess, the case data), including a policy decision that stopped the work;
 * - `internal`: a bug or broken invariant in Baton itself.
 */
export const ERROR_KINDS = ['usage', 'config', 'upstream', 'internal'] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

/** `{ code, message }` as errors appear on the wire and in results (never a stack trace). */
export interface ErrorInfo {
  code: string;
  message: string;
}

/** The shape every Baton package's base error class has. */
export interface BatonErrorShape {
  readonly name: string;
  readonly message: string;
  /** Stable, documented code (the package README's errors table lists every one). */
  readonly code: string;
  readonly kind: ErrorKind;
}

/**
 * The root of every Baton error: `error instanceof BatonError` catches what any Baton package
 * throws. Each package's base class (`RunnerError`, `GuardrailError`, …) extends it with its own
 * code registry, which decides `kind`.
 */
export abstract class BatonError<Code extends string = string> extends Error implements BatonErrorShape {
  /** Stable, documented code (the package README's errors table lists every one). */
  readonly code: Code;
  /** Whose fault: `usage`, `config`, `upstream` or `internal`; follows from `code`. */
  readonly kind: ErrorKind;
  protected constructor(code: Code, kind: ErrorKind, message: string, options?: { cause?: unknown }) {
    // No `cause` key at all when none was given, so `'cause' in error` means there is one.
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.kind = kind;
  }
}

/**
 * Wire code families: the prefixes and sets of codes that cross process boundaries. Delegation
 * `error_report.code`s are `ERR_*` (see `KNOWN_ERROR_CODES`); guardrail `reason_code`s are
 * upper snake case; every package code is upper snake case.
 */
export const WIRE_CODE_PATTERN = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/;
export const DELEGATION_ERROR_CODE_PREFIX = 'ERR_';

/** `kind` of any thrown value: a Baton error's own, else `internal`. */
export function errorKindOf(error: unknown): ErrorKind {
  const kind = (error as { kind?: unknown } | null | undefined)?.kind;
  return typeof kind === 'string' && (ERROR_KINDS as readonly string[]).includes(kind) ? (kind as ErrorKind) : 'internal';
}

/**
 * Process exit code for an error by its kind: 2 for `usage` (fix the command line, the arguments
 * or the request), 1 for everything else (the command ran and failed, configuration included).
 * The CLI's documented codes: 0 success, 1 failed or found problems, 2 usage error.
 */
export function exitCodeForKind(kind: ErrorKind): 1 | 2 {
  return kind === 'usage' ? 2 : 1;
}
