import { InvalidStoreInputError, LockLostError, RunNotFoundError, StoreError, ThreadNotFoundError } from './errors.js';
import type { StoreIdKind } from './ids.js';
import { createThreadStoreFacade } from './kit/facade.js';
import { withStoreExtension } from './kit/extend.js';
import { memorySuspendedRuns } from './suspended-runs.js';
import type { LockAttempt, NewLock, NewThread, PreparedWrite, StoreBackend, WriteResult } from './kit/backend.js';
import { ACTIVE_RUN_STATUSES, assertTransition, mergeStateObjects } from './rules.js';
import type { AuditRecord, JsonObject, RunRecord, SuspendedRun, ThreadItem, ThreadRecord, ThreadStore } from './types.js';

/** Options for {@link createMemoryThreadStore}. */
export interface MemoryThreadStoreOptions {
  /** Clock for timestamps and lock leases; default `new Date()`. */
  clock?: () => Date;
  /** Id generator; default `<kind>_<32 hex>`. */
  idGenerator?: (kind: StoreIdKind) => string;
}

/**
 * An item or audit record as kept: its JSON object as the text the facade encoded. Parsed only
 * when read (`listItems` / `listAudit` return fresh copies anyway), so a write does not pay a
 * `JSON.parse` per item and audit record that nothing may ever read (the runner-overhead profile:
 * the parse of the guardrail audit records was the largest self time of the memory store).
 */
type StoredItem = Omit<ThreadItem, 'item'> & { json: string };
type StoredAudit = Omit<AuditRecord, 'data'> & { json: string };

interface ThreadEntry {
  record: ThreadRecord;
  nextSeq: number;
  items: StoredItem[];
  audit: StoredAudit[];
  /** Idempotency keys of the state writes applied on this thread. */
  applied: Set<string>;
}

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/**
 * A thread store in this process's memory, with the same semantics as the SQLite store (same
 * facade, same merge rule, same errors, leased locks): for tests and throwaway runs. Nothing
 * survives exit.
 */
export function createMemoryThreadStore(options: MemoryThreadStoreOptions = {}): ThreadStore {
  const clock = options.clock ?? (() => new Date());
  // Shared by the backend (batched deletes, recovery) and the suspended-run methods.
  const suspended = new Map<string, SuspendedRun>();
  const backend = memoryBackend(() => clock().getTime(), suspended);
  return withStoreExtension(createThreadStoreFacade(backend, options), ({ assertOpen, fence }) =>
    memorySuspendedRuns({
      open: assertOpen,
      fence,
      holdsLock: backend.holdsLock,
      now: () => clock().toISOString(),
      requireRunOnThread: backend.requireRunOnThread,
      byRun: suspended,
    }),
  );
}

