/** Run statuses and plain JSON objects: the one contracts, from `@baton/manifest/contracts`. */
import type { JsonObject, RunStatus } from '@baton/manifest/contracts';
import type { StoreError } from './errors.js';
export { RUN_STATUSES, type JsonObject, type RunStatus } from '@baton/manifest/contracts';

/** A thread: the unit of conversation and persisted state. */
export interface ThreadRecord {
  id: string;
  createdAt: string;
  updatedAt: string;
  state: JsonObject;
  metadata: JsonObject;
  /**
   * The tenant that created the thread (`RunAuth.tenant`); absent for a thread created without
   * one. Set once at creation and never changed: callers of another tenant must not see it.
   */
  tenant?: string;
}

/** One agent run on a thread. */
export interface RunRecord {
  id: string;
  threadId: string;
  agentId: string;
  agentVersion: string;
  status: RunStatus;
  /** The run that handed off to this one, if any. */
  parentRunId: string | null;
  createdAt: string;
  updatedAt: string;
  /** Why the run failed, was cancelled or expired; never holds payload content. */
  error: { code: string; message: string } | null;
  /** The trace this run belongs to. */
  traceId: string | null;
}

/** One history item on a thread (a user message, an assistant message, a tool call or result). */
export interface ThreadItem {
  /** Monotonic per thread, from 1. */
  seq: number;
  threadId: string;
  runId: string;
  createdAt: string;
  item: JsonObject;
}

/** An audit record: a fact about a boundary crossing. Never holds content or credentials. */
export interface AuditRecord {
  id: string;
  threadId: string;
  runId: string | null;
  kind: string;
  createdAt: string;
  data: JsonObject;
}

export interface CreateRunInput {
  /**
   * The run's id (1-200 characters); default a new `run_…` id. Lets a caller name a run before
   * it is stored (a runner batching run creation with the run's first writes).
   */
  id?: string;
  agentId: string;
  agentVersion: string;
  parentRunId?: string | null;
  status?: RunStatus;
  traceId?: string | null;
}

export interface UpdateRunInput {
  status?: RunStatus;
  error?: { code: string; message: string } | null;
}

/**
 * A held thread lock; release it exactly once (a second release is a no-op). The stores renew
 * the lease in the background while the holder's process lives, so a live run never loses it.
 */
export interface ThreadLock {
  threadId: string;
  owner: string;
  release(): Promise<void>;
  /** Extends the lease now; resolves false if the lock was lost (lease expired and taken over). */
  renew?(): Promise<boolean>;
}

export interface AcquireLockOptions {
  /** Who holds the lock (a run id or process-unique id). */
  owner: string;
  /** How long the lock lives without renewal; a holder that dies loses it after this. */
  leaseMs?: number;
  /** How long to wait for the lock before failing with ThreadBusyError. */
  waitMs?: number;
  signal?: AbortSignal;
  /** Renew the lease in the background every `leaseMs / 3` while held; default true. */
  autoRenew?: boolean;
}

/** Options of {@link ThreadStore.mergeState} and {@link ThreadStore.replaceState}. */
export interface MergeStateOptions {
  /**
   * Applies the merge at most once per key on this thread: a repeat changes nothing and returns
   * the current state. The key is recorded in the same atomic change as the merge, so a retried
   * job or a redelivered message whose first attempt did commit is not applied twice. A non-empty
   * string of at most 200 characters; keys are never forgotten, so derive them from something
   * that names the write (e.g. `<runId>:<step>`), not from the time.
   */
  idempotencyKey?: string;
  /**
   * Fencing, as {@link WriteBatchOptions.lock}: the write applies only if this lock (one this
   * store handed out, still held) still holds its thread, checked in the same atomic change;
   * otherwise `StoreError('STORE_LOCK_LOST')` and nothing is written.
   */
  lock?: ThreadLock;
}

/** Options of {@link ThreadStore.saveSuspendedRun}. */
export interface SaveSuspendedRunOptions {
  /** Fencing, as {@link WriteBatchOptions.lock}: a lost lock is `STORE_LOCK_LOST` and nothing is saved. */
  lock?: ThreadLock;
}

/** Options of {@link ThreadStore.takeSuspendedRun}. */
export interface TakeSuspendedRunOptions {
  /**
   * Fencing, as {@link WriteBatchOptions.lock}: a lost lock is `STORE_LOCK_LOST` and nothing is
   * taken (the record stays). Checked in the same atomic step as the take.
   */
  lock?: ThreadLock;
}

