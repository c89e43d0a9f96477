import { closeSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { InvalidStoreInputError, LockLostError, RunNotFoundError, StoreError, ThreadNotFoundError } from './errors.js';
import type { StoreIdKind } from './ids.js';
import { createThreadStoreFacade } from './kit/facade.js';
import { withStoreExtension } from './kit/extend.js';
import { sqliteSuspendedRuns } from './suspended-runs.js';
import type { LockAttempt, NewLock, NewThread, PreparedWrite, StoreBackend, WriteResult } from './kit/backend.js';
import { ACTIVE_RUN_STATUSES, ABANDONED_RUN_MESSAGE, RUNNER_CRASHED, assertTransition, mergeStateObjects } from './rules.js';
import { SQLITE_MIGRATIONS } from './sqlite-schema.js';
import { currentProcessIdentity, isCertainlyDead, parseProcessIdentity } from './process-identity.js';
import type { JsonObject, RunRecord, RunStatus, ThreadRecord, ThreadStore } from './types.js';

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
  const synchronous = options.synchronous ?? SQLITE_DEFAULTS.synchronous;
  if (synchronous !== 'NORMAL' && synchronous !== 'FULL') {
    throw new InvalidStoreInputError(`createSqliteThreadStore: synchronous must be NORMAL or FULL, got ${String(synchronous)}`);
  }
  const clock = options.clock ?? (() => new Date());
  const db = openDatabase(options.file, options.busyTimeoutMs ?? SQLITE_DEFAULTS.busyTimeoutMs, synchronous);
  const facade = createThreadStoreFacade(sqliteBackend(db, clock), options);
  const runOnThread = db.prepare<[string], { thread_id: string }>('SELECT thread_id FROM runs WHERE id = ?');
  const lockOf = db.prepare<[string], Pick<LockRow, 'token' | 'expires_at'>>(
    'SELECT token, expires_at FROM thread_locks WHERE thread_id = ?',
  );
  const store = withStoreExtension(facade, ({ assertOpen, fence }) =>
    sqliteSuspendedRuns({
      db,
      fence,
      holdsLock: (threadId, token) => holdsLock(lockOf.get(threadId), token, clock().getTime()),
      op: (what, fn) => {
        assertOpen(what);
        try {
          return fn();
        } catch (error) {
          throw toStoreError(error, what);
        }
      },
      now: () => clock().toISOString(),
      requireRunOnThread: (runId, threadId) => {
        const row = runOnThread.get(runId);
        if (!row) throw new RunNotFoundError(runId);
        if (row.thread_id !== threadId) throw new RunNotFoundError(runId, `on thread ${JSON.stringify(threadId)}`);
        return row;
      },
    }),
  );
  if (options.recoverOnOpen) {
    // Synchronous on purpose: nothing else can use the store before the caller has it.
    sqliteBackend.recover(db, clock);
  }
  return store;
}

/**
 * The fencing check: the thread's lock row still carries this holder's token (a take-over or
 * recovery replaced or removed it) and its lease has not run out (an expired lease is lost even
 * when nobody took it yet, as in Redis, where the key is gone).
 */
function holdsLock(row: Pick<LockRow, 'token' | 'expires_at'> | undefined, token: string, nowMs: number): boolean {
  return row?.token === token && row.expires_at > nowMs;
}

