import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteThreadStore } from '../../src/store/index.js';
import { describeThreadStoreContract } from './contract.js';
import { describe, expect, it } from 'vitest';

describeThreadStoreContract('sqlite', async ({ clock }) => {
  const dir = await mkdtemp(join(tmpdir(), 'baton-store-'));
  return {
    store: createSqliteThreadStore({ file: join(dir, 'threads.db'), clock }),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});

describe('SQLite thread store writeBatch', () => {
  it('applies writes in order as one atomic change, all or none', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'baton-store-batch-'));
    const store = createSqliteThreadStore({ file: join(dir, 'threads.db') });
    try {
      const thread = await store.createThread({ state: { a: 1 } });
      const run = await store.createRun(thread.id, { agentId: 'io.baton.a', agentVersion: '1.0.0', status: 'in_progress' });
      await store.writeBatch!([
        { op: 'appendItems', threadId: thread.id, runId: run.id, items: [{ n: 1 }, { n: 2 }] },
        { op: 'appendAudit', record: { threadId: thread.id, runId: run.id, kind: 'k', data: { x: 1 } } },
        { op: 'mergeState', threadId: thread.id, patch: { b: 2 } },
        { op: 'appendItems', threadId: thread.id, runId: run.id, items: [{ n: 3 }] },
        { op: 'updateRun', runId: run.id, input: { status: 'completed' } },
      ]);
      expect((await store.listItems(thread.id)).map((i) => [i.seq, i.item['n']])).toEqual([[1, 1], [2, 2], [3, 3]]);
      expect((await store.listAudit(thread.id)).map((a) => [a.kind, a.data])).toEqual([['k', { x: 1 }]]);
      expect((await store.getThread(thread.id))!.state).toEqual({ a: 1, b: 2 });
      expect((await store.getRun(run.id))!.status).toBe('completed');

      // A failing write (an illegal status change) rolls back the writes before it.
      await expect(
        store.writeBatch!([
          { op: 'appendItems', threadId: thread.id, runId: run.id, items: [{ n: 4 }] },
          { op: 'mergeState', threadId: thread.id, patch: { c: 3 } },
          { op: 'updateRun', runId: run.id, input: { status: 'in_progress' } },
        ]),
      ).rejects.toThrow();
      // Invalid input is refused before anything is written.
      await expect(store.writeBatch!([{ op: 'appendItems', threadId: thread.id, runId: run.id, items: [{ n: 5 }] }, { op: 'appendAudit', record: { threadId: thread.id, runId: null, kind: '', data: {} } }])).rejects.toThrow(
        /audit kind/,
      );
      expect((await store.listItems(thread.id)).length).toBe(3);
      expect((await store.getThread(thread.id))!.state).toEqual({ a: 1, b: 2 });
      await store.writeBatch!([]);
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
