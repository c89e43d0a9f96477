import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteThreadStore } from '../../src/store/index.js';
import { SQLITE_MIGRATIONS } from '../../src/store/sqlite-schema.js';
import { describeThreadStoreContract } from '../../src/testing/store-contract.js';

describeThreadStoreContract(
  'sqlite',
  async ({ clock }) => {
    const dir = await mkdtemp(join(tmpdir(), 'baton-store-'));
    return {
      store: createSqliteThreadStore({ file: join(dir, 'threads.db'), clock }),
      cleanup: () => rm(dir, { recursive: true, force: true }),
    };
  },
  { describe, it, expect, beforeEach, afterEach },
);

describe('SQLite thread store idempotency keys', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-store-keys-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('upgrades a database file written before idempotency keys, keeping its data', async () => {
    const file = join(dir, 'old.db');
    // A file as the first release wrote it: schema version 1, one thread with state.
    const old = new Database(file);
    old.pragma('journal_mode = WAL');
    old.exec(SQLITE_MIGRATIONS[0]!);
    old.pragma('user_version = 1');
    old
      .prepare('INSERT INTO threads (id, created_at, updated_at, state, metadata) VALUES (?, ?, ?, ?, ?)')
      .run('thread_old', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', '{"kept":true}', '{}');
    old.close();

    const store = createSqliteThreadStore({ file });
    expect((await store.getThread('thread_old'))?.state).toEqual({ kept: true });
    expect(await store.mergeState('thread_old', { a: 1 }, { idempotencyKey: 'k' })).toEqual({ kept: true, a: 1 });
    expect(await store.mergeState('thread_old', { a: 2 }, { idempotencyKey: 'k' })).toEqual({ kept: true, a: 1 });
    await store.close();

    const raw = new Database(file, { readonly: true });
    expect(raw.pragma('user_version', { simple: true })).toBe(SQLITE_MIGRATIONS.length);
    expect(raw.prepare('SELECT thread_id, key FROM applied_writes').all()).toEqual([{ thread_id: 'thread_old', key: 'k' }]);
    raw.close();
  });

  it('remembers applied keys across processes sharing the file and across reopen', async () => {
    const file = join(dir, 'shared.db');
    const a = createSqliteThreadStore({ file });
    const b = createSqliteThreadStore({ file });
    const thread = await a.createThread();
    expect(await a.mergeState(thread.id, { from: 'a' }, { idempotencyKey: 'once' })).toEqual({ from: 'a' });
    expect(await b.mergeState(thread.id, { from: 'b' }, { idempotencyKey: 'once' })).toEqual({ from: 'a' });
    await a.close();
    await b.close();
    const reopened = createSqliteThreadStore({ file });
    expect(await reopened.mergeState(thread.id, { from: 'later' }, { idempotencyKey: 'once' })).toEqual({ from: 'a' });
    await reopened.close();
  });
});
