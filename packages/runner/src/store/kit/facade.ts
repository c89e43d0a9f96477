import { InvalidStoreInputError, StoreError } from '../errors.js';
import { createHeldLock } from '../held-lock.js';
import { defaultIdGenerator, type StoreIdKind } from '../ids.js';
import { waitForLock } from '../lock-wait.js';
import {
  ABANDONED_RUN_MESSAGE,
  RUNNER_CRASHED,
  checkAuditInput,
  checkError,
  checkId,
  checkIdempotencyKey,
  checkLockOptions,
  checkMergeOptions,
  checkStatus,
  encodeObject,
  isPlainObject,
} from '../rules.js';
import type {
  AcquireLockOptions,
  AuditRecord,
  CreateRunInput,
  JsonObject,
  MergeStateOptions,
  RunRecord,
  StoreWrite,
  ThreadItem,
  ThreadLock,
  ThreadRecord,
  ThreadStore,
  UpdateRunInput,
  WriteBatchOptions,
} from '../types.js';
import type { NewLock, NewRun, NewThread, PreparedWrite, StoreBackend } from './backend.js';
import { registerLockFence } from './extend.js';

/** Options of {@link createThreadStoreFacade}. */
export interface ThreadStoreFacadeOptions {
  /** Clock for timestamps; default `new Date()`. */
  clock?: () => Date;
  /** Id generator; default `<kind>_<32 hex>`. */
  idGenerator?: (kind: StoreIdKind) => string;
}

type ThreadInput = Parameters<ThreadStore['createThread']>[0];

/**
 * A {@link ThreadStore} over a {@link StoreBackend}: the one place that validates arguments,
 * encodes JSON, picks ids and timestamps, maps errors, dispatches batches and runs lock waits,
 * so every backend behaves the same for the same call.
 */
