/** Base class for every error @baton/tracing throws; `code` is stable and machine-readable. */
export class TracingError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TracingError';
    this.code = code;
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
