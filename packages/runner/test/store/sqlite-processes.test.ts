// The SQLite store shared by several OS processes: no lost merges, and a SIGKILLed holder leaves
// the file consistent and the thread usable. The children load the built store from dist/.
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { describeThreadStoreProcessContract, runStoreChild } from '../../src/testing/store-process-contract.js';
import { StoreError, createSqliteThreadStore } from '../../src/store/index.js';
import { SQLITE_MIGRATIONS } from '../../src/store/sqlite-schema.js';

const distStore = resolve(dirname(fileURLToPath(import.meta.url)), '../../dist/store/index.js');
const storeUrl = pathToFileURL(distStore).href;

const HOLDER = `
import { createSqliteThreadStore } from ${JSON.stringify(storeUrl)};
const [file, threadId] = process.argv.slice(2);
const store = createSqliteThreadStore({ file, busyTimeoutMs: 30000 });
const run = await store.createRun(threadId, { agentId: 'io.baton.victim', agentVersion: '1.0.0', status: 'in_progress' });
await store.acquireThreadLock(threadId, { owner: run.id, leaseMs: 400 });
process.stdout.write(JSON.stringify({ runId: run.id }) + '\\n');
const filler = 'x'.repeat(4096);
for (let i = 0; ; i++) {
  await store.mergeState(threadId, { ['victim' + (i % 50)]: filler + i });
  await store.appendItems(threadId, run.id, [{ n: i, filler }]);
}
`;

// The shared multi-process contract (merges, lock serialisation, a holder killed mid-batch).
describeThreadStoreProcessContract(
  'sqlite',
  async () => {
    if (!existsSync(distStore)) throw new Error(`build @baton/runner first: ${distStore} is missing`);
    const dir = await mkdtemp(join(tmpdir(), 'baton-store-shared-'));
    const file = join(dir, 'threads.db');
    return {
      store: createSqliteThreadStore({ file, busyTimeoutMs: 30_000 }),
      child: { moduleUrl: storeUrl, exportName: 'createSqliteThreadStore', options: { file, busyTimeoutMs: 30_000 } },
      cleanup: () => rm(dir, { recursive: true, force: true }),
    };
  },
  { describe, it, expect, beforeEach, afterEach },
);

describe('SQLite thread store across processes', () => {
  let dir: string;
  let file: string;

  beforeAll(() => {
    if (!existsSync(distStore)) throw new Error(`build @baton/runner first: ${distStore} is missing`);
  });
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-store-proc-'));
    file = join(dir, 'threads.db');
    await writeFile(join(dir, 'holder.mjs'), HOLDER);
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a holder killed with SIGKILL mid-write leaves the file consistent and the thread usable', { timeout: 120_000 }, async () => {
    const setup = createSqliteThreadStore({ file });
    const thread = await setup.createThread();
    await setup.close();

    const holder = runStoreChild(dir, 'holder.mjs', [file, thread.id]);
    const { runId } = JSON.parse(await holder.firstLine) as { runId: string };
    // Let it write for a while so the kill lands in or between transactions.
    const watcher = new Database(file, { readonly: true });
    const itemCount = watcher.prepare('SELECT count(*) FROM items WHERE thread_id = ?').pluck();
    while ((itemCount.get(thread.id) as number) < 50) await new Promise((r) => setTimeout(r, 20));
    watcher.close();
    holder.child.kill('SIGKILL');
    await holder.exit;

    const raw = new Database(file);
    expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(raw.pragma('foreign_key_check')).toEqual([]);
    raw.close();

    const store = createSqliteThreadStore({ file });
    const after = await store.getThread(thread.id);
    expect(after).toBeDefined();
    const items = await store.listItems(thread.id);
    expect(items.length).toBeGreaterThanOrEqual(50);
    expect(items.map((i) => i.seq)).toEqual(items.map((_, index) => index + 1));

    // The dead holder's lease (400 ms) runs out and the lock becomes acquirable.
    const lock = await store.acquireThreadLock(thread.id, { owner: 'successor', waitMs: 60_000 });
    await store.mergeState(thread.id, { after_crash: true });
    await lock.release();

    expect(await store.recoverAbandonedRuns!()).toBe(1);
    expect(await store.getRun(runId)).toMatchObject({ status: 'failed', error: { code: 'RUNNER_CRASHED' } });
    expect((await store.getThread(thread.id))!.state.after_crash).toBe(true);
    await store.close();
  });
});

describe('SQLite thread store file handling', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-store-file-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('persists across reopen, uses WAL and records its schema version', async () => {
    const file = join(dir, 'a.db');
    const first = createSqliteThreadStore({ file });
    const thread = await first.createThread({ state: { x: 1 } });
    await first.close();
    const second = createSqliteThreadStore({ file });
    expect((await second.getThread(thread.id))?.state).toEqual({ x: 1 });
    await second.close();
    const raw = new Database(file, { readonly: true });
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(raw.pragma('user_version', { simple: true })).toBe(SQLITE_MIGRATIONS.length);
    raw.close();
  });

  it('refuses a schema newer than it knows, a non-database file and a missing directory', async () => {
    const newer = join(dir, 'newer.db');
    const raw = new Database(newer);
    raw.pragma('user_version = 99');
    raw.close();
    expect(() => createSqliteThreadStore({ file: newer })).toThrow(expect.objectContaining({ code: 'STORE_SCHEMA_TOO_NEW' }));

    const garbage = join(dir, 'garbage.db');
    await writeFile(garbage, 'this is not a database'.repeat(100));
    expect(() => createSqliteThreadStore({ file: garbage })).toThrow(StoreError);
    expect(() => createSqliteThreadStore({ file: garbage })).toThrow(/cannot open thread store/);

    expect(() => createSqliteThreadStore({ file: join(dir, 'missing', 'x.db') })).toThrow(
      expect.objectContaining({ code: 'STORE_OPEN_FAILED' }),
    );
    expect(() => createSqliteThreadStore({ file: '' })).toThrow(/options.file/);
  });

  it('recovers abandoned runs on open when asked', async () => {
    const file = join(dir, 'r.db');
    const first = createSqliteThreadStore({ file });
    const thread = await first.createThread();
    const run = await first.createRun(thread.id, { agentId: 'a', agentVersion: '1', status: 'in_progress' });
    await first.close();
    const second = createSqliteThreadStore({ file, recoverOnOpen: true });
    expect((await second.getRun(run.id))?.status).toBe('failed');
    await second.close();
  });
});
