// The runner commits a turn's writes through ThreadStore.writeBatch when the store has it (the
// SQLite store): the records must be exactly those written one by one, and committed before a
// tool runs or a model sees a request.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryThreadStore, createSqliteThreadStore, Runner, type ThreadStore } from '../../src/index.js';
import { lookupTool, manifest, registry } from '../helpers/agents.js';
import { scriptedGuardrail } from '@baton/manifest/testing';
import { createScriptedProvider } from '../../src/testing/index.js';

const TRIAGE = 'io.baton.test.triage';
const REFUNDS = 'io.baton.test.refunds';
const BATON_YML = `agents:
  ${TRIAGE}:
    handoffs: [${REFUNDS}]
`;

async function runScenario(store: ThreadStore, observe: (what: string) => Promise<void>) {
  const models = createScriptedProvider({
    scripts: {
      triage: [
        { toolCalls: [{ name: 'lookup_order', arguments: { order_id: '1234' } }] },
        {
          toolCalls: [
            { name: 'system__handoff', arguments: { target_agent_id: REFUNDS, input: 'Refund order 1234', state: { order_id: '1234' } } },
          ],
        },
      ],
      refunds: [{ message: 'Refunded.' }],
    },
  });
  const runner = new Runner({
    registry: registry([manifest(TRIAGE, { tools: [lookupTool()] }), manifest(REFUNDS)], BATON_YML),
    tools: {
      lookup_order: async () => {
        await observe('tool');
        return { found: true };
      },
    },
    guardrails: scriptedGuardrail().validator,
    store,
    modelProvider: models.provider,
    onModelRequest: () => observe('model'),
  });
  const result = await runner.run({ agentId: TRIAGE, input: 'refund please', threadId: 'thread-batched' });
  // Ids, timestamps and call ids differ between runs; everything else must match.
  const items = (await store.listItems(result.thread_id)).map((i) => ({ seq: i.seq, item: { ...i.item, call_id: undefined } }));
  const audit = (await store.listAudit(result.thread_id)).map((a) => ({
    kind: a.kind,
    data: { ...a.data, action_id: undefined, trace_id: undefined, span_id: undefined, call_id: undefined },
  }));
  const runs = (await store.listRuns(result.thread_id)).map((r) => ({ agentId: r.agentId, status: r.status, error: r.error }));
  return { result, items, audit, runs, state: (await store.getThread(result.thread_id))!.state };
}

describe('batched store writes', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-batched-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('records exactly what the one-by-one path records, and commits before tools and model calls', async () => {
    const file = join(dir, 'threads.db');
    const sqlite = createSqliteThreadStore({ file });
    expect(typeof sqlite.writeBatch).toBe('function');
    // What another connection sees when the tool runs / the model is called: all records so far.
    const seen: Array<{ what: string; items: number; audit: number }> = [];
    const reader = createSqliteThreadStore({ file });
    const observe = async (what: string) => {
      seen.push({
        what,
        items: (await reader.listItems('thread-batched')).length,
        audit: (await reader.listAudit('thread-batched')).length,
      });
    };
    const batched = await runScenario(sqlite, observe);
    await reader.close();
    await sqlite.close();

    // The one-by-one path: the memory store without its batch methods.
    const memory: ThreadStore = { ...createMemoryThreadStore() };
    delete memory.writeBatch;
    delete memory.createLockedThread;
    delete memory.commitAndRelease;
    const counts: Array<{ what: string; items: number; audit: number }> = [];
    const direct = await runScenario(memory, async (what) => {
      counts.push({
        what,
        items: (await memory.listItems('thread-batched')).length,
        audit: (await memory.listAudit('thread-batched')).length,
      });
    });

    expect(batched.result.status).toBe('completed');
    expect(batched.result.agent_id).toBe(REFUNDS);
    expect(batched.items).toEqual(direct.items);
    expect(batched.audit).toEqual(direct.audit);
    expect(batched.runs).toEqual(direct.runs);
    expect(batched.state).toEqual({ order_id: '1234' });
    expect(batched.state).toEqual(direct.state);
    // Before every model call and tool run, the other connection already saw every record.
    expect(seen).toEqual(counts);
    expect(seen.map((s) => s.what)).toEqual(['model', 'tool', 'model', 'model']);
    expect(seen.find((s) => s.what === 'tool')).toMatchObject({ items: 2 });
  });

  it('commits a run on a new thread in 6 atomic changes (thread and lock, one per boundary, the last with the release), runs included', async () => {
    const sqlite = createSqliteThreadStore({ file: join(dir, 'threads.db') });
    const commits: string[] = [];
    const reads: string[] = [];
    const writes = new Set([
      'createThread',
      'createLockedThread',
      'mergeState',
      'replaceState',
      'createRun',
      'updateRun',
      'appendItems',
      'appendAudit',
      'writeBatch',
      'commitAndRelease',
      'acquireThreadLock',
    ]);
    // Counts every call that changes the store, and each lock release.
    const counted = new Proxy(sqlite, {
      get(target, key: string) {
        const value = target[key as keyof ThreadStore];
        if (typeof value !== 'function') return value;
        if (!writes.has(key)) {
          return (...args: unknown[]) => {
            reads.push(key);
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        return async (...args: unknown[]) => {
          commits.push(key);
          const out = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          const lock =
            key === 'acquireThreadLock'
              ? (out as { release(): Promise<void> })
              : key === 'createLockedThread'
                ? (out as { lock: { release(): Promise<void> } }).lock
                : undefined;
          if (lock) {
            const release = lock.release.bind(lock);
            lock.release = async () => {
              commits.push('release');
              await release();
            };
          }
          return out;
        };
      },
    });
    const models = createScriptedProvider({
      scripts: {
        triage: [
          { toolCalls: [{ name: 'lookup_order', arguments: { order_id: '1234' } }] },
          {
            toolCalls: [
              { name: 'system__handoff', arguments: { target_agent_id: REFUNDS, input: 'Refund order 1234', state: { order_id: '1234' } } },
            ],
          },
        ],
        refunds: [{ message: 'Refunded.' }],
      },
    });
    const runner = new Runner({
      registry: registry([manifest(TRIAGE, { tools: [lookupTool()] }), manifest(REFUNDS)], BATON_YML),
      tools: { lookup_order: async () => ({ found: true }) },
      guardrails: scriptedGuardrail().validator,
      store: counted,
      modelProvider: models.provider,
    });
    const result = await runner.run({ agentId: TRIAGE, input: 'refund please' });
    expect(result.status).toBe('completed');
    // Before: createThread, acquireThreadLock, createRun ×2, six batches, release (11); then 7 with
    // the release a commit of its own. The last batch now also reads the state and frees the lock.
    expect(commits).toEqual(['createLockedThread', 'writeBatch', 'writeBatch', 'writeBatch', 'writeBatch', 'commitAndRelease']);
    // A thread the call created has no history to read, and the result's state came with the last
    // commit: the run reads nothing from the store.
    expect(reads).toEqual([]);
    expect(result.state).toEqual({ order_id: '1234' });
    const runs = await sqlite.listRuns(result.thread_id);
    expect(runs.map((r) => [r.agentId, r.status, r.parentRunId === runs[0]!.id])).toEqual([
      [TRIAGE, 'cancelled', false],
      [REFUNDS, 'completed', true],
    ]);
    // The lock is free again.
    await (await sqlite.acquireThreadLock(result.thread_id, { owner: 'after', waitMs: 0 })).release();
    await sqlite.close();
  });
});
