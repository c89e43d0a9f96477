import { closeSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { InvalidStoreInputError, RunNotFoundError, StoreError, ThreadNotFoundError } from './errors.js';
import { defaultIdGenerator, type StoreIdKind } from './ids.js';
import {
  ACTIVE_RUN_STATUSES,
  ABANDONED_RUN_MESSAGE,
  RUNNER_CRASHED,
  checkAuditInput,
  checkError,
  checkId,
  checkStatus,
  encodeObject,
  isPlainObject,
  mergeStateObjects,
  assertTransition,
  checkLockOptions,
  checkMergeOptions,
  checkIdempotencyKey,
} from './rules.js';
import { createHeldLock } from './held-lock.js';
import { waitForLock } from './lock-wait.js';
import { SQLITE_MIGRATIONS } from './sqlite-schema.js';
import { sqliteSuspendedRuns } from './suspended-runs.js';
import { currentProcessIdentity, isCertainlyDead, parseProcessIdentity } from './process-identity.js';
import type {
  AuditRecord,
  JsonObject,
  RunRecord,
  RunStatus,
  StoreWrite,
  ThreadItem,
  ThreadRecord,
  ThreadStore,
  UpdateRunInput,
} from './types.js';

/** Options for {@link createSqliteThreadStore}. */
export interface SqliteThreadStoreOptions {
  /** Database file; created (with its schema) when missing. Its directory must exist. */
  file: string;
  /** Clock for timestamps and lock leases; default `new Date()`. */
  clock?: () => Date;
  /** Id generator; default `<kind>_<32 hex>`. */
  idGenerator?: (kind: StoreIdKind) => string;
  /** How long one statement waits for another connection's write lock; default 5000 ms. */
  busyTimeoutMs?: number;
  /**
   * `NORMAL` (default): in WAL mode a commit survives the process being killed, and the file is
   * never corrupted; only a power loss or OS crash can drop the last commits. `FULL` also fsyncs
   * every commit (survives power loss, slower).
   */
  synchronous?: 'NORMAL' | 'FULL';
  /** Call `recoverAbandonedRuns()` while opening; default false. */
  recoverOnOpen?: boolean;
}

interface ThreadRow {
  id: string;
  created_at: string;
  updated_at: string;
  state: string;
  metadata: string;
  next_seq: number;
  tenant: string | null;
}
interface RunRow {
  id: string;
  thread_id: string;
  agent_id: string;
  agent_version: string;
  status: RunStatus;
  parent_run_id: string | null;
  created_at: string;
  updated_at: string;
  error: string | null;
  trace_id: string | null;
}
interface ItemRow {
  thread_id: string;
  seq: number;
  run_id: string;
  created_at: string;
  item: string;
}
interface AuditRow {
  id: string;
  thread_id: string;
  run_id: string | null;
  kind: string;
  created_at: string;
  data: string;
}
interface LockRow {
  owner: string;
  token: string;
  expires_at: number;
  holder: string | null;
}

const SQLITE_DEFAULTS = { busyTimeoutMs: 5_000, synchronous: 'NORMAL' } as const;

/**
 * A thread store on one SQLite file (better-sqlite3, WAL). Every state change is one IMMEDIATE
 * transaction, so several processes may share the file; thread locks are rows with a lease.
 */
export function createSqliteThreadStore(options: SqliteThreadStoreOptions): ThreadStore {
  if (typeof options?.file !== 'string' || options.file === '') {
    throw new InvalidStoreInputError('createSqliteThreadStore: options.file must be a non-empty path');
  }
  const clock = options.clock ?? (() => new Date());
  const newId = options.idGenerator ?? defaultIdGenerator;
  const synchronous = options.synchronous ?? SQLITE_DEFAULTS.synchronous;
  if (synchronous !== 'NORMAL' && synchronous !== 'FULL') {
    throw new InvalidStoreInputError(`createSqliteThreadStore: synchronous must be NORMAL or FULL, got ${String(synchronous)}`);
  }

  const db = openDatabase(options.file, options.busyTimeoutMs ?? SQLITE_DEFAULTS.busyTimeoutMs, synchronous);
  const now = () => clock().toISOString();
  const nowMs = () => clock().getTime();

  const stmt = {
    getThread: db.prepare<[string], ThreadRow>('SELECT * FROM threads WHERE id = ?'),
    threadExists: db.prepare<[string], number>('SELECT 1 FROM threads WHERE id = ?').pluck(),
    insertThread: db.prepare('INSERT INTO threads (id, created_at, updated_at, state, metadata, tenant) VALUES (?, ?, ?, ?, ?, ?)'),
    setState: db.prepare('UPDATE threads SET state = ?, updated_at = ? WHERE id = ?'),
    recordKey: db.prepare('INSERT OR IGNORE INTO applied_writes (thread_id, key, created_at) VALUES (?, ?, ?)'),
    getRun: db.prepare<[string], RunRow>('SELECT * FROM runs WHERE id = ?'),
    listRuns: db.prepare<[string], RunRow>('SELECT * FROM runs WHERE thread_id = ? ORDER BY rowid'),
    insertRun: db.prepare(
      'INSERT INTO runs (id, thread_id, agent_id, agent_version, status, parent_run_id, created_at, updated_at, error, trace_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)',
    ),
    updateRun: db.prepare('UPDATE runs SET status = ?, error = ?, updated_at = ? WHERE id = ?'),
    insertItem: db.prepare('INSERT INTO items (thread_id, seq, run_id, created_at, item) VALUES (?, ?, ?, ?, ?)'),
    setNextSeq: db.prepare('UPDATE threads SET next_seq = ?, updated_at = ? WHERE id = ?'),
    listItems: db.prepare<[string], ItemRow>('SELECT * FROM items WHERE thread_id = ? ORDER BY seq'),
    insertAudit: db.prepare('INSERT INTO audit (id, thread_id, run_id, kind, created_at, data) VALUES (?, ?, ?, ?, ?, ?)'),
    listAudit: db.prepare<[string], AuditRow>('SELECT * FROM audit WHERE thread_id = ? ORDER BY rowid'),
    getLock: db.prepare<[string], LockRow>('SELECT owner, token, expires_at, holder FROM thread_locks WHERE thread_id = ?'),
    upsertLock: db.prepare(
      `INSERT INTO thread_locks (thread_id, owner, token, acquired_at, expires_at, holder) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(thread_id) DO UPDATE SET owner = excluded.owner, token = excluded.token,
         acquired_at = excluded.acquired_at, expires_at = excluded.expires_at, holder = excluded.holder`,
    ),
    liveLocks: db.prepare<[number], { thread_id: string; token: string; holder: string | null }>('SELECT thread_id, token, holder FROM thread_locks WHERE expires_at > ?'),
    renewLock: db.prepare('UPDATE thread_locks SET expires_at = ? WHERE thread_id = ? AND token = ?'),
    deleteLock: db.prepare('DELETE FROM thread_locks WHERE thread_id = ? AND token = ?'),
    deleteExpiredLocks: db.prepare('DELETE FROM thread_locks WHERE expires_at <= ?'),
    failAbandoned: db.prepare(
      `UPDATE runs SET status = 'failed', error = ?, updated_at = ?
       WHERE status IN (${ACTIVE_RUN_STATUSES.map((s) => `'${s}'`).join(',')})
         AND NOT EXISTS (SELECT 1 FROM thread_locks l WHERE l.thread_id = runs.thread_id AND l.expires_at > ?)`,
    ),
  };

  let closed = false;
  const heldLocks = new Set<{ release(): Promise<void> }>();

  /** Runs one synchronous store operation, mapping SQLite failures to StoreError. */
  const op = <T>(what: string, fn: () => T): T => {
    if (closed) throw new StoreError('STORE_CLOSED', `thread store is closed (${what})`);
    try {
      return fn();
    } catch (error) {
      throw toStoreError(error, what);
    }
  };

  const requireThread = (threadId: string): ThreadRow => {
    const row = stmt.getThread.get(threadId);
    if (!row) throw new ThreadNotFoundError(threadId);
    return row;
  };

  const requireRunOnThread = (runId: string, threadId: string): RunRow => {
    const run = stmt.getRun.get(runId);
    if (!run) throw new RunNotFoundError(runId);
    if (run.thread_id !== threadId) throw new RunNotFoundError(runId, `on thread ${JSON.stringify(threadId)}`);
    return run;
  };

  /** Applies a state write; with a key already recorded for the thread, returns the state unchanged. */
  const writeStateBody = (threadId: string, patch: JsonObject, replace: boolean, key: string | undefined): JsonObject => {
    const row = requireThread(threadId);
    const at = now();
    if (key !== undefined && stmt.recordKey.run(threadId, key, at).changes === 0) return JSON.parse(row.state) as JsonObject;
    const next = replace ? patch : mergeStateObjects(JSON.parse(row.state) as JsonObject, patch);
    stmt.setState.run(JSON.stringify(next), at, threadId);
    return next;
  };
  const writeState = db.transaction(writeStateBody);

  // Recorded with every lock so a holder that died on this machine is seen as dead at once.
  const holderIdentity = JSON.stringify(currentProcessIdentity());
  const tryLock = db.transaction((threadId: string, owner: string, token: string, leaseMs: number) => {
    if (!stmt.threadExists.get(threadId)) throw new ThreadNotFoundError(threadId);
    const current = stmt.getLock.get(threadId);
    if (current && current.expires_at > nowMs() && !isCertainlyDead(parseProcessIdentity(current.holder))) return { acquired: false as const, holder: current.owner };
    stmt.upsertLock.run(threadId, owner, token, now(), nowMs() + leaseMs, holderIdentity);
    return { acquired: true as const };
  });

  const prepareUpdateRun = (runId: string, input: UpdateRunInput): [string, RunStatus | undefined, { code: string; message: string } | null | undefined] => {
    checkId(runId, 'run id');
    if (!isPlainObject(input)) throw new InvalidStoreInputError('updateRun input must be an object');
    const status = input.status === undefined ? undefined : checkStatus(input.status, 'run status');
    const error = input.error === undefined ? undefined : checkError(input.error, 'run error');
    return [runId, status, error];
  };
  const updateRunBody = (runId: string, status: RunStatus | undefined, error: { code: string; message: string } | null | undefined): RunRecord => {
    const row = stmt.getRun.get(runId);
    if (!row) throw new RunNotFoundError(runId);
    const nextStatus = status ?? row.status;
    assertTransition(runId, row.status, nextStatus);
    const nextError = error === undefined ? row.error : error === null ? null : JSON.stringify(error);
    const at = now();
    stmt.updateRun.run(nextStatus, nextError, at, runId);
    return runFromRow({ ...row, status: nextStatus, error: nextError, updated_at: at });
  };
  const updateRunTx = db.transaction(updateRunBody);

  const prepareAppendItems = (threadId: string, runId: string, items: JsonObject[]): [string, string, string[], JsonObject[]] => {
    checkId(threadId, 'thread id');
    checkId(runId, 'run id');
    if (!Array.isArray(items)) throw new InvalidStoreInputError('items must be an array of JSON objects');
    const encoded = items.map((item, index) => encodeObject(item, `items[${index}]`));
    return [threadId, runId, encoded, items];
  };
  const appendItemsBody = (threadId: string, runId: string, encoded: string[], items: JsonObject[] | undefined): ThreadItem[] => {
    const thread = requireThread(threadId);
    requireRunOnThread(runId, threadId);
    const at = now();
    const out: ThreadItem[] = encoded.map((item, index) => {
      const seq = thread.next_seq + index;
      stmt.insertItem.run(threadId, seq, runId, at, item);
      return { seq, threadId, runId, createdAt: at, item: items ? (JSON.parse(item) as JsonObject) : {} };
    });
    stmt.setNextSeq.run(thread.next_seq + encoded.length, at, threadId);
    return out;
  };
  const appendItemsTx = db.transaction(appendItemsBody);

  interface PreparedAudit {
    id: string;
    threadId: string;
    runId: string | null;
    kind: string;
    data: string;
  }
  const prepareAudit = (record: Parameters<ThreadStore['appendAudit']>[0]): PreparedAudit => checkAuditInput(record, () => newId('audit'));
  const appendAuditBody = (a: PreparedAudit, decode = true): AuditRecord => {
    const at = now();
    requireThread(a.threadId);
    if (a.runId) requireRunOnThread(a.runId, a.threadId);
    stmt.insertAudit.run(a.id, a.threadId, a.runId, a.kind, at, a.data);
    return { id: a.id, threadId: a.threadId, runId: a.runId, kind: a.kind, createdAt: at, data: decode ? (JSON.parse(a.data) as JsonObject) : {} };
  };
  const appendAuditTx = db.transaction(appendAuditBody);

  const recoverAbandonedRuns = (): number =>
    op('recoverAbandonedRuns', () =>
      db
        .transaction(() => {
          const at = nowMs();
          stmt.deleteExpiredLocks.run(at);
          for (const lock of stmt.liveLocks.all(at)) {
            if (isCertainlyDead(parseProcessIdentity(lock.holder))) stmt.deleteLock.run(lock.thread_id, lock.token);
          }
          const error = JSON.stringify({ code: RUNNER_CRASHED, message: ABANDONED_RUN_MESSAGE });
          return stmt.failAbandoned.run(error, now(), at).changes;
        })
        .immediate(),
    );

  const store: ThreadStore = {
    ...sqliteSuspendedRuns({ db, op, now, requireRunOnThread }),
    async createThread(input = {}) {
      return op('createThread', () => {
        const id = input.id === undefined ? newId('thread') : checkId(input.id, 'thread id');
        const state = encodeObject(input.state ?? {}, 'thread state');
        const metadata = encodeObject(input.metadata ?? {}, 'thread metadata');
        const tenant = input.tenant === undefined ? null : checkId(input.tenant, 'thread tenant');
        const at = now();
        // Read back inside the write transaction: no second (read) transaction per call.
        const row = db.transaction(() => {
          if (stmt.threadExists.get(id)) throw new StoreError('STORE_THREAD_EXISTS', `thread ${JSON.stringify(id)} already exists`);
          stmt.insertThread.run(id, at, at, state, metadata, tenant);
          return requireThread(id);
        }).immediate();
        return threadFromRow(row);
      });
    },

    async getThread(threadId) {
      return op('getThread', () => {
        const row = stmt.getThread.get(checkId(threadId, 'thread id'));
        return row ? threadFromRow(row) : undefined;
      });
    },

    async mergeState(threadId, patch, mergeOptions) {
      return op('mergeState', () => {
        const encoded = encodeObject(patch, 'state patch');
        const key = checkMergeOptions(mergeOptions, 'mergeState options');
        return writeState.immediate(checkId(threadId, 'thread id'), JSON.parse(encoded) as JsonObject, false, key);
      });
    },

    async replaceState(threadId, state, replaceOptions) {
      return op('replaceState', () => {
        const encoded = encodeObject(state, 'thread state');
        const key = checkMergeOptions(replaceOptions, 'replaceState options');
        return writeState.immediate(checkId(threadId, 'thread id'), JSON.parse(encoded) as JsonObject, true, key);
      });
    },

    async createRun(threadId, input) {
      return op('createRun', () => {
        checkId(threadId, 'thread id');
        if (!isPlainObject(input)) throw new InvalidStoreInputError('createRun input must be an object');
        const agentId = checkId(input.agentId, 'agentId');
        const agentVersion = checkId(input.agentVersion, 'agentVersion');
        const status = checkStatus(input.status ?? 'queued', 'run status');
        const id = newId('run');
        const at = now();
        const row = db.transaction(() => {
          requireThread(threadId);
          if (input.parentRunId) requireRunOnThread(input.parentRunId, threadId);
          stmt.insertRun.run(id, threadId, agentId, agentVersion, status, input.parentRunId ?? null, at, at, input.traceId ?? null);
          return stmt.getRun.get(id)!;
        }).immediate();
        return runFromRow(row);
      });
    },

    async updateRun(runId, input) {
      return op('updateRun', () => updateRunTx.immediate(...prepareUpdateRun(runId, input)));
    },

    async getRun(runId) {
      return op('getRun', () => {
        const row = stmt.getRun.get(checkId(runId, 'run id'));
        return row ? runFromRow(row) : undefined;
      });
    },

    async listRuns(threadId) {
      return op('listRuns', () => stmt.listRuns.all(checkId(threadId, 'thread id')).map(runFromRow));
    },

    async appendItems(threadId, runId, items) {
      return op('appendItems', () => appendItemsTx.immediate(...prepareAppendItems(threadId, runId, items)));
    },

    async listItems(threadId) {
      return op('listItems', () =>
        stmt.listItems.all(checkId(threadId, 'thread id')).map((row) => ({
          seq: row.seq,
          threadId: row.thread_id,
          runId: row.run_id,
          createdAt: row.created_at,
          item: JSON.parse(row.item) as JsonObject,
        })),
      );
    },

    async appendAudit(record) {
      return op('appendAudit', () => appendAuditTx.immediate(prepareAudit(record)));
    },

    async writeBatch(writes) {
      return op('writeBatch', () => {
        if (!Array.isArray(writes)) throw new InvalidStoreInputError('writeBatch: writes must be an array');
        // Validate and encode everything first, then one IMMEDIATE transaction for all of it.
        const prepared = writes.map((w: StoreWrite): (() => void) => {
          switch (w?.op) {
            case 'appendItems': {
              const args = prepareAppendItems(w.threadId, w.runId, w.items);
              return () => void appendItemsBody(args[0], args[1], args[2], undefined);
            }
            case 'appendAudit': {
              const audit = prepareAudit(w.record);
              return () => void appendAuditBody(audit, false);
            }
            case 'updateRun': {
              const args = prepareUpdateRun(w.runId, w.input);
              return () => void updateRunBody(...args);
            }
            case 'mergeState': {
              const threadId = checkId(w.threadId, 'thread id');
              const patch = JSON.parse(encodeObject(w.patch, 'state patch')) as JsonObject;
              const key = checkIdempotencyKey(w.idempotencyKey);
              return () => void writeStateBody(threadId, patch, false, key);
            }
            default:
              throw new InvalidStoreInputError(`writeBatch: unknown write ${JSON.stringify((w as { op?: unknown })?.op)}`);
          }
        });
        if (prepared.length === 0) return;
        db.transaction(() => {
          for (const apply of prepared) apply();
        }).immediate();
      });
    },

    async listAudit(threadId) {
      return op('listAudit', () =>
        stmt.listAudit.all(checkId(threadId, 'thread id')).map((row) => ({
          id: row.id,
          threadId: row.thread_id,
          runId: row.run_id,
          kind: row.kind,
          createdAt: row.created_at,
          data: JSON.parse(row.data) as JsonObject,
        })),
      );
    },

    async acquireThreadLock(threadId, lockOptions) {
      checkId(threadId, 'thread id');
      const { owner, leaseMs, waitMs } = checkLockOptions(lockOptions);
      const token = newId('lock');
      let holder: string | undefined;
      await waitForLock({
        threadId,
        waitMs,
        signal: lockOptions.signal,
        holder: () => holder,
        attempt: () =>
          op('acquireThreadLock', () => {
            const result = tryLock.immediate(threadId, owner, token, leaseMs);
            if (result.acquired) return true;
            holder = result.holder;
            return undefined;
          }),
      });
      const renew = async (): Promise<boolean> =>
        !closed && op('renewThreadLock', () => stmt.renewLock.run(nowMs() + leaseMs, threadId, token).changes === 1);
      const lock = createHeldLock({
        threadId,
        owner,
        leaseMs,
        renew,
        onRenewError: 'stop',
        ...(lockOptions.autoRenew !== undefined ? { autoRenew: lockOptions.autoRenew } : {}),
        async release() {
          heldLocks.delete(lock);
          if (!closed) op('releaseThreadLock', () => stmt.deleteLock.run(threadId, token));
        },
      });
      heldLocks.add(lock);
      return lock;
    },

    async recoverAbandonedRuns() {
      return recoverAbandonedRuns();
    },

    async close() {
      if (closed) return;
      for (const lock of [...heldLocks]) await lock.release().catch(() => undefined);
      closed = true;
      db.close();
    },
  };

  if (options.recoverOnOpen) recoverAbandonedRuns();
  return store;
}

/**
 * Creates a missing database file as 0600 before SQLite opens it: SQLite gives its -wal and -shm
 * files the database file's permissions, so thread state and audit records stay owner-only
 * whatever the umask. An existing file keeps the mode its owner gave it.
 */
function createOwnerOnly(file: string): void {
  if (file === ':memory:' || file.startsWith('file:')) return;
  try {
    closeSync(openSync(file, 'wx', 0o600));
  } catch {
    // Already there (EEXIST), or not creatable: SQLite then reports it with its own message.
  }
}

function openDatabase(file: string, busyTimeoutMs: number, synchronous: 'NORMAL' | 'FULL'): Database.Database {
  let db: Database.Database;
  try {
    createOwnerOnly(file);
    db = new Database(file, { timeout: busyTimeoutMs });
  } catch (error) {
    throw new StoreError('STORE_OPEN_FAILED', `cannot open thread store ${JSON.stringify(file)}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  try {
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${synchronous}`);
    db.pragma('foreign_keys = ON');
    migrate(db, file);
    return db;
  } catch (error) {
    db.close();
    if (error instanceof StoreError) throw error;
    throw new StoreError('STORE_OPEN_FAILED', `cannot open thread store ${JSON.stringify(file)}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

function migrate(db: Database.Database, file: string): void {
  db.transaction(() => {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SQLITE_MIGRATIONS.length) {
      throw new StoreError(
        'STORE_SCHEMA_TOO_NEW',
        `thread store ${JSON.stringify(file)} has schema version ${version}, newer than this Baton understands (${SQLITE_MIGRATIONS.length}); upgrade @baton/runner`,
      );
    }
    for (let v = version; v < SQLITE_MIGRATIONS.length; v++) db.exec(SQLITE_MIGRATIONS[v]!);
    db.pragma(`user_version = ${SQLITE_MIGRATIONS.length}`);
  }).immediate();
}

function toStoreError(error: unknown, what: string): StoreError {
  if (error instanceof StoreError) return error;
  const code = (error as { code?: unknown })?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
    return new StoreError('STORE_BUSY', `thread store is busy (${what}): another process held the database too long`, { cause: error });
  }
  if (typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT')) {
    return new InvalidStoreInputError(`${what} violates a store constraint: ${message}`, { cause: error });
  }
  return new StoreError('STORE_FAILED', `thread store operation ${what} failed: ${message}`, { cause: error });
}

function threadFromRow(row: ThreadRow): ThreadRecord {
  return {
    id: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    state: JSON.parse(row.state) as JsonObject,
    metadata: JSON.parse(row.metadata) as JsonObject,
    ...(row.tenant !== null ? { tenant: row.tenant } : {}),
  };
}

function runFromRow(row: RunRow): RunRecord {
  return {
    id: row.id,
    threadId: row.thread_id,
    agentId: row.agent_id,
    agentVersion: row.agent_version,
    status: row.status,
    parentRunId: row.parent_run_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    error: row.error === null ? null : (JSON.parse(row.error) as { code: string; message: string }),
    traceId: row.trace_id,
  };
}

