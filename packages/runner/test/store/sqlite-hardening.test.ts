// SQLite store hardening (issue 14): owner-only files, tenancy migration of older files, and a
// SIGKILLed lock holder on this machine detected without waiting out its lease. Children load
// the built store from dist/.
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ThreadBusyError, createSqliteThreadStore } from '../../src/store/index.js';
import { currentProcessIdentity } from '../../src/store/process-identity.js';
import { SQLITE_MIGRATIONS } from '../../src/store/sqlite-schema.js';

const storeUrl = pathToFileURL(resolve(dirname(fileURLToPath(import.meta.url)), '../../dist/store/index.js')).href;

/** Takes the lock with a ten-minute lease, says so, then lives until killed. */
const HOLDER = `
import { createSqliteThreadStore } from ${JSON.stringify(storeUrl)};
const [file, threadId] = process.argv.slice(2);
const store = createSqliteThreadStore({ file, busyTimeoutMs: 30000 });
const run = await store.createRun(threadId, { agentId: 'io.baton.victim', agentVersion: '1.0.0', status: 'in_progress' });
await store.acquireThreadLock(threadId, { owner: run.id, leaseMs: 600000 });
process.stdout.write(JSON.stringify({ runId: run.id }) + '\\n');
setInterval(() => undefined, 1000);
`;

const TEN_MINUTES = 600_000;

describe('SQLite store hardening', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-store-hard-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const mode = (path: string) => statSync(path).mode & 0o777;

  it('creates the database and its -wal and -shm files readable by the owner only', async () => {
    const file = join(dir, 'threads.db');
    const previous = process.umask(0o022);
    try {
      const store = createSqliteThreadStore({ file });
      const thread = await store.createThread({ state: { customer: 'data' } });
      await store.mergeState(thread.id, { more: 1 });
      expect(mode(file)).toBe(0o600);
      expect(mode(`${file}-wal`)).toBe(0o600);
      expect(mode(`${file}-shm`)).toBe(0o600);
      await store.close();
    } finally {
      process.umask(previous);
    }
  });

  it('upgrades a file written before tenancy: old threads have no tenant, new ones keep theirs', async () => {
    const file = join(dir, 'old.db');
    const old = new Database(file);
    old.pragma('journal_mode = WAL');
    old.exec(SQLITE_MIGRATIONS[0]!);
    old.exec(SQLITE_MIGRATIONS[1]!);
    old.pragma('user_version = 2');
    old
      .prepare('INSERT INTO threads (id, created_at, updated_at, state, metadata) VALUES (?, ?, ?, ?, ?)')
      .run('thread_old', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', '{"kept":true}', '{}');
    old.close();

    const store = createSqliteThreadStore({ file });
    const legacy = await store.getThread('thread_old');
    expect(legacy?.state).toEqual({ kept: true });
    expect(legacy?.tenant).toBeUndefined();
    await store.createThread({ id: 'thread_new', tenant: 'acme' });
    await store.close();
    const reopened = createSqliteThreadStore({ file });
    expect((await reopened.getThread('thread_new'))?.tenant).toBe('acme');
    await reopened.close();
    const raw = new Database(file, { readonly: true });
    expect(raw.pragma('user_version', { simple: true })).toBe(SQLITE_MIGRATIONS.length);
    raw.close();
  });

  it('takes over the lock of a SIGKILLed holder on this machine at once, not after its ten-minute lease', async () => {
    const file = join(dir, 'locks.db');
    const store = createSqliteThreadStore({ file });
    const thread = await store.createThread();
    await writeFile(join(dir, 'holder.mjs'), HOLDER);
    const child = spawn(process.execPath, [join(dir, 'holder.mjs'), file, thread.id], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<void>((r) => child.on('exit', () => r()));
    try {
      const line = await new Promise<string>((resolveLine, reject) => {
        let out = '';
        let err = '';
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString();
          if (out.includes('\n')) resolveLine(out.split('\n')[0]!);
        });
        child.stderr.on('data', (c: Buffer) => (err += c.toString()));
        child.on('exit', (code) => reject(new Error(`holder exited ${code}: ${err}`)));
      });
      const { runId } = JSON.parse(line) as { runId: string };

      // Alive: the lock is respected (a short wait gives up).
      await expect(store.acquireThreadLock(thread.id, { owner: 'me', waitMs: 300, leaseMs: 5_000 })).rejects.toBeInstanceOf(
        ThreadBusyError,
      );

      child.kill('SIGKILL');
      await exited;
      // Dead: acquired well inside the wait, which is itself far shorter than the holder's lease.
      const lock = await store.acquireThreadLock(thread.id, { owner: 'me', waitMs: TEN_MINUTES / 10, leaseMs: 5_000 });
      expect(lock.owner).toBe('me');
      await lock.release();
      // The dead holder's run is found abandoned at start-up.
      expect(await store.recoverAbandonedRuns?.()).toBe(1);
      expect((await store.getRun(runId))?.error?.code).toBe('RUNNER_CRASHED');
    } finally {
      child.kill('SIGKILL');
      await store.close();
    }
  }, 120_000);

  it('never takes over a lock whose holder it cannot judge (another host, another container, no identity)', async () => {
    const file = join(dir, 'foreign.db');
    const store = createSqliteThreadStore({ file });
    const me = currentProcessIdentity();
    // A pid that certainly does not exist here.
    const gone = 2 ** 22 + 12345;
    const holders = [
      JSON.stringify({ ...me, pid: gone, host: 'another-machine' }),
      JSON.stringify({ ...me, pid: gone, pidns: 'pid:[1]' }),
      JSON.stringify({ ...me, pid: gone, boot: 'another-boot' }),
      null,
      'not json',
    ];
    for (const [i, holder] of holders.entries()) {
      const thread = await store.createThread();
      const raw = new Database(file);
      raw
        .prepare('INSERT INTO thread_locks (thread_id, owner, token, acquired_at, expires_at, holder) VALUES (?, ?, ?, ?, ?, ?)')
        .run(thread.id, `other-${i}`, 'tok', new Date().toISOString(), Date.now() + TEN_MINUTES, holder);
      raw.close();
      await expect(store.acquireThreadLock(thread.id, { owner: 'me', waitMs: 100 }), String(holder)).rejects.toBeInstanceOf(
        ThreadBusyError,
      );
    }
    // The same row with this machine's identity and a pid that is gone is taken over.
    const thread = await store.createThread();
    const raw = new Database(file);
    raw
      .prepare('INSERT INTO thread_locks (thread_id, owner, token, acquired_at, expires_at, holder) VALUES (?, ?, ?, ?, ?, ?)')
      .run(thread.id, 'dead', 'tok', new Date().toISOString(), Date.now() + TEN_MINUTES, JSON.stringify({ ...me, pid: gone }));
    raw.close();
    const lock = await store.acquireThreadLock(thread.id, { owner: 'me', waitMs: 60_000 });
    await lock.release();
    await store.close();
  });
});
