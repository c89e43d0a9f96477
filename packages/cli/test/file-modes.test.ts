// Files `baton run` writes (the SQLite store with its -wal/-shm, request captures) and the
// directories it creates for them are the owner's only, whatever the umask (issue 14).
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { EXAMPLES, offlineEnv, runCli } from './run-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'baton-cli-modes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const mode = (p: string) => statSync(p).mode & 0o777;

it('creates the store, its directory and every capture file owner-only', async () => {
  const store = join(dir, 'state', 'threads.db');
  const capture = join(dir, 'captures');
  const previous = process.umask(0o022);
  let result;
  try {
    result = await runCli(
      [
        'run',
        '--agents',
        join(EXAMPLES, 'agents'),
        '--agent',
        'io.baton.examples.triage',
        '--input',
        'Refund for case CASE-1001, please.',
        '--store',
        store,
        '--capture',
        capture,
        '--tenant',
        'acme-retail',
        '--subject',
        'agent-7',
        '--roles',
        'support_agent',
      ],
      { env: offlineEnv() },
    );
  } finally {
    process.umask(previous);
  }
  expect(result.code, result.stderr).toBe(0);
  expect(mode(store)).toBe(0o600);
  for (const suffix of ['-wal', '-shm']) {
    // Present while open in WAL mode; SQLite may remove them on a clean close.
    try {
      expect(mode(`${store}${suffix}`)).toBe(0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  expect(mode(join(dir, 'state'))).toBe(0o700);
  expect(mode(capture)).toBe(0o700);
  const files = readdirSync(capture);
  expect(files.length).toBeGreaterThan(0);
  for (const f of files) expect(mode(join(capture, f)), f).toBe(0o600);
}, 180_000);