export function createThreadStoreFacade(backend: StoreBackend, options: ThreadStoreFacadeOptions = {}): ThreadStore {
  const clock = options.clock ?? (() => new Date());
  const newId = options.idGenerator ?? defaultIdGenerator;
  const now = () => clock().toISOString();
  let closed = false;
  const heldLocks = new Set<ThreadLock>();
  /**
   * Per held lock: its token, its own release (captured at creation, so a caller that wraps
   * `lock.release` is not called twice) and the slot commitAndRelease fills with the change that
   * frees it together with the last writes.
   */
  const lockState = new WeakMap<ThreadLock, { lock: NewLock; release: () => Promise<void>; finish?: () => Promise<void> }>();
  // Wakes this instance's lock waiters when one of its locks is released (no backoff sleep).
  let waiters: (() => void)[] = [];
  const notifyReleased = () => {
    const current = waiters;
    waiters = [];
    for (const wake of current) wake();
  };

  const mapError = (error: unknown, what: string): StoreError => {
    if (error instanceof StoreError) return error;
    if (backend.mapError) return backend.mapError(error, what);
    return new StoreError(
      'STORE_FAILED',
      `thread store operation ${what} failed: ${error instanceof Error ? error.message : String(error)}`,
      {
        cause: error,
      },
    );
  };
  const closedError = (what: string) => new StoreError('STORE_CLOSED', `thread store is closed (${what})`);
  /** Runs one store operation: refuses after close(), maps every failure to a StoreError. */
  const op = async <T>(what: string, fn: () => T | Promise<T>): Promise<T> => {
    if (closed) throw closedError(what);
    try {
      return await fn();
    } catch (error) {
      throw mapError(error, what);
    }
  };

  const write = async (writes: readonly PreparedWrite[], results: boolean) => backend.write(writes, { at: now(), results });
  /** The fencing write of a lock this store handed out (see `PreparedWrite` `assertLock`). */
  const fenceOf = (lock: NewLock): PreparedWrite => ({ op: 'assertLock', threadId: lock.threadId, token: lock.token });
  /**
   * A `lock` option as the lock this store handed out: undefined for none; anything else (another
   * store's lock, a released one, not a lock) is refused before anything is written. With
   * `threadId` (a single-thread write), the lock must be that thread's: a lock held on another
   * thread would pass the check and fence nothing on the thread written to.
   */
  const heldLock = (held: unknown, what: string, threadId?: unknown): NewLock | undefined => {
    if (held === undefined) return undefined;
    const state = held !== null && typeof held === 'object' ? lockState.get(held as ThreadLock) : undefined;
    if (!state || !heldLocks.has(held as ThreadLock))
      throw new InvalidStoreInputError(`${what}: lock must be a lock this store handed out and still holds`);
    if (threadId !== undefined && state.lock.threadId !== threadId)
      throw new InvalidStoreInputError(`${what}: lock holds thread ${JSON.stringify(state.lock.threadId)}, not the thread written to`);
    return state.lock;
  };

  const prepareThread = (input: ThreadInput = {}): NewThread => {
    if (!isPlainObject(input)) throw new InvalidStoreInputError('createThread input must be an object');
    const id = input.id === undefined ? newId('thread') : checkId(input.id, 'thread id');
    const stateJson = encodeObject(input.state ?? {}, 'thread state');
    const metadataJson = encodeObject(input.metadata ?? {}, 'thread metadata');
    const tenant = input.tenant === undefined ? undefined : checkId(input.tenant, 'thread tenant');
    return {
      id,
      at: now(),
      state: JSON.parse(stateJson) as JsonObject,
      stateJson,
      metadata: JSON.parse(metadataJson) as JsonObject,
      metadataJson,
      tenant,
    };
  };
  const threadRecord = (t: NewThread): ThreadRecord => ({
    id: t.id,
    createdAt: t.at,
    updatedAt: t.at,
    state: JSON.parse(t.stateJson) as JsonObject,
    metadata: JSON.parse(t.metadataJson) as JsonObject,
    ...(t.tenant !== undefined ? { tenant: t.tenant } : {}),
  });

  const prepareRun = (threadId: unknown, input: CreateRunInput, id: string | undefined): NewRun => {
    checkId(threadId, 'thread id');
    if (!isPlainObject(input)) throw new InvalidStoreInputError('createRun input must be an object');
    const parentRunId = input.parentRunId === undefined || input.parentRunId === null ? null : checkId(input.parentRunId, 'parentRunId');
    const traceId = input.traceId === undefined || input.traceId === null ? null : checkId(input.traceId, 'traceId');
    return {
      id: id ?? (input.id === undefined ? newId('run') : checkId(input.id, 'run id')),
      threadId: threadId as string,
      agentId: checkId(input.agentId, 'agentId'),
      agentVersion: checkId(input.agentVersion, 'agentVersion'),
      status: checkStatus(input.status ?? 'queued', 'run status'),
      parentRunId,
      traceId,
    };
  };
  const prepareState = (threadId: unknown, value: unknown, replace: boolean, key: string | undefined): PreparedWrite => {
    const patchJson = encodeObject(value, replace ? 'thread state' : 'state patch');
    return {
      op: 'writeState',
      threadId: checkId(threadId, 'thread id'),
      patch: JSON.parse(patchJson) as JsonObject,
      patchJson,
      replace,
      idempotencyKey: key,
    };
  };
  const prepareItems = (threadId: unknown, runId: unknown, items: unknown): PreparedWrite & { op: 'appendItems' } => {
    checkId(threadId, 'thread id');
    checkId(runId, 'run id');
    if (!Array.isArray(items)) throw new InvalidStoreInputError('items must be an array of JSON objects');
    const encoded = items.map((item: unknown, index) => encodeObject(item, `items[${index}]`));
    return { op: 'appendItems', threadId: threadId as string, runId: runId as string, items: encoded };
  };
  const prepareAudit = (record: unknown): PreparedWrite & { op: 'appendAudit' } => ({
    op: 'appendAudit',
    ...checkAuditInput(record, () => newId('audit')),
  });
  const prepareUpdate = (runId: unknown, input: UpdateRunInput): PreparedWrite => {
    checkId(runId, 'run id');
    if (!isPlainObject(input)) throw new InvalidStoreInputError('updateRun input must be an object');
    return {
      op: 'updateRun',
      runId: runId as string,
      status: input.status === undefined ? undefined : checkStatus(input.status, 'run status'),
      error: input.error === undefined ? undefined : checkError(input.error, 'run error'),
    };
  };
  const prepareBatchWrite = (w: StoreWrite): PreparedWrite => {
    if (!isPlainObject(w))
      throw new InvalidStoreInputError(
        `writeBatch: each write must be an object, got ${w === null ? 'null' : Array.isArray(w) ? 'an array' : typeof w}`,
      );
    switch (w.op) {
      case 'createRun':
        if (!isPlainObject(w.input)) throw new InvalidStoreInputError('createRun input must be an object');
        return { op: 'createRun', run: prepareRun(w.threadId, w.input, checkId(w.input.id, 'run id')) };
      case 'appendItems':
        return prepareItems(w.threadId, w.runId, w.items);
      case 'appendAudit':
        return prepareAudit(w.record);
      case 'updateRun':
        return prepareUpdate(w.runId, w.input);
      case 'mergeState':
        return prepareState(w.threadId, w.patch, false, checkIdempotencyKey(w.idempotencyKey));
      case 'deleteSuspendedRun':
        return { op: 'deleteSuspendedRun', threadId: checkId(w.threadId, 'thread id'), runId: checkId(w.runId, 'run id') };
      default:
        throw new InvalidStoreInputError(`writeBatch: unknown write ${JSON.stringify((w as { op?: unknown }).op)}`);
    }
  };

  const writeState = (what: 'mergeState' | 'replaceState', threadId: unknown, value: unknown, stateOptions: unknown) =>
    op(what, async () => {
      const replace = what === 'replaceState';
      const prepared = prepareState(threadId, value, replace, checkMergeOptions(stateOptions, `${what} options`));
      const lock = heldLock((stateOptions as MergeStateOptions | null | undefined)?.lock, what, threadId);
      if (!lock) return (await write([prepared], true))[0] as JsonObject;
      // Fenced: the lock check goes first, in the same atomic change as the write.
      const [, state] = await write([fenceOf(lock), prepared], true);
      return state as JsonObject;
    });

  /** Validated lock options with the backend's defaults, as the lock a backend is asked for. */
  const prepareLock = (threadId: unknown, lockOptions: AcquireLockOptions): { lock: NewLock; waitMs: number } => {
    checkId(threadId, 'thread id');
    if (!isPlainObject(lockOptions)) throw new InvalidStoreInputError('acquireThreadLock options must be an object');
    const { owner, leaseMs, waitMs } = checkLockOptions({
      ...lockOptions,
      ...(lockOptions.leaseMs === undefined && backend.lockDefaults?.leaseMs !== undefined
        ? { leaseMs: backend.lockDefaults.leaseMs }
        : {}),
      ...(lockOptions.waitMs === undefined && backend.lockDefaults?.waitMs !== undefined ? { waitMs: backend.lockDefaults.waitMs } : {}),
    });
    return { lock: { threadId: threadId as string, owner, token: newId('lock'), leaseMs }, waitMs };
  };

  const holdLock = (lock: NewLock, autoRenew: boolean | undefined): ThreadLock => {
    const held = createHeldLock({
      threadId: lock.threadId,
      owner: lock.owner,
      leaseMs: lock.leaseMs,
      onRenewError: backend.renewErrors ?? 'stop',
      ...(autoRenew !== undefined ? { autoRenew } : {}),
      renew: async () => !closed && op('renewThreadLock', () => backend.renewLock(lock.threadId, lock.token, lock.leaseMs)),
      async release() {
        heldLocks.delete(held);
        try {
          const finish = lockState.get(held)?.finish;
          if (finish) await finish();
          else if (!closed) await op('releaseThreadLock', () => backend.releaseLock(lock.threadId, lock.token));
        } finally {
          notifyReleased();
        }
      },
    });
    heldLocks.add(held);
    lockState.set(held, { lock, release: held.release.bind(held) });
    return held;
  };

  const store: ThreadStore = {
    createThread: (input) =>
      op('createThread', async () => {
        const thread = prepareThread(input);
        await backend.createThread(thread);
        return threadRecord(thread);
      }),

    createLockedThread: (input, lockOptions) =>
      op('createThread', async () => {
        const thread = prepareThread(input);
        const { lock } = prepareLock(thread.id, lockOptions);
        await backend.createThread(thread, lock);
        return { thread: threadRecord(thread), lock: holdLock(lock, lockOptions.autoRenew) };
      }),

    getThread: (threadId) => op('getThread', () => backend.getThread(checkId(threadId, 'thread id'))),
    mergeState: (threadId, patch, mergeOptions) => writeState('mergeState', threadId, patch, mergeOptions),
    replaceState: (threadId, state, replaceOptions) => writeState('replaceState', threadId, state, replaceOptions),

    createRun: (threadId, input) =>
      op('createRun', async () => {
        const [run] = await write([{ op: 'createRun', run: prepareRun(threadId, input, undefined) }], true);
        return run as RunRecord;
      }),

    updateRun: (runId, input) =>
      op('updateRun', async () => {
        const [run] = await write([prepareUpdate(runId, input)], true);
        return run as RunRecord;
      }),

    getRun: (runId) => op('getRun', () => backend.getRun(checkId(runId, 'run id'))),
    listRuns: (threadId) => op('listRuns', () => backend.listRuns(checkId(threadId, 'thread id'))),

    appendItems: (threadId, runId, items) =>
      op('appendItems', async (): Promise<ThreadItem[]> => {
        const prepared = prepareItems(threadId, runId, items);
        const at = now();
        const [first] = await backend.write([prepared], { at, results: true });
        return prepared.items.map((item, index) => ({
          seq: (first as number) + index,
          threadId: prepared.threadId,
          runId: prepared.runId,
          createdAt: at,
          item: JSON.parse(item) as JsonObject,
        }));
      }),

    listItems: (threadId) => op('listItems', () => backend.listItems(checkId(threadId, 'thread id'))),

    appendAudit: (record) =>
      op('appendAudit', async (): Promise<AuditRecord> => {
        const prepared = prepareAudit(record);
        const at = now();
        await backend.write([prepared], { at, results: false });
        return {
          id: prepared.id,
          threadId: prepared.threadId,
          runId: prepared.runId,
          kind: prepared.kind,
          createdAt: at,
          data: JSON.parse(prepared.data) as JsonObject,
        };
      }),

    listAudit: (threadId) => op('listAudit', () => backend.listAudit(checkId(threadId, 'thread id'))),

    writeBatch: (writes, batchOptions?: WriteBatchOptions) =>
      op('writeBatch', async () => {
        if (!Array.isArray(writes)) throw new InvalidStoreInputError('writeBatch: writes must be an array');
        if (batchOptions !== undefined && !isPlainObject(batchOptions))
          throw new InvalidStoreInputError('writeBatch options must be an object');
        const lock = heldLock((batchOptions as WriteBatchOptions | undefined)?.lock, 'writeBatch');
        // Everything is validated and encoded before the backend sees any of it.
        const prepared = writes.map(prepareBatchWrite);
        if (prepared.length === 0) return;
        await write(lock ? [fenceOf(lock), ...prepared] : prepared, false);
      }),

    commitAndRelease: (commitOptions) =>
      op('commitAndRelease', async () => {
        if (!isPlainObject(commitOptions)) throw new InvalidStoreInputError('commitAndRelease options must be an object');
        const { writes, lock: held, onReleaseError } = commitOptions;
        const state = held !== null && typeof held === 'object' ? lockState.get(held) : undefined;
        if (!state || !heldLocks.has(held)) {
          throw new InvalidStoreInputError('commitAndRelease: lock must be a lock this store handed out and still holds');
        }
        const { threadId, token } = state.lock;
        let thread: ThreadRecord | undefined;
        // From here on the lock is released whatever happens to the writes.
        state.finish = async () => {
          try {
            // Checked here, like the writes: a malformed call still frees the lock it was given.
            if (onReleaseError !== undefined && typeof onReleaseError !== 'function') {
              throw new InvalidStoreInputError('commitAndRelease: onReleaseError must be a function');
            }
            if (!Array.isArray(writes)) throw new InvalidStoreInputError('commitAndRelease: writes must be an array');
            // Everything is validated and encoded before the backend sees any of it; the fence
            // goes first, so a lost lock applies none of them (an empty commit is fenced too).
            const prepared = [fenceOf(state.lock), ...writes.map(prepareBatchWrite)];
            const at = now();
            if (backend.commitAndRelease) {
              thread = await backend.commitAndRelease(prepared, { at, threadId, token });
              return;
            }
            await backend.write(prepared, { at, results: false });
            thread = await backend.getThread(threadId);
          } catch (error) {
            // Nothing was applied (or, without the backend's one change, what was committed before
            // the failure): the lock is freed anyway.
            await Promise.resolve()
              .then(() => backend.releaseLock(threadId, token))
              .catch(() => undefined);
            throw error;
          }
          // Committed: a release that fails now leaves the lock to its lease, not the writes undone.
          try {
            await backend.releaseLock(threadId, token);
          } catch (error) {
            // The caller's report of it must not turn a committed call into a failed one.
            try {
              onReleaseError?.(mapError(error, 'releaseThreadLock'));
            } catch {
              // ignored: the commit stands and the lease frees the lock
            }
          }
        };
        await state.release();
        return thread;
      }),

    async acquireThreadLock(threadId, lockOptions) {
      const { lock, waitMs } = await op('acquireThreadLock', () => prepareLock(threadId, lockOptions));
      let holder: string | undefined;
      await waitForLock({
        threadId: lock.threadId,
        waitMs,
        signal: lockOptions.signal,
        holder: () => holder,
        released: () => new Promise<void>((resolve) => waiters.push(resolve)),
        attempt: () =>
          op('acquireThreadLock', async () => {
            const attempt = await backend.tryLock(lock);
            if (attempt.acquired) return true;
            holder = attempt.holder;
            return undefined;
          }),
      });
      return holdLock(lock, lockOptions.autoRenew);
    },

    recoverAbandonedRuns: () =>
      op('recoverAbandonedRuns', () => backend.recoverAbandonedRuns({ code: RUNNER_CRASHED, message: ABANDONED_RUN_MESSAGE }, now())),

    async close() {
      if (closed) return;
      for (const lock of [...heldLocks]) await lock.release().catch(() => undefined);
      closed = true;
      notifyReleased();
      await backend.close();
    },
  };
  registerLockFence(store, (held, what, threadId) => {
    const lock = heldLock(held, what, threadId);
    return lock && { threadId: lock.threadId, token: lock.token };
  });
  return store;
}
