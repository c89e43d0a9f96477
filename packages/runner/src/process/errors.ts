import { RunnerError } from '../errors.js';

/** Caller error: `spawnJsonProcess` / `runAgentProcess` got options that cannot work. */
export class ProcessOptionsError extends RunnerError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('PROCESS_OPTIONS_INVALID', message, options);
    this.name = 'ProcessOptionsError';
  }
}
