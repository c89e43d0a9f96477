import { RunnerError, type RunnerErrorCode } from '../errors.js';

/**
 * Errors raised while setting up or running a model. Each says whose fault it is through its
 * subclass and carries a stable string `code`.
 */
export class ModelSetupError extends RunnerError {
  constructor(code: RunnerErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'ModelSetupError';
  }
}

/** A scenario file is unreadable or invalid (the author's fault); message holds `file:line:col`. */
export class ScenarioError extends ModelSetupError {
  /** Every problem found, one `file:line:col: message` string each. */
  readonly problems: string[];
  constructor(problems: string[], options?: { cause?: unknown }) {
    super('SCENARIO_INVALID', problems.join('\n'), options);
    this.name = 'ScenarioError';
    this.problems = problems;
  }
}

/** The environment asks for something inconsistent (e.g. a bad `BATON_OPENAI_API` value). */
export class ModelConfigurationError extends ModelSetupError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('MODEL_CONFIGURATION_INVALID', message, options);
    this.name = 'ModelConfigurationError';
  }
}