/** Options of {@link ThreadStore.writeBatch}. */
export interface WriteBatchOptions {
  /**
   * Fencing: a lock this store handed out. The writes apply only if it still holds its thread's
   * lock, checked in the same atomic change; a holder whose lease ran out and was taken by
   * another owner gets `StoreError('STORE_LOCK_LOST')` and nothing is applied.
   */
  lock?: ThreadLock;
}

/** Options of {@link ThreadStore.commitAndRelease}. */
export interface CommitAndReleaseOptions {
  /** The last writes, applied in order, all or none (may be empty). */
  writes: readonly StoreWrite[];
  /** A lock this store handed out and that is still held; released by the call. */
  lock: ThreadLock;
  /**
   * Told when the writes committed but freeing the lock failed (only stores that run the steps
   * one after another; the lease then runs out): the call still succeeds, as a failed
   * `lock.release()` after a commit never undid it. Default: ignored.
   */
  onReleaseError?: (error: StoreError) => void;
}

/** One write of a {@link ThreadStore.writeBatch}: the same inputs as the method of that name. */
export type StoreWrite =
  | {
      op: 'createRun';
      threadId: string;
      /** As {@link ThreadStore.createRun}, with the run's `id` required: the batch's later writes may name it. */
      input: CreateRunInput & { id: string };
    }
  | { op: 'appendItems'; threadId: string; runId: string; items: JsonObject[] }
  | { op: 'appendAudit'; record: Omit<AuditRecord, 'id' | 'createdAt'> & { id?: string } }
  | { op: 'updateRun'; runId: string; input: UpdateRunInput }
  | {
      op: 'mergeState';
      threadId: string;
      patch: JsonObject;
      /** As {@link MergeStateOptions.idempotencyKey}: a repeated key (even earlier in the same batch) is skipped. */
      idempotencyKey?: string;
    }
  | {
      /**
       * Removes the suspended run of `runId` on `threadId` (a no-op when there is none), so a
       * resumed run's record goes in the same change as its final status: until that commit the
       * record stays and a resume that died can be decided again. Handled by every store that
       * has the suspended-run methods.
       */
      op: 'deleteSuspendedRun';
      threadId: string;
      runId: string;
    };

/** One tool call of a suspended run waiting for a human decision. */
export interface PendingApproval {
  /** Server-generated id (`appr_…`) that a decision names. */
  id: string;
  /** The model's tool call id. */
  callId: string;
  /** The tool's protocol name (e.g. `refund_payment`, `system::delegate_task`). */
  toolName: string;
  /** The call's arguments as the model sent them (JSON text; guardrails run after approval). */
  arguments: string;
  /** The agent that made the call. */
  agentId: string;
}

/** A run paused in `requires_action`: the Agents SDK's serialised `RunState` and what it waits for. */
export interface SuspendedRun {
  runId: string;
  threadId: string;
  /** `RunState.toString()` of the paused agent run, sealed by the runner (see runner/approval-state.ts). */
  state: string;
  /** The tool calls waiting for a decision (at least one). */
  approvals: PendingApproval[];
  createdAt: string;
  /** ISO time after which a decision is refused and the run becomes `expired`. */
  expiresAt: string;
}

/** Input of {@link ThreadStore.saveSuspendedRun}. */
export type SaveSuspendedRunInput = Omit<SuspendedRun, 'createdAt'>;

/**
 * Persistence for threads, runs, items, state and audit records. Every method is one atomic
 * change: a crash between two calls leaves the store consistent.
 */
