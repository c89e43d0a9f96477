// Resumable approvals: who decides which calls wait for a human, the errors a decision can meet,
// strict checking of decisions, and sealing of the SDK's serialised run state kept in the store.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { RunnerError, type RunnerErrorCode } from '../errors.js';
import { isPlainObject } from '../store/rules.js';
import { MAX_SUSPENDED_STATE_CHARS } from '../store/suspended-runs.js';
import type { PendingApproval, SuspendedRun } from '../store/types.js';
import type { ApprovalDecision, RequiredAction } from './types.js';

/** Longest rejection reason accepted (it is sent to the model). */
export const MAX_APPROVAL_REASON_CHARS = 1000;
/** Default time a paused run waits for a decision: one day. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 86_400_000;
/** What the model is told when a call is rejected without a reason. */
export const DEFAULT_REJECTION =
  'A human reviewer rejected this tool call; it was not executed. Do not retry it; tell the user it was not approved.';

/** What an {@link ApprovalPolicy} is asked about one tool call. */
export interface ApprovalPolicyRequest {
  agentId: string;
  threadId: string;
  /** The tool's protocol name. */
  toolName: string;
  /** Parsed arguments (`{}` when they are not a JSON object). */
  arguments: Record<string, unknown>;
}

/** Returns true for a call that must wait for a human decision. A throw counts as true (fail closed). */
export type ApprovalPolicy = (request: ApprovalPolicyRequest) => boolean | Promise<boolean>;

/** `RunnerOptions.approvals`. */
export interface RunnerApprovalOptions {
  /** Extra rule on top of baton.yml `approval_required_tools` and `SystemTool.needsApproval`. */
  policy?: ApprovalPolicy;
  /**
   * Secret (at least 32 characters) that seals the run state kept in the store with HMAC-SHA256,
   * so a state edited by anyone who can write the store but lacks the secret is refused. Every
   * runner process sharing the store needs the same one. Unset: a SHA-256 digest, which catches
   * corruption and careless edits but not a forger.
   */
  stateSecret?: string;
}

/** Base of the errors a caller of `submitApprovals` (or a new run on a paused thread) gets. */
export class ApprovalError extends RunnerError {
  constructor(code: RunnerErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'ApprovalError';
  }
}

/** Caller error (400): the decisions are malformed, or do not match the pending approvals. */
export class ApprovalDecisionError extends ApprovalError {
  constructor(message: string) {
    super('APPROVAL_INVALID', message);
    this.name = 'ApprovalDecisionError';
  }
}

/** Caller error (404): no such run, or a run of another tenant (the same answer). */
export class ApprovalRunNotFoundError extends ApprovalError {
  constructor(runId: string) {
    super('APPROVAL_RUN_NOT_FOUND', `run ${JSON.stringify(runId.slice(0, 200))} does not exist`);
    this.name = 'ApprovalRunNotFoundError';
  }
}

/** Caller error (409): the run waits for no decision (already decided, by this or a concurrent call, or never paused). */
export class ApprovalConflictError extends ApprovalError {
  constructor(message: string) {
    super('APPROVAL_CONFLICT', message);
    this.name = 'ApprovalConflictError';
  }
}

/** Caller error (410): the decision came after the approval expired; the run is `expired`. */
export class ApprovalExpiredError extends ApprovalError {
  constructor(runId: string, expiresAt: string) {
    super('APPROVAL_EXPIRED', `run ${JSON.stringify(runId)} waited for approval until ${expiresAt}; it has expired and cannot be resumed`);
    this.name = 'ApprovalExpiredError';
  }
}

/** Caller error (409): a new run was asked on a thread whose run waits for approval. */
export class ThreadAwaitingApprovalError extends ApprovalError {
  constructor(threadId: string, runId: string) {
    super(
      'RUN_REQUIRES_ACTION',
      `thread ${JSON.stringify(threadId)} has run ${JSON.stringify(runId)} waiting for approval; decide it (POST /v1/runs/${runId}/approvals) before starting another run`,
    );
    this.name = 'ThreadAwaitingApprovalError';
  }
}

/** Configuration error: approvals are needed but the thread store cannot keep paused runs. */
export class ApprovalsUnsupportedError extends RunnerError {
  constructor(message: string) {
    super('APPROVALS_UNSUPPORTED', message);
    this.name = 'ApprovalsUnsupportedError';
  }
}

/** The stored run state is not what this runner sealed (tampered, truncated, oversized, another secret). */
export const APPROVAL_STATE_INVALID = 'APPROVAL_STATE_INVALID';

const describe = (value: unknown): string =>
  typeof value === 'string'
    ? value.length > 40
      ? `a string of ${value.length} characters`
      : JSON.stringify(value)
    : Array.isArray(value)
      ? 'an array'
      : value === null
        ? 'null'
        : typeof value;

/**
 * Checks decisions strictly against a run's pending approvals: an array with exactly one decision
 * per pending approval, each `{ id, approve, reason? }` and nothing else. Every message names the
 * offending entry (`decisions[i]`).
 */
