// The suspended-run part of the built-in stores (resumable approvals): input checks shared by
// every backend, and the memory and SQLite implementations. Kept apart from the stores' other
// methods; each store hooks these in with one spread.
import type Database from 'better-sqlite3';
import { InvalidStoreInputError, LockLostError } from './errors.js';
import type { LockFence } from './kit/extend.js';
import { checkId, isPlainObject } from './rules.js';
import type { PendingApproval, SaveSuspendedRunInput, SuspendedRun, ThreadStore } from './types.js';

/** Largest serialised run state a store accepts, in characters (the SDK's state of a long run is tens of KiB). */
export const MAX_SUSPENDED_STATE_CHARS = 4 * 1024 * 1024;
/** Most tool calls one suspended run may wait for. */
export const MAX_PENDING_APPROVALS = 64;
/** Longest tool call arguments kept with a pending approval, in characters. */
export const MAX_APPROVAL_ARGUMENTS_CHARS = 64 * 1024;

/** The suspended-run methods of {@link ThreadStore}, all present. */
export type SuspendedRunMethods = Required<
  Pick<ThreadStore, 'saveSuspendedRun' | 'getSuspendedRun' | 'listSuspendedRuns' | 'takeSuspendedRun'>
>;

function describe(value: unknown): string {
  if (typeof value === 'string') return value.length > 40 ? `a string of ${value.length} characters` : JSON.stringify(value);
  if (Array.isArray(value)) return 'an array';
  return value === null ? 'null' : typeof value;
}

function checkText(value: unknown, what: string, max: number): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > max) {
    throw new InvalidStoreInputError(`${what} must be a non-empty string of at most ${max} characters, got ${describe(value)}`);
  }
  return value;
}

/** Validates {@link SaveSuspendedRunInput} and returns a copy holding only its known fields. */
/**
 * A fenced take finds its record by run id: the record must be on the fenced lock's thread (another
 * thread's lock fences nothing there). Checked with the take; nothing is taken when it fails.
 */
export function assertTakenOnThread(recordThreadId: string, fence: LockFence): void {
  if (recordThreadId !== fence.threadId)
    throw new InvalidStoreInputError(
      `takeSuspendedRun: lock holds thread ${JSON.stringify(fence.threadId)}, not the paused run's thread ${JSON.stringify(recordThreadId)}`,
    );
}

export function checkSuspendedRunInput(input: unknown): SaveSuspendedRunInput {
  if (!isPlainObject(input)) throw new InvalidStoreInputError(`saveSuspendedRun input must be an object, got ${describe(input)}`);
  const runId = checkId(input.runId, 'saveSuspendedRun runId');
  const threadId = checkId(input.threadId, 'saveSuspendedRun threadId');
  const state = checkText(input.state, 'saveSuspendedRun state', MAX_SUSPENDED_STATE_CHARS);
  const expiresAt = checkText(input.expiresAt, 'saveSuspendedRun expiresAt', 40);
  if (Number.isNaN(Date.parse(expiresAt)) || new Date(Date.parse(expiresAt)).toISOString() !== expiresAt) {
    throw new InvalidStoreInputError(
      `saveSuspendedRun expiresAt must be an ISO 8601 UTC time (Date#toISOString), got ${describe(expiresAt)}`,
    );
  }
  const approvals = input.approvals;
  if (!Array.isArray(approvals) || approvals.length === 0 || approvals.length > MAX_PENDING_APPROVALS) {
    throw new InvalidStoreInputError(
      `saveSuspendedRun approvals must be an array of 1 to ${MAX_PENDING_APPROVALS} pending approvals, got ${Array.isArray(approvals) ? `${approvals.length} entries` : describe(approvals)}`,
    );
  }
  const ids = new Set<string>();
  const checked = approvals.map((a: unknown, i): PendingApproval => {
    const where = `saveSuspendedRun approvals[${i}]`;
    if (!isPlainObject(a)) throw new InvalidStoreInputError(`${where} must be an object, got ${describe(a)}`);
    const id = checkId(a.id, `${where}.id`);
    if (ids.has(id)) throw new InvalidStoreInputError(`${where}.id ${JSON.stringify(id)} is used twice; approval ids must be unique`);
    ids.add(id);
    return {
      id,
      callId: checkId(a.callId, `${where}.callId`),
      toolName: checkId(a.toolName, `${where}.toolName`),
      arguments:
        typeof a.arguments === 'string' && a.arguments.length <= MAX_APPROVAL_ARGUMENTS_CHARS
          ? a.arguments
          : checkText(a.arguments, `${where}.arguments`, MAX_APPROVAL_ARGUMENTS_CHARS),
      agentId: checkId(a.agentId, `${where}.agentId`),
    };
  });
  return { runId, threadId, state, expiresAt, approvals: checked };
}

const copy = (record: SuspendedRun): SuspendedRun => ({ ...record, approvals: record.approvals.map((a) => ({ ...a })) });