/** The SQLite backend: prepared statements, one IMMEDIATE transaction per change. */
function sqliteBackend(db: Database.Database, clock: () => Date): StoreBackend {
  const now = () => clock().toISOString();
  const nowMs = () => clock().getTime();

  const stmt = {
    getThread: db.prepare<[string], ThreadRow>('SELECT * FROM threads WHERE id = ?'),
    threadExists: db.prepare<[string], number>('SELECT 1 FROM threads WHERE id = ?').pluck(),
    insertThread: db.prepare('INSERT INTO threads (id, created_at, updated_at, state, metadata, tenant) VALUES (?, ?, ?, ?, ?, ?)'),
    setState: db.prepare('UPDATE threads SET state = ?, updated_at = ? WHERE id = ?'),
    recordKey: db.prepare('INSERT OR IGNORE INTO applied_writes (thread_id, key, created_at) VALUES (?, ?, ?)'),
    getRun: db.prepare<[string], RunRow>('SELECT * FROM runs WHERE id = ?'),
    runThread: db.prepare<[string], string>('SELECT thread_id FROM runs WHERE id = ?').pluck(),
    listRuns: db.prepare<[string], RunRow>('SELECT * FROM runs WHERE thread_id = ? ORDER BY rowid'),
    insertRun: db.prepare(
      'INSERT INTO runs (id, thread_id, agent_id, agent_version, status, parent_run_id, created_at, updated_at, error, trace_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)',
    ),
    updateRun: db.prepare('UPDATE runs SET status = ?, error = ?, updated_at = ? WHERE id = ?'),
    insertItem: db.prepare('INSERT INTO items (thread_id, seq, run_id, created_at, item) VALUES (?, ?, ?, ?, ?)'),
    // Reserves `count` sequence numbers and answers the first: one statement, not a read and a write.
    reserveSeq: db
      .prepare<[number, string, string, number], number>(
        'UPDATE threads SET next_seq = next_seq + ?, updated_at = ? WHERE id = ? RETURNING next_seq - ?',
      )
      .pluck(),
    threadState: db.prepare<[string], string>('SELECT state FROM threads WHERE id = ?').pluck(),
    listItems: db.prepare<[string], ItemRow>('SELECT * FROM items WHERE thread_id = ? ORDER BY seq'),
    insertAudit: db.prepare('INSERT INTO audit (id, thread_id, run_id, kind, created_at, data) VALUES (?, ?, ?, ?, ?, ?)'),
    listAudit: db.prepare<[string], AuditRow>('SELECT * FROM audit WHERE thread_id = ? ORDER BY rowid'),
    getLock: db.prepare<[string], LockRow>('SELECT owner, token, expires_at, holder FROM thread_locks WHERE thread_id = ?'),
    upsertLock: db.prepare(
      `INSERT INTO thread_locks (thread_id, owner, token, acquired_at, expires_at, holder) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(thread_id) DO UPDATE SET owner = excluded.owner, token = excluded.token,
         acquired_at = excluded.acquired_at, expires_at = excluded.expires_at, holder = excluded.holder`,
    ),
    // A lease that ran out cannot be renewed: the lock is lost (see holdsLock).
    renewLock: db.prepare('UPDATE thread_locks SET expires_at = ? WHERE thread_id = ? AND token = ? AND expires_at > ?'),
    deleteLock: db.prepare('DELETE FROM thread_locks WHERE thread_id = ? AND token = ?'),
    deleteSuspended: db.prepare('DELETE FROM suspended_runs WHERE run_id = ? AND thread_id = ?'),
  };

  /**
   * What one transaction already knows exists: threads and runs (run id → its thread) it checked
   * or created. Rows are never deleted and the transaction holds the write lock, so a check made
   * once holds for the rest of it; a batch of a turn names the same thread and run many times.
   */
  interface Seen {
    threads: Set<string>;
    runs: Map<string, string>;
  }
  const requireThread = (threadId: string, seen: Seen): void => {
    if (seen.threads.has(threadId)) return;
    if (!stmt.threadExists.get(threadId)) throw new ThreadNotFoundError(threadId);
    seen.threads.add(threadId);
  };
  const runOwner = (runId: string, seen: Seen): string | undefined => {
    const known = seen.runs.get(runId);
    if (known !== undefined) return known;
    const owner = stmt.runThread.get(runId);
    if (owner !== undefined) seen.runs.set(runId, owner);
    return owner;
  };
  const requireRunOnThread = (runId: string, threadId: string, seen: Seen): void => {
    const owner = runOwner(runId, seen);
    if (owner === undefined) throw new RunNotFoundError(runId);
    if (owner !== threadId) throw new RunNotFoundError(runId, `on thread ${JSON.stringify(threadId)}`);
  };

  // Recorded with every lock so a holder that died on this machine is seen as dead at once.
  const holderIdentity = JSON.stringify(currentProcessIdentity());
  const takeLock = (lock: NewLock) =>
    stmt.upsertLock.run(lock.threadId, lock.owner, lock.token, now(), nowMs() + lock.leaseMs, holderIdentity);

  /** One write inside the caller's transaction; a throw rolls the whole transaction back. */
  const apply = (w: PreparedWrite, at: string, results: boolean, seen: Seen): WriteResult => {
    switch (w.op) {
      case 'assertLock':
        // Fencing, inside the writes' transaction: the lock row still carries this holder's token
        // (a take-over after the lease ran out, or recovery, replaced or removed it).
        if (!holdsLock(stmt.getLock.get(w.threadId), w.token, nowMs())) throw new LockLostError(w.threadId);
        return undefined;
      case 'createRun': {
        const { run } = w;
        requireThread(run.threadId, seen);
        if (run.parentRunId !== null) requireRunOnThread(run.parentRunId, run.threadId, seen);
        if (runOwner(run.id, seen) !== undefined) {
          throw new InvalidStoreInputError(`createRun violates a store constraint: run id ${JSON.stringify(run.id)} already exists`);
        }
        stmt.insertRun.run(run.id, run.threadId, run.agentId, run.agentVersion, run.status, run.parentRunId, at, at, run.traceId);
        seen.runs.set(run.id, run.threadId);
        return results ? { ...run, createdAt: at, updatedAt: at, error: null } : undefined;
      }
      case 'writeState': {
        // Only the state column: the row's metadata is neither needed nor decoded.
        const state = stmt.threadState.get(w.threadId);
        if (state === undefined) throw new ThreadNotFoundError(w.threadId);
        seen.threads.add(w.threadId);
        if (w.idempotencyKey !== undefined && stmt.recordKey.run(w.threadId, w.idempotencyKey, at).changes === 0) {
          return results ? (JSON.parse(state) as JsonObject) : undefined;
        }
        if (w.replace) {
          stmt.setState.run(w.patchJson, at, w.threadId);
          return results ? (JSON.parse(w.patchJson) as JsonObject) : undefined;
        }
        const next = mergeStateObjects(JSON.parse(state) as JsonObject, w.patch);
        stmt.setState.run(JSON.stringify(next), at, w.threadId);
        return results ? (JSON.parse(JSON.stringify(next)) as JsonObject) : undefined;
      }
      case 'appendItems': {
        // A throw below rolls the reservation back with the rest of the transaction.
        const first = stmt.reserveSeq.get(w.items.length, at, w.threadId, w.items.length);
        if (first === undefined) throw new ThreadNotFoundError(w.threadId);
        seen.threads.add(w.threadId);
        requireRunOnThread(w.runId, w.threadId, seen);
        for (let index = 0; index < w.items.length; index++) stmt.insertItem.run(w.threadId, first + index, w.runId, at, w.items[index]);
        return first;
      }
      case 'appendAudit':
        requireThread(w.threadId, seen);
        if (w.runId) requireRunOnThread(w.runId, w.threadId, seen);
        stmt.insertAudit.run(w.id, w.threadId, w.runId, w.kind, at, w.data);
        return undefined;
      case 'updateRun': {
        const row = stmt.getRun.get(w.runId);
        if (!row) throw new RunNotFoundError(w.runId);
        seen.runs.set(w.runId, row.thread_id);
        const nextStatus = w.status ?? row.status;
        assertTransition(w.runId, row.status, nextStatus);
        const nextError = w.error === undefined ? row.error : w.error === null ? null : JSON.stringify(w.error);
        stmt.updateRun.run(nextStatus, nextError, at, w.runId);
        return results ? runFromRow({ ...row, status: nextStatus, error: nextError, updated_at: at }) : undefined;
      }
      case 'deleteSuspendedRun':
        stmt.deleteSuspended.run(w.runId, w.threadId);
        return undefined;
      default:
        throw new StoreError('STORE_FAILED', `SQLite store: unknown write ${JSON.stringify((w as { op?: unknown }).op)}`);
    }
  };
  // Made once: better-sqlite3 builds a wrapper per transaction() call.
  const newSeen = (): Seen => ({ threads: new Set(), runs: new Map() });
  const writeTx = db.transaction((writes: readonly PreparedWrite[], at: string, results: boolean) => {
    const seen = newSeen();
    return writes.map((w) => apply(w, at, results, seen));
  });
  // The call's last writes, the state it reports and the lock release: one commit, not two.
  const commitAndReleaseTx = db.transaction((writes: readonly PreparedWrite[], at: string, threadId: string, token: string) => {
    const seen = newSeen();
    for (const w of writes) apply(w, at, false, seen);
    const row = stmt.getThread.get(threadId);
    stmt.deleteLock.run(threadId, token);
    return row ? threadFromRow(row) : undefined;
  });
  const createThreadTx = db.transaction((thread: NewThread, lock: NewLock | undefined) => {
    if (stmt.threadExists.get(thread.id)) throw new StoreError('STORE_THREAD_EXISTS', `thread ${JSON.stringify(thread.id)} already exists`);
    stmt.insertThread.run(thread.id, thread.at, thread.at, thread.stateJson, thread.metadataJson, thread.tenant ?? null);
    if (lock) takeLock(lock);
  });
  const tryLockTx = db.transaction((lock: NewLock): LockAttempt => {
    requireThread(lock.threadId, newSeen());
    const current = stmt.getLock.get(lock.threadId);
    if (current && current.expires_at > nowMs() && !isCertainlyDead(parseProcessIdentity(current.holder)))
      return { acquired: false, holder: current.owner };
    takeLock(lock);
    return { acquired: true };
  });

  return {
    createThread: (thread, lock) => createThreadTx.immediate(thread, lock),
    getThread: (threadId) => {
      const row = stmt.getThread.get(threadId);
      return row ? threadFromRow(row) : undefined;
    },
    getRun: (runId) => {
      const row = stmt.getRun.get(runId);
      return row ? runFromRow(row) : undefined;
    },
    listRuns: (threadId) => stmt.listRuns.all(threadId).map(runFromRow),
    listItems: (threadId) =>
      stmt.listItems.all(threadId).map((row) => ({
        seq: row.seq,
        threadId: row.thread_id,
        runId: row.run_id,
        createdAt: row.created_at,
        item: JSON.parse(row.item) as JsonObject,
      })),
    listAudit: (threadId) =>
      stmt.listAudit.all(threadId).map((row) => ({
        id: row.id,
        threadId: row.thread_id,
        runId: row.run_id,
        kind: row.kind,
        createdAt: row.created_at,
        data: JSON.parse(row.data) as JsonObject,
      })),
    write: (writes, { at, results }) => writeTx.immediate(writes, at, results),
    commitAndRelease: (writes, { at, threadId, token }) => commitAndReleaseTx.immediate(writes, at, threadId, token),
    tryLock: (lock) => tryLockTx.immediate(lock),
    renewLock: (threadId, token, leaseMs) => {
      const at = nowMs();
      return stmt.renewLock.run(at + leaseMs, threadId, token, at).changes === 1;
    },
    releaseLock: (threadId, token) => void stmt.deleteLock.run(threadId, token),
    recoverAbandonedRuns: () => sqliteBackend.recover(db, clock),
    mapError: toStoreError,
    renewErrors: 'stop',
    close: () => void db.close(),
  };
}

