// Redis thread store guarantees beyond the shared contract: concurrent writers on separate
// connections, all-or-nothing batches checked key by key, the key layout, script reloading.
import { InvalidStoreInputError, RunNotFoundError, type ThreadStore } from '@baton/runner';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedisThreadStore, REDIS_STORE_DEFAULTS } from '../../src/index.js';
import { deleteKeys, rawRedis, testRedisUrl, uniquePrefix } from '../helpers/redis.js';

const url = testRedisUrl();
let raw: Redis;
const stores: ThreadStore[] = [];
const prefixes: string[] = [];

function newStore(prefix: string): ThreadStore {
  const store = createRedisThreadStore({ connection: url, prefix });
  stores.push(store);
  return store;
}
function newPrefix(label: string): string {
  const prefix = uniquePrefix(label);
  prefixes.push(prefix);
  return prefix;
}

/** Every key under `prefix` with its type and full content, for before/after comparisons. */
async function snapshot(prefix: string): Promise<Record<string, unknown>> {
  const keys = (await raw.keys(`${prefix}:*`)).sort();
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const type = await raw.type(key);
    if (type === 'hash') out[key] = await raw.hgetall(key);
    else if (type === 'list') out[key] = await raw.lrange(key, 0, -1);
    else if (type === 'set') out[key] = (await raw.smembers(key)).sort();
    else out[key] = await raw.get(key);
  }
  return out;
}

beforeAll(() => {
  raw = rawRedis(url);
});
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const prefix of prefixes.splice(0)) await deleteKeys(url, prefix);
});
afterAll(() => raw.quit());

