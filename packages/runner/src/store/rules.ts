import type { JsonObject, RunStatus } from './types.js';
import { RUN_STATUSES } from './types.js';
import { InvalidStoreInputError, StoreError } from './errors.js';
import { LOCK_DEFAULTS } from './lock-wait.js';
import type { AcquireLockOptions, MergeStateOptions } from './types.js';

/** Terminal statuses: a run that reached one never changes status again. */
export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = ['completed', 'cancelled', 'failed', 'expired'];

/**
 * Statuses of a run that is (or was, before a crash) still executing. `requires_action` is not
 * one: such a run is paused for a human decision with its state in the store, and survives
 * restarts (resumable approvals).
 */
export const ACTIVE_RUN_STATUSES: readonly RunStatus[] = ['queued', 'in_progress'];

/** Error code `recoverAbandonedRuns` records on runs whose process died. */
export const RUNNER_CRASHED = 'RUNNER_CRASHED';
/** The message `recoverAbandonedRuns` records with {@link RUNNER_CRASHED}. */
export const ABANDONED_RUN_MESSAGE = 'the process running this run stopped without finishing it (its thread lock expired)';

/** True for a plain object (`{}` or `Object.create(null)`): not an array, class instance or null. */
export function isPlainObject(value: unknown): value is JsonObject {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Serializes a JSON object argument, failing with a message that names `what` for non-objects
 * and values JSON cannot hold (cycles, bigints). `undefined` members are dropped, as JSON does.
 */
export function encodeObject(value: unknown, what: string): string {
  if (!isPlainObject(value)) {
    throw new InvalidStoreInputError(`${what} must be a plain JSON object, got ${describe(value)}`);
  }
  try {
    return JSON.stringify(value);
  } catch (error) {
    throw new InvalidStoreInputError(`${what} is not JSON-serializable: ${(error as Error).message}`, { cause: error });
  }
}

/** A deep copy through JSON, so callers never share mutable state with the store. */
export function copyObject(value: unknown, what: string): JsonObject {
  return JSON.parse(encodeObject(value, what)) as JsonObject;
}

/** Validates a run status (`what` names the argument in the InvalidStoreInputError). */
export function checkStatus(status: unknown, what: string): RunStatus {
  if (typeof status !== 'string' || !(RUN_STATUSES as readonly string[]).includes(status)) {
    throw new InvalidStoreInputError(`${what} must be one of ${RUN_STATUSES.join(', ')}, got ${describe(status)}`);
  }
  return status as RunStatus;
}

/** Validates an id: a non-empty string of at most 200 characters (`what` names it in the error). */
export function checkId(id: unknown, what: string): string {
  if (typeof id !== 'string' || id.length === 0 || id.length > 200) {
    throw new InvalidStoreInputError(`${what} must be a non-empty string of at most 200 characters, got ${describe(id)}`);
  }
  return id;
}

/** The longest idempotency key a store accepts. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 200;

/**
 * Validates {@link MergeStateOptions} (`what` names the call in messages) and returns the
 * idempotency key, or `undefined` when there is none.
 */
export function checkMergeOptions(options: unknown, what = 'mergeState options'): string | undefined {
  if (options === undefined || options === null) return undefined;
  if (!isPlainObject(options)) throw new InvalidStoreInputError(`${what} must be an object, got ${describe(options)}`);
  return checkIdempotencyKey((options as MergeStateOptions).idempotencyKey);
}

/** Validates an idempotency key: `undefined` (none) or a non-empty string of at most 200 characters. */
export function checkIdempotencyKey(key: unknown): string | undefined {
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new InvalidStoreInputError(
      `idempotency key must be a non-empty string of at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters, got ${describe(key)}${
        typeof key === 'string' && key.length > MAX_IDEMPOTENCY_KEY_LENGTH ? ` (${key.length} characters)` : ''
      }`,
    );
  }
  return key;
}

/** Validates a run error: `{ code, message }` strings, or `null`/`undefined` (returned as `null`). */
export function checkError(error: unknown, what: string): { code: string; message: string } | null {
  if (error === null || error === undefined) return null;
  if (!isPlainObject(error) || typeof error.code !== 'string' || typeof error.message !== 'string') {
    throw new InvalidStoreInputError(`${what} must be { code: string, message: string } or null`);
  }
  return { code: error.code, message: error.message };
}

/**
 * The state merge rule, shared by every store: a shallow merge of top-level keys. Each key in
 * `patch` replaces the key in `state` wholesale (nested objects are not merged); `null` is
 * stored as a value, it does not delete the key; keys absent from `patch` are kept.
 */
export function mergeStateObjects(state: JsonObject, patch: JsonObject): JsonObject {
  return { ...state, ...patch };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return typeof value;
}

/** Validates lock options and applies the defaults. */
export function checkLockOptions(options: AcquireLockOptions): { owner: string; leaseMs: number; waitMs: number } {
  if (!isPlainObject(options)) throw new InvalidStoreInputError('acquireThreadLock options must be an object');
  const owner = checkId(options.owner, 'lock owner');
  const leaseMs = options.leaseMs ?? LOCK_DEFAULTS.leaseMs;
  const waitMs = options.waitMs ?? LOCK_DEFAULTS.waitMs;
  if (!Number.isFinite(leaseMs) || leaseMs <= 0) throw new InvalidStoreInputError(`leaseMs must be a positive number, got ${leaseMs}`);
  if (!Number.isFinite(waitMs) || waitMs < 0) throw new InvalidStoreInputError(`waitMs must be a non-negative number, got ${waitMs}`);
  return { owner, leaseMs, waitMs };
}

/** Refuses to move a finished run to another status (it may have been declared crashed). */
export function assertTransition(runId: string, from: RunStatus, to: RunStatus): void {
  if (from !== to && TERMINAL_RUN_STATUSES.includes(from)) {
    throw new StoreError('STORE_RUN_FINISHED', `run ${JSON.stringify(runId)} is already ${from}; it cannot become ${to}`);
  }
}

/** An audit record's fields after validation, with `data` already encoded as JSON text. */
export interface CheckedAuditInput {
  id: string;
  threadId: string;
  runId: string | null;
  kind: string;
  data: string;
}

/**
 * Validates an `appendAudit` record the same way in every store: ids, kind, JSON-serialisable
 * `data` (default `{}`); an absent `id` is taken from `newId()`.
 */
export function checkAuditInput(record: unknown, newId: () => string): CheckedAuditInput {
  if (!isPlainObject(record)) throw new InvalidStoreInputError('audit record must be an object');
  const threadId = checkId(record.threadId, 'audit threadId');
  const runId = record.runId === null || record.runId === undefined ? null : checkId(record.runId, 'audit runId');
  const kind = checkId(record.kind, 'audit kind');
  const data = encodeObject(record.data ?? {}, 'audit data');
  const id = record.id === undefined ? newId() : checkId(record.id, 'audit id');
  return { id, threadId, runId, kind, data };
}