/** Frees expired locks and locks of dead holders, then fails the runs nobody holds a lock for. */
sqliteBackend.recover = (db: Database.Database, clock: () => Date): number =>
  db
    .transaction(() => {
      const at = clock().getTime();
      db.prepare('DELETE FROM thread_locks WHERE expires_at <= ?').run(at);
      const live = db
        .prepare<[number], { thread_id: string; token: string; holder: string | null }>(
          'SELECT thread_id, token, holder FROM thread_locks WHERE expires_at > ?',
        )
        .all(at);
      for (const lock of live) {
        if (isCertainlyDead(parseProcessIdentity(lock.holder)))
          db.prepare('DELETE FROM thread_locks WHERE thread_id = ? AND token = ?').run(lock.thread_id, lock.token);
      }
      const error = JSON.stringify({ code: RUNNER_CRASHED, message: ABANDONED_RUN_MESSAGE });
      const unlocked = `status IN (${ACTIVE_RUN_STATUSES.map((s) => `'${s}'`).join(',')})
             AND NOT EXISTS (SELECT 1 FROM thread_locks l WHERE l.thread_id = runs.thread_id AND l.expires_at > ?)`;
      // Died while resuming after approvals (the record is kept until the run's final commit):
      // paused again, so the decisions can be submitted again.
      db.prepare(
        `UPDATE runs SET status = 'requires_action', error = NULL, updated_at = ?
         WHERE ${unlocked} AND EXISTS (SELECT 1 FROM suspended_runs s WHERE s.run_id = runs.id)`,
      ).run(clock().toISOString(), at);
      return db
        .prepare(`UPDATE runs SET status = 'failed', error = ?, updated_at = ? WHERE ${unlocked}`)
        .run(error, clock().toISOString(), at).changes;
    })
    .immediate();

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
