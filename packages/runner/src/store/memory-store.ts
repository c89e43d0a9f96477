import { InvalidStoreInputError, RunNotFoundError, StoreError, ThreadNotFoundError } from './errors.js';
import { memorySuspendedRuns } from './suspended-runs.js';
import { defaultIdGenerator, type StoreIdKind } from './ids.js';
import { createHeldLock } from './held-lock.js';
import { waitForLock } from './lock-wait.js';
import {
  ABANDONED_RUN_MESSAGE,
  ACTIVE_RUN_STATUSES,
  RUNNER_CRASHED,
  assertTransition,
  checkAuditInput,
  checkError,
  checkId,
  checkLockOptions,
  checkMergeOptions,
  checkStatus,
  copyObject,
  isPlainObject,
  mergeStateObjects,
} from './rules.js';
import type { AuditRecord, JsonObject, RunRecord, ThreadItem, ThreadRecord, ThreadStore } from './types.js';

/** Options for {@link createMemoryThreadStore}. */
export interface MemoryThreadStoreOptions {
  /** Clock for timestamps and lock leases; default `new Date()`. */
  clock?: () => Date;
  /** Id generator; default `<kind>_<32 hex>`. */
  idGenerator?: (kind: StoreIdKind) => string;
}

interface ThreadEntry {
  record: ThreadRecord;
  nextSeq: number;
  items: ThreadItem[];
  audit: AuditRecord[];
  /** Idempotency keys of the state writes applied on this thread. */
  applied: Set<string>;
}

/**
 * A thread store in this process's memory, with the same semantics as the SQLite store (same
 * merge rule, same errors, leased locks): for tests and throwaway runs. Nothing survives exit.
 */