export interface ThreadStore {
  /** `tenant` (1-200 characters) is recorded with the thread and returned by `getThread`. */
  createThread(input?: { id?: string; metadata?: JsonObject; state?: JsonObject; tenant?: string }): Promise<ThreadRecord>;
  getThread(threadId: string): Promise<ThreadRecord | undefined>;
  /**
   * Shallow-merges `patch` into the thread's state atomically and returns the new state: each
   * top-level key of `patch` replaces that key (nested objects are not merged), `null` is kept
   * as a value (it does not delete), other keys stay. Concurrent merges never lose a key. With
   * `options.idempotencyKey`, a merge whose key was already applied on this thread is a no-op.
   */
  mergeState(threadId: string, patch: JsonObject, options?: MergeStateOptions): Promise<JsonObject>;
  /**
   * Replaces the thread's whole state atomically (e.g. with an agent process's returned state).
   * Idempotency keys share one key space per thread with {@link ThreadStore.mergeState}.
   */
  replaceState?(threadId: string, state: JsonObject, options?: MergeStateOptions): Promise<JsonObject>;
  createRun(threadId: string, input: CreateRunInput): Promise<RunRecord>;
  updateRun(runId: string, input: UpdateRunInput): Promise<RunRecord>;
  getRun(runId: string): Promise<RunRecord | undefined>;
  listRuns(threadId: string): Promise<RunRecord[]>;
  appendItems(threadId: string, runId: string, items: JsonObject[]): Promise<ThreadItem[]>;
  listItems(threadId: string): Promise<ThreadItem[]>;
  appendAudit(record: Omit<AuditRecord, 'id' | 'createdAt'> & { id?: string }): Promise<AuditRecord>;
  listAudit(threadId: string): Promise<AuditRecord[]>;
  /**
   * Optional: applies several writes, in order, as ONE atomic change (all or none), with the same
   * validation as the single methods. Lets a runner commit a turn's writes in one transaction.
   */
  writeBatch?(writes: readonly StoreWrite[], options?: WriteBatchOptions): Promise<void>;
  /**
   * Optional (resumable approvals): records a run paused for approval, replacing any earlier
   * record of the same run. The run must exist on `threadId`. State is at most
   * `MAX_SUSPENDED_STATE_CHARS` characters, approvals 1 to `MAX_PENDING_APPROVALS`.
   */
  saveSuspendedRun?(input: SaveSuspendedRunInput, options?: SaveSuspendedRunOptions): Promise<SuspendedRun>;
  /** Optional: the suspended run of `runId`, or undefined when none is waiting. */
  getSuspendedRun?(runId: string): Promise<SuspendedRun | undefined>;
  /** Optional: every suspended run of a thread, oldest first (empty for an unknown thread). */
  listSuspendedRuns?(threadId: string): Promise<SuspendedRun[]>;
  /**
   * Optional: removes and returns the suspended run of `runId` in one atomic step, so of several
   * concurrent callers exactly one gets it (the others get undefined).
   */
  takeSuspendedRun?(runId: string, options?: TakeSuspendedRunOptions): Promise<SuspendedRun | undefined>;
  /**
   * Optional: creates a thread and takes its lock in ONE atomic change (one commit instead of
   * two for a runner starting on a new thread). Same validation as the two methods.
   */
  createLockedThread?(
    input: { id?: string; metadata?: JsonObject; state?: JsonObject; tenant?: string },
    lock: AcquireLockOptions,
  ): Promise<{ thread: ThreadRecord; lock: ThreadLock }>;
  /**
   * Optional: applies `writes` (as {@link ThreadStore.writeBatch}, same validation), reads the
   * lock's thread and releases `lock`, as ONE atomic change where the store can (SQLite, memory;
   * other stores run the three steps in order). Returns the thread as it was when the lock was
   * released. Saves a runner's call its last commit. The lock is released also when the writes
   * are invalid or fail (nothing of them is applied; the error is then thrown); `lock` must be
   * held, from this store (`InvalidStoreInputError` otherwise, and nothing is written). The writes
   * are fenced by `lock` (see {@link WriteBatchOptions.lock}): a lock that was lost is
   * `StoreError('STORE_LOCK_LOST')`, and nothing is written.
   */
  commitAndRelease?(options: CommitAndReleaseOptions): Promise<ThreadRecord | undefined>;
  /** Serialises runs on one thread; waits up to `waitMs`. */
  acquireThreadLock(threadId: string, options: AcquireLockOptions): Promise<ThreadLock>;
  /**
   * Marks runs left `queued`/`in_progress` on a thread nobody holds a live lock on as `failed`
   * with error code `RUNNER_CRASHED`; returns how many. Call it when a runner starts. Runs must be
   * executed under the thread lock for this to be safe. A `requires_action` run is paused (its
   * state is kept as a {@link SuspendedRun}), not abandoned: it is left alone. An `in_progress`
   * run that still has its suspended record died while resuming after approvals: it goes back to
   * `requires_action` (error cleared), so its decisions can be submitted again; not counted.
   */
  recoverAbandonedRuns?(): Promise<number>;
  close(): Promise<void>;
}
