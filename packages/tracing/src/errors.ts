import { BatonError, type ErrorKind } from '@baton/manifest/contracts';

/** Every code @baton/tracing throws, with whose fault it is (the README's errors table lists each). */
export const TRACING_ERROR_CODES = {
  TRACING_INVALID_TRACE_CONTEXT: 'usage',
  TRACING_CONFIG_INVALID: 'usage',
} as const satisfies Record<string, ErrorKind>;
export type TracingErrorCode = keyof typeof TRACING_ERROR_CODES;

/** Base class for every error @baton/tracing throws; `code` is stable and machine-readable. */
export class TracingError extends BatonError<TracingErrorCode> {
  constructor(code: TracingErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, TRACING_ERROR_CODES[code], message, options);
    this.name = 'TracingError';
  }
}

/** A caller passed a malformed trace header or id (the caller's input is at fault). */
export class InvalidTraceContextError extends TracingError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('TRACING_INVALID_TRACE_CONTEXT', message, options);
    this.name = 'InvalidTraceContextError';
  }
}

/** Tracing was set up with options that cannot work (configuration is at fault). */
export class TracingConfigError extends TracingError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('TRACING_CONFIG_INVALID', message, options);
    this.name = 'TracingConfigError';
  }
}
