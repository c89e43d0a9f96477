import type { ErrorReport, ResponsePackage } from '@baton/manifest';

/** A FAILURE package with an error report. */
export function failure(
  code: string,
  message: string,
  details?: Record<string, unknown>,
  output: Record<string, unknown> = {},
): ResponsePackage {
  return {
    status: 'FAILURE',
    output_payload: output,
    log_summary: message,
    error_report: { code, message, ...(details ? { details } : {}) },
  };
}

/** How one attempt at a subagent ended. */
export type AttemptOutcome =
  /** The subagent yielded a (schema-valid) ResponsePackage. */
  | { kind: 'yield'; response: ResponsePackage }
  /** Runtime-detected failure worth one self-correction (no yield, bad yield, crash). */
  | { kind: 'retryable'; error: ErrorReport }
  /** Final: timeout, cancellation, a guardrail block. */
  | { kind: 'final'; response: ResponsePackage };
