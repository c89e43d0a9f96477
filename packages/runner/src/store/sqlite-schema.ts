/**
 * Schema migrations for the SQLite thread store, applied in order; `PRAGMA user_version` holds
 * how many have run. Append new migrations, never edit a shipped one.
 */
export const SQLITE_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE threads (
    id          TEXT PRIMARY KEY,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL,
    state       TEXT NOT NULL CHECK (json_valid(state) AND json_type(state) = 'object'),
    metadata    TEXT NOT NULL CHECK (json_valid(metadata) AND json_type(metadata) = 'object'),
    next_seq    INTEGER NOT NULL DEFAULT 1
  );
  CREATE TABLE runs (
    id             TEXT PRIMARY KEY,
    thread_id      TEXT NOT NULL REFERENCES threads(id),
    agent_id       TEXT NOT NULL,
    agent_version  TEXT NOT NULL,
    status         TEXT NOT NULL CHECK (status IN ('queued','in_progress','requires_action','completed','cancelled','failed','expired')),
    parent_run_id  TEXT,
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL,
    error          TEXT CHECK (error IS NULL OR json_valid(error)),
    trace_id       TEXT
  );
  CREATE INDEX runs_by_thread ON runs(thread_id);
  CREATE INDEX runs_by_status ON runs(status);
  CREATE TABLE items (
    thread_id   TEXT NOT NULL REFERENCES threads(id),
    seq         INTEGER NOT NULL,
    run_id      TEXT NOT NULL REFERENCES runs(id),
    created_at  TEXT NOT NULL,
    item        TEXT NOT NULL CHECK (json_valid(item)),
    PRIMARY KEY (thread_id, seq)
  ) WITHOUT ROWID;
  CREATE TABLE audit (
    id          TEXT PRIMARY KEY,
    thread_id   TEXT NOT NULL REFERENCES threads(id),
    run_id      TEXT REFERENCES runs(id),
    kind        TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    data        TEXT NOT NULL CHECK (json_valid(data))
  );
  CREATE INDEX audit_by_thread ON audit(thread_id);
  CREATE TABLE thread_locks (
    thread_id    TEXT PRIMARY KEY REFERENCES threads(id),
    owner        TEXT NOT NULL,
    token        TEXT NOT NULL,
    acquired_at  TEXT NOT NULL,
    expires_at   INTEGER NOT NULL
  );
  `,
  // 2: idempotency keys of state writes (MergeStateOptions.idempotencyKey), one row per applied key.
  `
  CREATE TABLE applied_writes (
    thread_id   TEXT NOT NULL REFERENCES threads(id),
    key         TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    PRIMARY KEY (thread_id, key)
  ) WITHOUT ROWID;
  `,
  // 3: the tenant that created a thread (NULL for threads created before tenancy or without one),
  // and who holds a thread lock (pid, host, process start) so a dead holder on this machine is
  // detected without waiting out the lease.
  `
  ALTER TABLE threads ADD COLUMN tenant TEXT;
  ALTER TABLE thread_locks ADD COLUMN holder TEXT;
  `,
  // 4: runs paused for approval (resumable approvals): the SDK's serialised run state and the
  // tool calls waiting for a decision, one row per paused run.
  `
  CREATE TABLE suspended_runs (
    run_id      TEXT PRIMARY KEY REFERENCES runs(id),
    thread_id   TEXT NOT NULL REFERENCES threads(id),
    state       TEXT NOT NULL,
    approvals   TEXT NOT NULL CHECK (json_valid(approvals) AND json_type(approvals) = 'array'),
    created_at  TEXT NOT NULL,
    expires_at  TEXT NOT NULL
  );
  CREATE INDEX suspended_runs_by_thread ON suspended_runs(thread_id);
  `,
];
