import { GuardrailError, type GuardrailErrorCode } from '../errors.js';

/** Machine-readable codes of the JSON errors the HTTP service answers with. */
export type HttpErrorCode =
  | 'unauthorized'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'invalid_utf8'
  | 'invalid_json'
  | 'json_too_deep'
  | 'invalid_request'
  | 'not_found'
  | 'method_not_allowed'
  | 'bad_request'
  | 'request_timeout'
  | 'header_too_large'
  | 'service_unavailable'
  | 'internal_error';

/** The body of every non-200 answer: `{ error: { code, message } }`. */
export interface HttpErrorBody {
  error: { code: HttpErrorCode; message: string };
}

export function errorBody(code: HttpErrorCode, message: string): HttpErrorBody {
  return { error: { code, message } };
}

/**
 * Base class of the errors the HTTP service throws to its caller (not the JSON errors it answers
 * with); a {@link GuardrailError} like every error of this package.
 */
export class GuardrailHttpError extends GuardrailError {
  constructor(code: GuardrailErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'GuardrailHttpError';
  }
}

/** The server was configured wrongly (the operator's fault): bad port, missing token, … */
export class GuardrailHttpConfigError extends GuardrailHttpError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('GUARDRAIL_HTTP_CONFIG', message, options);
    this.name = 'GuardrailHttpConfigError';
  }
}

/** The server could not bind its address (port in use, permission denied). */
export class GuardrailHttpListenError extends GuardrailHttpError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('GUARDRAIL_HTTP_LISTEN', message, options);
    this.name = 'GuardrailHttpListenError';
  }
}
