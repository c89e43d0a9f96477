import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteThreadStore } from '../../src/store/index.js';
import { describeThreadStoreContract } from './contract.js';

describeThreadStoreContract('sqlite', async ({ clock }) => {
  const dir = await mkdtemp(join(tmpdir(), 'baton-store-'));
  return {
    store: createSqliteThreadStore({ file: join(dir, 'threads.db'), clock }),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});
