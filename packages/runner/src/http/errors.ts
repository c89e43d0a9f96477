import { RunnerError } from '../errors.js';

/** The body of every non-200 answer: `{ error: { code, message } }`. */
export interface RunnerHttpErrorBody {
  error: { code: string; message: string };
}

export function errorBody(code: string, message: string): RunnerHttpErrorBody {
  return { error: { code, message } };
}

/** The runner service was configured wrongly (the operator's fault): bad port, missing token. */
export class RunnerHttpConfigError extends RunnerError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('RUNNER_HTTP_CONFIG', message, options);
    this.name = 'RunnerHttpConfigError';
  }
}

/** The runner service could not bind its address. */
export class RunnerHttpListenError extends RunnerError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('RUNNER_HTTP_LISTEN', message, options);
    this.name = 'RunnerHttpListenError';
  }
}
