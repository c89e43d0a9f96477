import { BatonError, type ErrorKind } from '@baton/manifest/contracts';

/**
 * Every stop in @baton/packets is a `PacketError` with a stable string `code`. Subclasses say
 * whose fault it is: the caller's authorization, the case data, the contract, or an upstream store.
 */
/** Every code @baton/packets throws, with whose fault it is (the README's errors table lists each). */
export const PACKET_ERROR_CODES = {
  MISSING_AUTHORIZATION: 'usage',
  TENANT_MISMATCH: 'usage',
  CASE_NOT_BOUND: 'usage',
  UNEXPECTED_FIELD: 'usage',
  UNKNOWN_RECIPIENT: 'config',
  UNKNOWN_PURPOSE: 'config',
  POLICY_STORE_UNAVAILABLE: 'upstream',
  CASE_DATA_UNAVAILABLE: 'upstream',
  CASE_NOT_FOUND: 'usage',
  TASK_TOO_LONG: 'config',
  TASK_BLOCKED: 'upstream',
  CONTRACT_INVALID: 'config',
  AUDIT_UNAVAILABLE: 'upstream',
  BOUNDARY_VIOLATION: 'internal',
  PACKET_MISSING: 'internal',
  INVALID_KEYS: 'config',
} as const satisfies Record<string, ErrorKind>;
export type PacketErrorCode = keyof typeof PACKET_ERROR_CODES;

export interface PacketErrorOptions {
  /** The underlying error, if any. */
  cause?: unknown;
}

/** Base class of every error thrown by @baton/packets. */
export class PacketError extends BatonError<PacketErrorCode> {
  constructor(code: PacketErrorCode, message: string, options: PacketErrorOptions = {}) {
    super(code, PACKET_ERROR_CODES[code], message, options);
    this.name = 'PacketError';
  }
}

/** The caller is not authenticated for a tenant, subject or role (caller's fault). */
export class MissingAuthorizationError extends PacketError {
  constructor(message: string, options?: PacketErrorOptions) {
    super('MISSING_AUTHORIZATION', message, options);
    this.name = 'MissingAuthorizationError';
  }
}

/** The case belongs to another tenant than the authenticated one (caller's fault). */
export class TenantMismatchError extends PacketError {
  constructor(message: string, options?: PacketErrorOptions) {
    super('TENANT_MISMATCH', message, options);
    this.name = 'TenantMismatchError';
  }
}

/**
 * The handoff's case is not bound to the caller: the request fixes no case, or the case the model
 * named is neither among the caller's allowed cases nor one the source agent read in this thread
 * (caller's or model's fault; never a data-source outage).
 */
export class CaseNotBoundError extends PacketError {
  constructor(message: string, options?: PacketErrorOptions) {
    super('CASE_NOT_BOUND', message, options);
    this.name = 'CaseNotBoundError';
  }
}

/** A requested or returned field is not permitted for the purpose or not approved for the role. */
export class UnexpectedFieldError extends PacketError {
  /** The offending field name. */
  readonly field: string;
  constructor(field: string, message: string, options?: PacketErrorOptions) {
    super('UNEXPECTED_FIELD', message, options);
    this.name = 'UnexpectedFieldError';
    this.field = field;
  }
}

/** The destination is not a declared recipient in the contract. */
export class UnknownRecipientError extends PacketError {
  constructor(message: string, options?: PacketErrorOptions) {
    super('UNKNOWN_RECIPIENT', message, options);
    this.name = 'UnknownRecipientError';
  }
}

/** The purpose is not declared for the recipient, or none could be chosen. */
export class UnknownPurposeError extends PacketError {
  constructor(message: string, options?: PacketErrorOptions) {
    super('UNKNOWN_PURPOSE', message, options);
    this.name = 'UnknownPurposeError';
  }
}

/** The policy store could not be read or holds an invalid contract (upstream's fault; fail closed). */
export class PolicyStoreUnavailableError extends PacketError {
  constructor(message: string, options?: PacketErrorOptions) {
    super('POLICY_STORE_UNAVAILABLE', message, options);
    this.name = 'PolicyStoreUnavailableError';
  }
}

/** The case-data source could not be read (upstream's fault; fail closed). */
export class CaseDataUnavailableError extends PacketError {
  constructor(message: string, options?: PacketErrorOptions) {
    super('CASE_DATA_UNAVAILABLE', message, options);
    this.name = 'CaseDataUnavailableError';
  }
}

/** No case with that id exists for the tenant. */
export class CaseNotFoundError extends PacketError {
  constructor(message: string, options?: PacketErrorOptions) {
    super('CASE_NOT_FOUND', message, options);
    this.name = 'CaseNotFoundError';
  }
}

/** The task statement is longer than the purpose allows. */
export class TaskTooLongError extends PacketError {
  constructor(message: string, options?: PacketErrorOptions) {
    super('TASK_TOO_LONG', message, options);
    this.name = 'TaskTooLongError';
  }
}

/** The guardrail did not allow the packet (BLOCK, MODIFY or an unusable answer: fail closed). */
export class TaskBlockedError extends PacketError {
  /** The guardrail's reason code, when it answered. */
  readonly reasonCode: string | undefined;
  constructor(message: string, reasonCode?: string, options?: PacketErrorOptions) {
    super('TASK_BLOCKED', message, options);
    this.name = 'TaskBlockedError';
    this.reasonCode = reasonCode;
  }
}

/** A recipient contract file is malformed; `problems` carries one `file:line:col: message` per issue. */
export class ContractInvalidError extends PacketError {
  readonly problems: string[];
  constructor(problems: string[], options?: PacketErrorOptions) {
    super('CONTRACT_INVALID', `invalid recipient contract:\n${problems.join('\n')}`, options);
    this.name = 'ContractInvalidError';
    this.problems = problems;
  }
}

/** The audit sink refused a record; the handoff does not proceed without its proof. */
export class AuditUnavailableError extends PacketError {
  constructor(message: string, options?: PacketErrorOptions) {
    super('AUDIT_UNAVAILABLE', message, options);
    this.name = 'AuditUnavailableError';
  }
}

/** The recipient's model request carries something other than the packet. */
export class BoundaryViolationError extends PacketError {
  constructor(message: string, options?: PacketErrorOptions) {
    super('BOUNDARY_VIOLATION', message, options);
    this.name = 'BoundaryViolationError';
  }
}

/** An SDK input filter ran without a packet prepared by `onHandoff` (fail closed). */
export class PacketMissingError extends PacketError {
  constructor(message: string, options?: PacketErrorOptions) {
    super('PACKET_MISSING', message, options);
    this.name = 'PacketMissingError';
  }
}

/** The reference or audit key is missing or too short (configuration's fault). */
export class InvalidKeysError extends PacketError {
  constructor(message: string, options?: PacketErrorOptions) {
    super('INVALID_KEYS', message, options);
    this.name = 'InvalidKeysError';
  }
}