describe('Redis thread store', () => {
  it('two stores on two connections racing merges on one thread lose no key', async () => {
    const prefix = newPrefix('race');
    const a = newStore(prefix);
    const b = newStore(prefix);
    const thread = await a.createThread({ state: { seed: true } });
    await Promise.all([
      ...Array.from({ length: 300 }, (_, i) => a.mergeState(thread.id, { [`a${i}`]: i, shared: `a${i}` })),
      ...Array.from({ length: 300 }, (_, i) => b.mergeState(thread.id, { [`b${i}`]: [i], shared: `b${i}` })),
    ]);
    const state = (await b.getThread(thread.id))!.state;
    expect(Object.keys(state)).toHaveLength(1 + 300 + 300 + 1);
    for (let i = 0; i < 300; i++) {
      expect(state[`a${i}`]).toBe(i);
      expect(state[`b${i}`]).toEqual([i]);
    }
    expect(typeof state.shared).toBe('string');
  });

  it('two stores appending at once number items without gaps or duplicates', async () => {
    const prefix = newPrefix('seq');
    const a = newStore(prefix);
    const b = newStore(prefix);
    const thread = await a.createThread();
    const run = await a.createRun(thread.id, { agentId: 'a', agentVersion: '1' });
    const appended = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? a : b).appendItems(thread.id, run.id, [
          { i, part: 1 },
          { i, part: 2 },
        ]),
      ),
    );
    const listed = await a.listItems(thread.id);
    expect(listed.map((item) => item.seq)).toEqual(Array.from({ length: 80 }, (_, i) => i + 1));
    // Each call got two consecutive numbers, and the list holds them in that order.
    for (const pair of appended) {
      expect(pair[1]!.seq).toBe(pair[0]!.seq + 1);
      expect(listed[pair[0]!.seq - 1]!.item).toEqual(pair[0]!.item);
    }
  });

  it('a writeBatch with one bad write changes nothing, key by key', async () => {
    const prefix = newPrefix('batch');
    const store = newStore(prefix);
    const thread = await store.createThread({ state: { a: 1 } });
    const run = await store.createRun(thread.id, { agentId: 'a', agentVersion: '1', status: 'in_progress' });
    const done = await store.createRun(thread.id, { agentId: 'a', agentVersion: '1', status: 'completed' });
    await store.appendItems(thread.id, run.id, [{ n: 1 }]);
    const before = await snapshot(prefix);
    expect(Object.keys(before).length).toBeGreaterThan(5);

    const good = [
      { op: 'appendItems', threadId: thread.id, runId: run.id, items: [{ n: 2 }, { n: 3 }] },
      { op: 'appendAudit', record: { threadId: thread.id, runId: run.id, kind: 'k', data: {} } },
      { op: 'mergeState', threadId: thread.id, patch: { b: 2 }, idempotencyKey: 'batch-key' },
      { op: 'updateRun', runId: run.id, input: { status: 'completed' } },
    ] as const;
    const failures: Array<[unknown[], RegExp]> = [
      // Refused by validation in the client, before Redis is asked.
      [[...good, { op: 'appendItems', threadId: thread.id, runId: run.id, items: ['x'] }], /items\[0\] must be a plain JSON object/],
      [[...good, { op: 'mergeState', threadId: thread.id, patch: {}, idempotencyKey: '' }], /idempotency key/],
      // Refused inside the script, after the good writes were parsed but before any was applied.
      [[...good, { op: 'updateRun', runId: done.id, input: { status: 'in_progress' } }], /is already completed/],
      [[...good, { op: 'mergeState', threadId: 'thread_gone', patch: { c: 3 } }], /thread "thread_gone" does not exist/],
      [[...good, { op: 'appendItems', threadId: thread.id, runId: 'run_gone', items: [{}] }], /run "run_gone" does not exist/],
      [[...good, { op: 'updateRun', runId: 'run_gone', input: { status: 'failed' } }], /run "run_gone" does not exist/],
      [
        [
          ...good,
          { op: 'appendAudit', record: { id: 'dup', threadId: thread.id, runId: null, kind: 'k', data: {} } },
          { op: 'appendAudit', record: { id: 'dup', threadId: thread.id, runId: null, kind: 'k', data: {} } },
        ],
        /audit id "dup" already exists/,
      ],
      [
        [...good, { op: 'updateRun', runId: run.id, input: { status: 'in_progress' } }],
        /is already completed; it cannot become in_progress/,
      ],
    ];
    for (const [writes, message] of failures) {
      await expect(store.writeBatch!(writes as never)).rejects.toThrow(message);
      expect(await snapshot(prefix)).toEqual(before);
    }
    // The same good writes alone apply, all of them.
    await store.writeBatch!(good as never);
    expect((await store.listItems(thread.id)).map((i) => i.item)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect((await store.getRun(run.id))!.status).toBe('completed');
    expect((await store.getThread(thread.id))!.state).toEqual({ a: 1, b: 2 });
  });

  it('lays keys out under the prefix with one hash tag per thread, state as JSON text per key', async () => {
    const prefix = newPrefix('layout');
    const store = newStore(prefix);
    const thread = await store.createThread({ id: 'we:ird{id}', state: { list: [], text: 'x' } });
    const run = await store.createRun(thread.id, { agentId: 'a', agentVersion: '1', status: 'in_progress' });
    await store.appendItems(thread.id, run.id, [{ n: 1 }]);
    await store.appendAudit({ id: 'audit_1', threadId: thread.id, runId: run.id, kind: 'k', data: {} });
    await store.mergeState(thread.id, { n: 1 }, { idempotencyKey: 'k1' });
    const lock = await store.acquireThreadLock(thread.id, { owner: 'me' });

    const tag = '{we%3Aird%7Bid%7D}';
    const base = `${prefix}:thread:${tag}`;
    const runKey = `${base}:run:${run.id}`;
    expect((await raw.keys(`${prefix}:*`)).sort()).toEqual(
      [
        base,
        `${base}:state`,
        `${base}:applied`,
        `${base}:items`,
        `${base}:runs`,
        runKey,
        `${base}:audit`,
        `${base}:lock`,
        `${prefix}:run-threads`,
        `${prefix}:active-runs`,
        `${prefix}:audit-ids`,
      ].sort(),
    );
    // Every key of the thread hashes on the same tag, so they share a cluster slot.
    for (const key of await raw.keys(`${prefix}:thread:*`)) expect(key.slice(key.indexOf('{'), key.indexOf('}') + 1)).toBe(tag);
    expect(await raw.hgetall(`${base}:state`)).toEqual({ list: '[]', text: '"x"', n: '1' });
    expect(await raw.hget(`${prefix}:run-threads`, run.id)).toBe('we:ird{id}');
    expect(await raw.hget(`${prefix}:active-runs`, run.id)).toBe('we:ird{id}');
    expect(await raw.hexists(`${base}:applied`, 'k1')).toBe(1);
    expect(JSON.parse((await raw.get(`${base}:lock`))!)).toEqual([expect.stringMatching(/^lock_/), 'me']);
    const ttl = await raw.pttl(`${base}:lock`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(REDIS_STORE_DEFAULTS.lockLeaseMs);
    await lock.release();
    expect(await raw.exists(`${base}:lock`)).toBe(0);
    // A finished run leaves the active index, so recovery never scans it again.
    await store.updateRun(run.id, { status: 'completed' });
    expect(await raw.hexists(`${prefix}:active-runs`, run.id)).toBe(0);
  });

  it('handles writes larger than one Lua unpack: thousands of state keys and items', async () => {
    const prefix = newPrefix('large');
    const store = newStore(prefix);
    const state = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, { i }]));
    const thread = await store.createThread({ state });
    const run = await store.createRun(thread.id, { agentId: 'a', agentVersion: '1' });
    const items = Array.from({ length: 5000 }, (_, i) => ({ i }));
    const appended = await store.appendItems(thread.id, run.id, items);
    expect(appended.at(-1)!.seq).toBe(5000);
    await store.replaceState!(thread.id, { ...state, extra: true });
    const read = (await store.getThread(thread.id))!;
    expect(Object.keys(read.state)).toHaveLength(5001);
    expect(read.state.k4999).toEqual({ i: 4999 });
    expect((await store.listItems(thread.id)).map((i) => i.seq)).toEqual(Array.from({ length: 5000 }, (_, i) => i + 1));
  });

  it('drops stale entries from the active-run index during recovery', async () => {
    const prefix = newPrefix('stale');
    const store = newStore(prefix);
    await raw.hset(`${prefix}:active-runs`, 'run_ghost', 'thread_ghost');
    expect(await store.recoverAbandonedRuns!()).toBe(0);
    expect(await raw.hexists(`${prefix}:active-runs`, 'run_ghost')).toBe(0);
  });

  it('refuses bad options with InvalidStoreInputError', () => {
    expect(() => createRedisThreadStore({ connection: 'http://localhost:6379' })).toThrow(InvalidStoreInputError);
    expect(() => createRedisThreadStore({ connection: 'redis://u:secret@localhost', prefix: 'a{b}' })).toThrow(/prefix must be/);
    expect(() => createRedisThreadStore({ connection: 42 as never })).toThrow(/redis:\/\/ or rediss:\/\/ URL or an ioredis Redis instance/);
    expect(() => createRedisThreadStore({ connection: url, lockLeaseMs: 0 })).toThrow(/lockLeaseMs must be a positive number/);
    expect(() => createRedisThreadStore(undefined as never)).toThrow(/options must be an object/);
    try {
      createRedisThreadStore({ connection: 'http://u:secret@localhost' });
    } catch (error) {
      expect((error as Error).message).not.toContain('secret');
    }
  });

  it('applies the lock defaults it was given', async () => {
    const prefix = newPrefix('lockdefaults');
    const store = createRedisThreadStore({ connection: url, prefix, lockLeaseMs: 5_000, lockWaitMs: 50 });
    stores.push(store);
    const thread = await store.createThread();
    const lock = await store.acquireThreadLock(thread.id, { owner: 'a', autoRenew: false });
    const ttl = await raw.pttl(`${prefix}:thread:{${thread.id}}:lock`);
    // The 5 s lease, not the 30 s default (no lower bound: a loaded machine may read it late).
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5_000);
    // The 50 ms wait, not the 30 s default: waiting 30 s would outlast the 5 s lease and succeed.
    await expect(store.acquireThreadLock(thread.id, { owner: 'b' })).rejects.toMatchObject({ code: 'STORE_THREAD_BUSY' });
    await lock.release();
  });

  it('finds runs by id across threads and reports a run of another thread', async () => {
    const prefix = newPrefix('runs');
    const store = newStore(prefix);
    const a = await store.createThread();
    const b = await store.createThread();
    const runB = await store.createRun(b.id, { agentId: 'b', agentVersion: '1' });
    const error = await store.appendItems(a.id, runB.id, [{}]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunNotFoundError);
    expect((error as Error).message).toBe(`run ${JSON.stringify(runB.id)} does not exist on thread ${JSON.stringify(a.id)}`);
    expect((await store.getRun(runB.id))!.threadId).toBe(b.id);
  });
});