export function createMemoryThreadStore(options: MemoryThreadStoreOptions = {}): ThreadStore {
  const clock = options.clock ?? (() => new Date());
  const newId = options.idGenerator ?? defaultIdGenerator;
  const now = () => clock().toISOString();
  const nowMs = () => clock().getTime();

  const threads = new Map<string, ThreadEntry>();
  const runs = new Map<string, RunRecord>();
  const locks = new Map<string, { owner: string; token: string; expiresAt: number }>();
  const auditIds = new Set<string>();
  let waiters: (() => void)[] = [];
  let closed = false;

  const notifyReleased = () => {
    const current = waiters;
    waiters = [];
    for (const wake of current) wake();
  };
  const open = (what: string) => {
    if (closed) throw new StoreError('STORE_CLOSED', `thread store is closed (${what})`);
  };
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
  const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

  const writeState = (threadId: string, value: unknown, replace: boolean, options: unknown): JsonObject => {
    checkId(threadId, 'thread id');
    const patch = copyObject(value, replace ? 'thread state' : 'state patch');
    const key = checkMergeOptions(options, replace ? 'replaceState options' : 'mergeState options');
    const entry = requireThread(threadId);
    if (key !== undefined) {
      if (entry.applied.has(key)) return clone(entry.record.state);
      entry.applied.add(key);
    }
    entry.record.state = replace ? patch : mergeStateObjects(entry.record.state, patch);
    entry.record.updatedAt = now();
    return clone(entry.record.state);
  };

  return {
    ...memorySuspendedRuns({ open, now, requireRunOnThread }),
    async createThread(input = {}) {
      open('createThread');
      const id = input.id === undefined ? newId('thread') : checkId(input.id, 'thread id');
      const state = copyObject(input.state ?? {}, 'thread state');
      const metadata = copyObject(input.metadata ?? {}, 'thread metadata');
      const tenant = input.tenant === undefined ? undefined : checkId(input.tenant, 'thread tenant');
      if (threads.has(id)) throw new StoreError('STORE_THREAD_EXISTS', `thread ${JSON.stringify(id)} already exists`);
      const at = now();
      const record: ThreadRecord = { id, createdAt: at, updatedAt: at, state, metadata, ...(tenant !== undefined ? { tenant } : {}) };
      threads.set(id, { record, nextSeq: 1, items: [], audit: [], applied: new Set() });
      return clone(record);
    },

    async getThread(threadId) {
      open('getThread');
      const entry = threads.get(checkId(threadId, 'thread id'));
      return entry ? clone(entry.record) : undefined;
    },

    async mergeState(threadId, patch, mergeOptions) {
      open('mergeState');
      return writeState(threadId, patch, false, mergeOptions);
    },

    async replaceState(threadId, state, replaceOptions) {
      open('replaceState');
      return writeState(threadId, state, true, replaceOptions);
    },

    async createRun(threadId, input) {
      open('createRun');
      checkId(threadId, 'thread id');
      if (!isPlainObject(input)) throw new InvalidStoreInputError('createRun input must be an object');
      const agentId = checkId(input.agentId, 'agentId');
      const agentVersion = checkId(input.agentVersion, 'agentVersion');
      const status = checkStatus(input.status ?? 'queued', 'run status');
      requireThread(threadId);
      if (input.parentRunId) requireRunOnThread(input.parentRunId, threadId);
      const at = now();
      const run: RunRecord = {
        id: newId('run'),
        threadId,
        agentId,
        agentVersion,
        status,
        parentRunId: input.parentRunId ?? null,
        createdAt: at,
        updatedAt: at,
        error: null,
        traceId: input.traceId ?? null,
      };
      runs.set(run.id, run);
      return clone(run);
    },

    async updateRun(runId, input) {
      open('updateRun');
      checkId(runId, 'run id');
      if (!isPlainObject(input)) throw new InvalidStoreInputError('updateRun input must be an object');
      const status = input.status === undefined ? undefined : checkStatus(input.status, 'run status');
      const error = input.error === undefined ? undefined : checkError(input.error, 'run error');
      const run = runs.get(runId);
      if (!run) throw new RunNotFoundError(runId);
      const nextStatus = status ?? run.status;
      assertTransition(runId, run.status, nextStatus);
      run.status = nextStatus;
      if (error !== undefined) run.error = error;
      run.updatedAt = now();
      return clone(run);
    },

    async getRun(runId) {
      open('getRun');
      const run = runs.get(checkId(runId, 'run id'));
      return run ? clone(run) : undefined;
    },

    async listRuns(threadId) {
      open('listRuns');
      checkId(threadId, 'thread id');
      return [...runs.values()].filter((run) => run.threadId === threadId).map(clone);
    },

    async appendItems(threadId, runId, items) {
      open('appendItems');
      checkId(threadId, 'thread id');
      checkId(runId, 'run id');
      if (!Array.isArray(items)) throw new InvalidStoreInputError('items must be an array of JSON objects');
      const copies = items.map((item, index) => copyObject(item, `items[${index}]`));
      const entry = requireThread(threadId);
      requireRunOnThread(runId, threadId);
      const at = now();
      const appended = copies.map((item) => ({ seq: entry.nextSeq++, threadId, runId, createdAt: at, item }));
      entry.items.push(...appended);
      entry.record.updatedAt = at;
      return clone(appended);
    },

    async listItems(threadId) {
      open('listItems');
      return clone(threads.get(checkId(threadId, 'thread id'))?.items ?? []);
    },

    async appendAudit(record) {
      open('appendAudit');
      const checked = checkAuditInput(record, () => newId('audit'));
      const { id, threadId, runId, kind } = checked;
      const data = JSON.parse(checked.data) as JsonObject;
      const entry = requireThread(threadId);
      if (runId) requireRunOnThread(runId, threadId);
      // An index of every audit id, not a scan of every thread's records (that grew with the store).
      if (auditIds.has(id)) {
        throw new InvalidStoreInputError(`appendAudit violates a store constraint: audit id ${JSON.stringify(id)} already exists`);
      }
      const audit: AuditRecord = { id, threadId, runId, kind, createdAt: now(), data };
      entry.audit.push(audit);
      auditIds.add(id);
      return clone(audit);
    },

    async listAudit(threadId) {
      open('listAudit');
      return clone(threads.get(checkId(threadId, 'thread id'))?.audit ?? []);
    },

    async acquireThreadLock(threadId, lockOptions) {
      open('acquireThreadLock');
      checkId(threadId, 'thread id');
      const { owner, leaseMs, waitMs } = checkLockOptions(lockOptions);
      const token = newId('lock');
      await waitForLock({
        threadId,
        waitMs,
        signal: lockOptions.signal,
        holder: () => locks.get(threadId)?.owner,
        released: () => new Promise<void>((resolve) => waiters.push(resolve)),
        attempt: () => {
          open('acquireThreadLock');
          requireThread(threadId);
          const current = locks.get(threadId);
          if (current && current.expiresAt > nowMs()) return undefined;
          locks.set(threadId, { owner, token, expiresAt: nowMs() + leaseMs });
          return true;
        },
      });
      const renew = async (): Promise<boolean> => {
        const current = locks.get(threadId);
        if (closed || current?.token !== token) return false;
        current.expiresAt = nowMs() + leaseMs;
        return true;
      };
      return createHeldLock({
        threadId,
        owner,
        leaseMs,
        renew,
        ...(lockOptions.autoRenew !== undefined ? { autoRenew: lockOptions.autoRenew } : {}),
        async release() {
          if (locks.get(threadId)?.token === token) locks.delete(threadId);
          notifyReleased();
        },
      });
    },

    async recoverAbandonedRuns() {
      open('recoverAbandonedRuns');
      const at = nowMs();
      for (const [threadId, lock] of locks) if (lock.expiresAt <= at) locks.delete(threadId);
      let count = 0;
      for (const run of runs.values()) {
        if (ACTIVE_RUN_STATUSES.includes(run.status) && !locks.has(run.threadId)) {
          run.status = 'failed';
          run.error = { code: RUNNER_CRASHED, message: ABANDONED_RUN_MESSAGE };
          run.updatedAt = now();
          count++;
        }
      }
      return count;
    },

    async close() {
      closed = true;
      locks.clear();
      notifyReleased();
    },
  };
}