/** The memory store's suspended runs. `requireRunOnThread` throws the store's not-found errors. */
export function memorySuspendedRuns(ctx: {
  open(what: string): void;
  now(): string;
  requireRunOnThread(runId: string, threadId: string): unknown;
  /** Where the records live; the store's backend shares it to delete a record in a batch. */
  byRun?: Map<string, SuspendedRun>;
  /** The `{ lock }` option as the lock to check (see `StoreExtensionContext.fence`). */
  fence(lock: unknown, what: string, threadId?: string): LockFence | undefined;
  /** Whether `token` still holds the lock on `threadId` (the backend's own fencing check). */
  holdsLock(threadId: string, token: string): boolean;
}): SuspendedRunMethods {
  const byRun = ctx.byRun ?? new Map<string, SuspendedRun>();
  return {
    async saveSuspendedRun(input, options) {
      ctx.open('saveSuspendedRun');
      const checked = checkSuspendedRunInput(input);
      const fence = ctx.fence(options?.lock, 'saveSuspendedRun', checked.threadId);
      // Checked with the write, nothing awaited in between: a lost lock saves nothing.
      if (fence && !ctx.holdsLock(fence.threadId, fence.token)) throw new LockLostError(fence.threadId);
      ctx.requireRunOnThread(checked.runId, checked.threadId);
      const record: SuspendedRun = { ...checked, createdAt: ctx.now() };
      // Re-inserted so a thread's list stays in save order.
      byRun.delete(checked.runId);
      byRun.set(checked.runId, record);
      return copy(record);
    },
    async getSuspendedRun(runId) {
      ctx.open('getSuspendedRun');
      const record = byRun.get(checkId(runId, 'run id'));
      return record ? copy(record) : undefined;
    },
    async listSuspendedRuns(threadId) {
      ctx.open('listSuspendedRuns');
      checkId(threadId, 'thread id');
      return [...byRun.values()].filter((r) => r.threadId === threadId).map(copy);
    },
    async takeSuspendedRun(runId, options) {
      ctx.open('takeSuspendedRun');
      const id = checkId(runId, 'run id');
      const fence = ctx.fence(options?.lock, 'takeSuspendedRun');
      // Checked with the take, nothing awaited in between: a lost lock takes nothing.
      if (fence && !ctx.holdsLock(fence.threadId, fence.token)) throw new LockLostError(fence.threadId);
      const record = byRun.get(id);
      if (!record) return undefined;
      if (fence) assertTakenOnThread(record.threadId, fence);
      byRun.delete(runId);
      return copy(record);
    },
  };
}

interface SuspendedRow {
  run_id: string;
  thread_id: string;
  state: string;
  approvals: string;
  created_at: string;
  expires_at: string;
}

/**
 * The SQLite store's suspended runs (table `suspended_runs`, migration 4). `op` runs one store
 * operation with the store's closed check and error mapping.
 */
export function sqliteSuspendedRuns(ctx: {
  db: Database.Database;
  op<T>(what: string, fn: () => T): T;
  now(): string;
  requireRunOnThread(runId: string, threadId: string): unknown;
  /** The `{ lock }` option as the lock to check (see `StoreExtensionContext.fence`). */
  fence(lock: unknown, what: string, threadId?: string): LockFence | undefined;
  /** Whether `token` still holds the lock on `threadId`; called inside the save's transaction. */
  holdsLock(threadId: string, token: string): boolean;
}): SuspendedRunMethods {
  const { db, op } = ctx;
  const stmt = {
    upsert: db.prepare(
      `INSERT INTO suspended_runs (run_id, thread_id, state, approvals, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(run_id) DO UPDATE SET state = excluded.state, approvals = excluded.approvals, created_at = excluded.created_at, expires_at = excluded.expires_at`,
    ),
    get: db.prepare<[string], SuspendedRow>('SELECT * FROM suspended_runs WHERE run_id = ?'),
    list: db.prepare<[string], SuspendedRow>('SELECT * FROM suspended_runs WHERE thread_id = ? ORDER BY created_at, rowid'),
    delete: db.prepare('DELETE FROM suspended_runs WHERE run_id = ?'),
  };
  const fromRow = (row: SuspendedRow): SuspendedRun => ({
    runId: row.run_id,
    threadId: row.thread_id,
    state: row.state,
    approvals: JSON.parse(row.approvals) as PendingApproval[],
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  });
  const save = db.transaction((input: SaveSuspendedRunInput, fence: LockFence | undefined): SuspendedRun => {
    // Fencing, in the same transaction as the write.
    if (fence && !ctx.holdsLock(fence.threadId, fence.token)) throw new LockLostError(fence.threadId);
    ctx.requireRunOnThread(input.runId, input.threadId);
    const at = ctx.now();
    stmt.upsert.run(input.runId, input.threadId, input.state, JSON.stringify(input.approvals), at, input.expiresAt);
    return { ...input, createdAt: at };
  });
  const take = db.transaction((runId: string, fence: LockFence | undefined): SuspendedRun | undefined => {
    // Fencing, in the same transaction as the delete.
    if (fence && !ctx.holdsLock(fence.threadId, fence.token)) throw new LockLostError(fence.threadId);
    const row = stmt.get.get(runId);
    if (!row) return undefined;
    if (fence) assertTakenOnThread(row.thread_id, fence);
    stmt.delete.run(runId);
    return fromRow(row);
  });
  return {
    async saveSuspendedRun(input, options) {
      const checked = checkSuspendedRunInput(input);
      return op('saveSuspendedRun', () => save.immediate(checked, ctx.fence(options?.lock, 'saveSuspendedRun', checked.threadId)));
    },
    async getSuspendedRun(runId) {
      checkId(runId, 'run id');
      return op('getSuspendedRun', () => {
        const row = stmt.get.get(runId);
        return row ? fromRow(row) : undefined;
      });
    },
    async listSuspendedRuns(threadId) {
      checkId(threadId, 'thread id');
      return op('listSuspendedRuns', () => stmt.list.all(threadId).map(fromRow));
    },
    async takeSuspendedRun(runId, options) {
      checkId(runId, 'run id');
      const fence = ctx.fence(options?.lock, 'takeSuspendedRun');
      return op('takeSuspendedRun', () => take.immediate(runId, fence));
    },
  };
}