/** The memory backend: maps, with an undo log so a failed batch leaves nothing behind. */
function memoryBackend(
  nowMs: () => number,
  suspended: Map<string, SuspendedRun>,
): StoreBackend & { requireRunOnThread(runId: string, threadId: string): RunRecord; holdsLock(threadId: string, token: string): boolean } {
  const threads = new Map<string, ThreadEntry>();
  const runs = new Map<string, RunRecord>();
  const locks = new Map<string, { owner: string; token: string; expiresAt: number }>();
  const auditIds = new Set<string>();

  const requireThread = (threadId: string): ThreadEntry => {
    const entry = threads.get(threadId);
    if (!entry) throw new ThreadNotFoundError(threadId);
    return entry;
  };
  const requireRunOnThread = (runId: string, threadId: string): RunRecord => {
    const run = runs.get(runId);
    if (!run) throw new RunNotFoundError(runId);
    if (run.threadId !== threadId) throw new RunNotFoundError(runId, `on thread ${JSON.stringify(threadId)}`);
    return run;
  };

  /**
   * The fencing check: the thread's lock still carries this holder's token (a take-over replaced
   * it) and its lease has not run out (an expired lease is lost even when nobody took it yet, as
   * in Redis, where the key is gone).
   */
  const holdsLock = (threadId: string, token: string): boolean => {
    const current = locks.get(threadId);
    return current?.token === token && current.expiresAt > nowMs();
  };
  const takeLock = (lock: NewLock): void =>
    void locks.set(lock.threadId, { owner: lock.owner, token: lock.token, expiresAt: nowMs() + lock.leaseMs });

  /**
   * Applies one write, pushing what undoes it onto `undo`. The result copy is made only when the
   * caller asked for results (`writeBatch` and `commitAndRelease` do not): a turn's batch would
   * otherwise deep-copy every run and state it touches for nothing.
   */
  const apply = (w: PreparedWrite, at: string, results: boolean, undo: (() => void)[]): WriteResult => {
    switch (w.op) {
      case 'assertLock':
        // Fencing: the lock row still carries this holder's token (a take-over replaced it).
        if (!holdsLock(w.threadId, w.token)) throw new LockLostError(w.threadId);
        return undefined;
      case 'createRun': {
        const { run } = w;
        requireThread(run.threadId);
        if (run.parentRunId !== null) requireRunOnThread(run.parentRunId, run.threadId);
        if (runs.has(run.id))
          throw new InvalidStoreInputError(`createRun violates a store constraint: run id ${JSON.stringify(run.id)} already exists`);
        const record: RunRecord = { ...run, createdAt: at, updatedAt: at, error: null };
        runs.set(run.id, record);
        undo.push(() => runs.delete(run.id));
        return results ? clone(record) : undefined;
      }
      case 'writeState': {
        const entry = requireThread(w.threadId);
        if (w.idempotencyKey !== undefined) {
          if (entry.applied.has(w.idempotencyKey)) return results ? clone(entry.record.state) : undefined;
          entry.applied.add(w.idempotencyKey);
          undo.push(() => entry.applied.delete(w.idempotencyKey!));
        }
        const before = { state: entry.record.state, updatedAt: entry.record.updatedAt };
        entry.record.state = w.replace ? clone(w.patch) : mergeStateObjects(entry.record.state, clone(w.patch));
        entry.record.updatedAt = at;
        undo.push(() => Object.assign(entry.record, before));
        return results ? clone(entry.record.state) : undefined;
      }
      case 'appendItems': {
        const entry = requireThread(w.threadId);
        requireRunOnThread(w.runId, w.threadId);
        const before = { nextSeq: entry.nextSeq, length: entry.items.length, updatedAt: entry.record.updatedAt };
        const first = entry.nextSeq;
        for (const item of w.items) {
          entry.items.push({
            seq: entry.nextSeq++,
            threadId: w.threadId,
            runId: w.runId,
            createdAt: at,
            json: item,
          });
        }
        entry.record.updatedAt = at;
        undo.push(() => {
          entry.items.length = before.length;
          entry.nextSeq = before.nextSeq;
          entry.record.updatedAt = before.updatedAt;
        });
        return first;
      }
      case 'appendAudit': {
        const entry = requireThread(w.threadId);
        if (w.runId) requireRunOnThread(w.runId, w.threadId);
        // An index of every audit id, not a scan of every thread's records (that grew with the store).
        if (auditIds.has(w.id)) {
          throw new InvalidStoreInputError(`appendAudit violates a store constraint: audit id ${JSON.stringify(w.id)} already exists`);
        }
        entry.audit.push({
          id: w.id,
          threadId: w.threadId,
          runId: w.runId,
          kind: w.kind,
          createdAt: at,
          json: w.data,
        });
        auditIds.add(w.id);
        undo.push(() => {
          entry.audit.pop();
          auditIds.delete(w.id);
        });
        return undefined;
      }
      case 'updateRun': {
        const run = runs.get(w.runId);
        if (!run) throw new RunNotFoundError(w.runId);
        const nextStatus = w.status ?? run.status;
        assertTransition(w.runId, run.status, nextStatus);
        const before = { ...run };
        run.status = nextStatus;
        if (w.error !== undefined) run.error = w.error;
        run.updatedAt = at;
        undo.push(() => Object.assign(run, before));
        return results ? clone(run) : undefined;
      }
      case 'deleteSuspendedRun': {
        const record = suspended.get(w.runId);
        if (record?.threadId !== w.threadId) return undefined;
        suspended.delete(w.runId);
        // Back at the end: a thread's list keeps save order only approximately after an undo, which no caller relies on.
        undo.push(() => void suspended.set(w.runId, record));
        return undefined;
      }
      default:
        throw new StoreError('STORE_FAILED', `memory store: unknown write ${JSON.stringify((w as { op?: unknown }).op)}`);
    }
  };

  /** All of `writes` or none: a throw undoes what the earlier ones did. */
  const writeAll = (writes: readonly PreparedWrite[], at: string, results: boolean): WriteResult[] => {
    const undo: (() => void)[] = [];
    try {
      return writes.map((w) => apply(w, at, results, undo));
    } catch (error) {
      for (let i = undo.length - 1; i >= 0; i--) undo[i]!();
      throw error;
    }
  };

  return {
    requireRunOnThread,
    holdsLock,
    createThread(thread: NewThread, lock?: NewLock) {
      if (threads.has(thread.id)) throw new StoreError('STORE_THREAD_EXISTS', `thread ${JSON.stringify(thread.id)} already exists`);
      const record: ThreadRecord = {
        id: thread.id,
        createdAt: thread.at,
        updatedAt: thread.at,
        state: thread.state,
        metadata: thread.metadata,
        ...(thread.tenant !== undefined ? { tenant: thread.tenant } : {}),
      };
      threads.set(thread.id, { record: clone(record), nextSeq: 1, items: [], audit: [], applied: new Set() });
      if (lock) takeLock(lock);
    },
    getThread: (threadId) => {
      const entry = threads.get(threadId);
      return entry ? clone(entry.record) : undefined;
    },
    getRun: (runId) => {
      const run = runs.get(runId);
      return run ? clone(run) : undefined;
    },
    listRuns: (threadId) => [...runs.values()].filter((run) => run.threadId === threadId).map(clone),
    // Every field but the JSON text is a string, a number or null: a plain rebuild is a deep copy.
    listItems: (threadId) =>
      (threads.get(threadId)?.items ?? []).map((s): ThreadItem => ({
        seq: s.seq,
        threadId: s.threadId,
        runId: s.runId,
        createdAt: s.createdAt,
        item: JSON.parse(s.json) as JsonObject,
      })),
    listAudit: (threadId) =>
      (threads.get(threadId)?.audit ?? []).map((s): AuditRecord => ({
        id: s.id,
        threadId: s.threadId,
        runId: s.runId,
        kind: s.kind,
        createdAt: s.createdAt,
        data: JSON.parse(s.json) as JsonObject,
      })),

    write: (writes, { at, results }) => writeAll(writes, at, results),
    // Synchronous, so nothing runs between the writes, the read and the release.
    commitAndRelease(writes, { at, threadId, token }) {
      writeAll(writes, at, false);
      const entry = threads.get(threadId);
      if (locks.get(threadId)?.token === token) locks.delete(threadId);
      return entry ? clone(entry.record) : undefined;
    },

    tryLock(lock): LockAttempt {
      requireThread(lock.threadId);
      const current = locks.get(lock.threadId);
      if (current && current.expiresAt > nowMs()) return { acquired: false, holder: current.owner };
      takeLock(lock);
      return { acquired: true };
    },
    renewLock(threadId, token, leaseMs) {
      // A lease that ran out cannot be renewed: the lock is lost (see holdsLock).
      if (!holdsLock(threadId, token)) return false;
      locks.get(threadId)!.expiresAt = nowMs() + leaseMs;
      return true;
    },
    releaseLock(threadId, token) {
      if (locks.get(threadId)?.token === token) locks.delete(threadId);
    },

    recoverAbandonedRuns(error, at) {
      const now = nowMs();
      for (const [threadId, lock] of locks) if (lock.expiresAt <= now) locks.delete(threadId);
      let count = 0;
      for (const run of runs.values()) {
        if (ACTIVE_RUN_STATUSES.includes(run.status) && !locks.has(run.threadId)) {
          run.updatedAt = at;
          // Died while resuming after approvals: paused again, so the decisions can be submitted again.
          if (suspended.has(run.id)) {
            run.status = 'requires_action';
            run.error = null;
            continue;
          }
          run.status = 'failed';
          run.error = { ...error };
          count++;
        }
      }
      return count;
    },

    close() {
      locks.clear();
    },
  };
}