export function checkDecisions(decisions: unknown, pending: readonly PendingApproval[]): ApprovalDecision[] {
  if (!Array.isArray(decisions))
    throw new ApprovalDecisionError(`decisions must be an array of { id, approve, reason? }, got ${describe(decisions)}`);
  if (decisions.length === 0) throw new ApprovalDecisionError('decisions must not be empty');
  if (decisions.length > pending.length) {
    throw new ApprovalDecisionError(`decisions has ${decisions.length} entries but the run waits for ${pending.length} approval(s)`);
  }
  const known = new Map(pending.map((p) => [p.id, p]));
  const seen = new Set<string>();
  const out = decisions.map((d: unknown, i): ApprovalDecision => {
    const where = `decisions[${i}]`;
    if (!isPlainObject(d)) throw new ApprovalDecisionError(`${where} must be an object { id, approve, reason? }, got ${describe(d)}`);
    const extra = Object.keys(d).filter((k) => k !== 'id' && k !== 'approve' && k !== 'reason');
    if (extra.length > 0)
      throw new ApprovalDecisionError(`${where} has unknown field ${JSON.stringify(extra[0]!.slice(0, 50))}; allowed: id, approve, reason`);
    if (typeof d.id !== 'string' || d.id.length === 0 || d.id.length > 200)
      throw new ApprovalDecisionError(`${where}.id must be a pending approval id, got ${describe(d.id)}`);
    if (!known.has(d.id))
      throw new ApprovalDecisionError(
        `${where}.id ${JSON.stringify(d.id)} is not a pending approval of this run (pending: ${[...known.keys()].join(', ')})`,
      );
    if (seen.has(d.id)) throw new ApprovalDecisionError(`${where}.id ${JSON.stringify(d.id)} is decided twice`);
    seen.add(d.id);
    if (typeof d.approve !== 'boolean')
      throw new ApprovalDecisionError(`${where}.approve must be true or false, got ${describe(d.approve)}`);
    if (d.reason !== undefined) {
      if (typeof d.reason !== 'string' || d.reason.trim().length === 0 || d.reason.length > MAX_APPROVAL_REASON_CHARS) {
        throw new ApprovalDecisionError(
          `${where}.reason must be a non-blank string of at most ${MAX_APPROVAL_REASON_CHARS} characters, got ${describe(d.reason)}`,
        );
      }
      if (d.approve) throw new ApprovalDecisionError(`${where}.reason is only for a rejection (approve: false)`);
    }
    return d.reason === undefined ? { id: d.id, approve: d.approve } : { id: d.id, approve: d.approve, reason: d.reason };
  });
  const missing = pending.filter((p) => !seen.has(p.id)).map((p) => p.id);
  if (missing.length > 0)
    throw new ApprovalDecisionError(`decisions leave ${missing.join(', ')} undecided; decide every pending approval in one request`);
  return out;
}

/** Seals and opens the serialised run state kept in the store. */
export class StateSeal {
  private readonly key: Buffer | undefined;
  constructor(secret: string | undefined) {
    if (secret !== undefined && (typeof secret !== 'string' || secret.length < 32)) {
      throw new RunnerError('INVALID_REQUEST', 'new Runner(options): approvals.stateSecret must be a string of at least 32 characters');
    }
    this.key = secret === undefined ? undefined : Buffer.from(secret, 'utf8');
  }

  private mac(runId: string, state: string): string {
    // Bound to the run: a state moved onto another run's record does not open.
    const h = this.key ? createHmac('sha256', this.key) : createHash('sha256');
    return h.update(`baton.approval-state.v1\n${runId}\n`).update(state).digest('hex');
  }

  seal(runId: string, state: string): string {
    const sealed = `v1.${this.mac(runId, state)}.${state}`;
    if (sealed.length > MAX_SUSPENDED_STATE_CHARS) {
      throw new RunnerError(
        'APPROVAL_STATE_TOO_LARGE',
        `the paused run's state is ${sealed.length} characters, more than the ${MAX_SUSPENDED_STATE_CHARS} a store keeps`,
      );
    }
    return sealed;
  }

  /** The state, or a reason it is refused (never throws). */
  open(runId: string, sealed: unknown): { ok: true; state: string } | { ok: false; reason: string } {
    if (typeof sealed !== 'string' || sealed.length > MAX_SUSPENDED_STATE_CHARS)
      return { ok: false, reason: 'the stored state is missing or larger than allowed' };
    const m = /^v1\.([0-9a-f]{64})\./.exec(sealed);
    if (!m) return { ok: false, reason: 'the stored state has no valid seal' };
    const state = sealed.slice(m[0].length);
    const expected = Buffer.from(this.mac(runId, state), 'hex');
    if (!timingSafeEqual(expected, Buffer.from(m[1]!, 'hex')))
      return { ok: false, reason: 'the stored state does not match its seal (edited, or sealed with another secret)' };
    return { ok: true, state };
  }
}

/** A new approval id. */
export function newApprovalId(): string {
  return `appr_${randomBytes(12).toString('hex')}`;
}

/** `RunResult.required_action` of a suspended run. */
export function requiredActionOf(suspended: Pick<SuspendedRun, 'runId' | 'expiresAt' | 'approvals'>): RequiredAction {
  return {
    type: 'submit_approvals',
    run_id: suspended.runId,
    expires_at: suspended.expiresAt,
    approvals: suspended.approvals.map((a) => ({
      id: a.id,
      agent_id: a.agentId,
      tool_name: a.toolName,
      arguments: a.arguments,
      call_id: a.callId,
    })),
  };
}
