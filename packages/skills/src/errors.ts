import { BatonError, type ErrorKind } from '@baton/manifest/contracts';

/** Every code @baton/skills throws, with whose fault it is (the README's errors table lists each). */
export const SKILLS_ERROR_CODES = {
  INVALID_ARGUMENTS: 'usage',
  UNKNOWN_SUBAGENT: 'usage',
  FILE_REF_ESCAPE: 'usage',
  FILE_REF_NOT_FOUND: 'usage',
  INVALID_SKILL_NAME: 'usage',
  INVALID_LANGUAGE: 'usage',
  SKILL_EXISTS: 'usage',
  VAGUE_CRITERIA: 'usage',
  PAYLOAD_TOO_LARGE: 'usage',
  ERR_CONSTRAINT_VIOLATION: 'usage',
  PATH_ESCAPE: 'usage',
  PATH_ALIAS: 'usage',
  NO_MATCH: 'usage',
  AMBIGUOUS_MATCH: 'usage',
  PATCH_DOES_NOT_APPLY: 'usage',
  PARSE_ERROR: 'usage',
  WRITE_FAILED: 'upstream',
  INVALID_OPTIONS: 'config',
  GUARDRAILS_REQUIRED: 'config',
  NO_RUNNER: 'config',
  SKILLS_DIR_MISSING: 'config',
  SKILL_MANIFEST_INVALID: 'config',
  SKILL_ENTRY_UNSUPPORTED: 'config',
  SUBAGENT_NAME_COLLISION: 'config',
  CONFINEMENT_UNAVAILABLE: 'config',
} as const satisfies Record<string, ErrorKind>;
export type SkillsErrorCode = keyof typeof SKILLS_ERROR_CODES;

/**
 * Errors of @baton/skills. Every error has a stable string `code` and an optional `cause`; the
 * subclass says whose fault it is: the caller or model (`SkillsInputError`), the deployment's
 * configuration (`SkillsConfigError`), or the skill/subagent itself (`SkillFaultError`).
 */
export class SkillsError extends BatonError<SkillsErrorCode> {
  constructor(code: SkillsErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, SKILLS_ERROR_CODES[code], message, options);
    this.name = 'SkillsError';
  }
}

/** Bad input from the caller or the parent model (arguments, criteria, payloads). */
export class SkillsInputError extends SkillsError {
  constructor(code: SkillsErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'SkillsInputError';
  }
}

/** The deployment is misconfigured (a missing skills directory, a bad manifest, no runner). */
export class SkillsConfigError extends SkillsError {
  constructor(code: SkillsErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'SkillsConfigError';
  }
}

/** A skill or subagent misbehaved (no yield, bad output, crash). */
export class SkillFaultError extends SkillsError {
  constructor(code: SkillsErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'SkillFaultError';
  }
}

/** A success criterion that is not machine-verifiable ("Do a good job"). */
export class VagueCriteriaError extends SkillsInputError {
  /** The offending criterion as given. */
  readonly criterion: unknown;
  constructor(criterion: unknown, reason: string) {
    super('VAGUE_CRITERIA', `success criterion ${JSON.stringify(criterion)} is not machine-verifiable: ${reason}`);
    this.name = 'VagueCriteriaError';
    this.criterion = criterion;
  }
}

/** A payload too large or binary to cross a delegation boundary. */
export class PayloadTooLargeError extends SkillsInputError {
  constructor(message: string) {
    super('PAYLOAD_TOO_LARGE', message);
    this.name = 'PayloadTooLargeError';
  }
}

/** The task needs something its constraints forbid (depth, loops, unapproved capabilities). */
export class ConstraintViolationError extends SkillsInputError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_CONSTRAINT_VIOLATION', message, options);
    this.name = 'ConstraintViolationError';
  }
}

export const EDIT_ERROR_CODES = [
  'PATH_ESCAPE',
  'PATH_ALIAS',
  'NO_MATCH',
  'AMBIGUOUS_MATCH',
  'PATCH_DOES_NOT_APPLY',
  'PARSE_ERROR',
  'WRITE_FAILED',
] as const;
export type EditErrorCode = (typeof EDIT_ERROR_CODES)[number];

/** An edit (unified diff or replace block) that cannot be applied; nothing was written. */
export class EditError extends SkillsInputError {
  declare readonly code: EditErrorCode;
  /** The workspace-relative file the error is about, when there is one. */
  readonly file: string | undefined;
  constructor(code: EditErrorCode, message: string, options?: { file?: string; cause?: unknown }) {
    super(code, message, options);
    this.name = 'EditError';
    this.file = options?.file;
  }
}
