// The ThreadStore contract: every store implementation must pass this same suite. Published in
// @baton/runner/testing so authors of other stores run it too. It never imports a test framework:
// the caller injects `describe`, `it`, `expect`, `beforeEach` and `afterEach` (vitest's or Jest's).
import { setTimeout as sleep } from 'node:timers/promises';
import {
  InvalidStoreInputError,
  RunNotFoundError,
  StoreError,
  ThreadBusyError,
  ThreadNotFoundError,
  type StoreWrite,
  type ThreadStore,
} from '../store/index.js';

/** A controllable clock: starts at a fixed instant, moves only when told. */
export function manualClock(start = Date.parse('2026-03-01T00:00:00.000Z')): { now: () => Date; advance: (ms: number) => void } {
  let now = start;
  return { now: () => new Date(now), advance: (ms: number) => void (now += ms) };
}

/** What the suite passes to the factory for each test. */
export interface StoreFactoryOptions {
  /** Give this clock to the store for its timestamps (and, if it can, its lock leases). */
  clock?: () => Date;
}

/** A fresh store for one test, and how to clean up after it (the suite closes the store first). */
export interface StoreUnderTest {
  store: ThreadStore;
  cleanup(): Promise<void>;
  /**
   * True when lock leases run on real time (e.g. a Redis `PX` expiry kept by the server), not on
   * the injected clock: the suite then also waits out leases in real time. Default false.
   */
  realTimeLeases?: boolean;
}

export type StoreFactory = (options: StoreFactoryOptions) => Promise<StoreUnderTest>;

/** The matchers the suite uses; vitest's and Jest's `expect(value)` provide them. */
export interface ContractMatchers {
  toBe(expected: unknown): void;
  toEqual(expected: unknown): void;
  toMatch(expected: RegExp | string): void;
  toMatchObject(expected: object): void;
  toBeInstanceOf(expected: unknown): void;
  toBeUndefined(): void;
  toBeDefined(): void;
  toContain(expected: unknown): void;
  toHaveLength(expected: number): void;
  toBeGreaterThanOrEqual(expected: number): void;
  toBeLessThan(expected: number): void;
  toThrow(expected?: RegExp | string): void;
}

/** The same matchers on a promise (`expect(promise).rejects`). */
export interface ContractAsyncMatchers {
  toBe(expected: unknown): Promise<void>;
  toEqual(expected: unknown): Promise<void>;
  toMatchObject(expected: object): Promise<void>;
  toBeInstanceOf(expected: unknown): Promise<void>;
  toThrow(expected?: RegExp | string): Promise<void>;
}

/** The test-framework functions the suite needs, injected by the caller. */
export interface ContractTestApi {
  describe(name: string, fn: () => void): void;
  it(name: string, fn: () => Promise<void>, timeout?: number): void;
  expect(actual: unknown): ContractMatchers & { not: ContractMatchers; rejects: ContractAsyncMatchers };
  beforeEach(fn: () => Promise<void>): void;
  afterEach(fn: () => Promise<void>): void;
}

/** Lease used by the lock-expiry cases: short, so stores with real-time leases stay quick. */
const LEASE_MS = 600;

/**
 * Registers the ThreadStore contract for one store implementation:
 *
 * ```ts
 * import { describe, it, expect, beforeEach, afterEach } from 'vitest';
 * import { describeThreadStoreContract } from '@baton/runner/testing';
 * describeThreadStoreContract('my store', async ({ clock }) => ({ store: createMyStore({ clock }), cleanup: async () => {} }),
 *   { describe, it, expect, beforeEach, afterEach });
 * ```
 *
 * Optional methods (`replaceState`, `writeBatch`, `recoverAbandonedRuns`, `ThreadLock.renew`)
 * are tested when the store has them. Each test gets a new store from `factory`.
 */
export function describeThreadStoreContract(name: string, factory: StoreFactory, api: ContractTestApi): void {
  const { describe, it, expect, beforeEach, afterEach } = api;

  describe(`ThreadStore contract: ${name}`, () => {
    let store: ThreadStore;
    let cleanup: () => Promise<void>;
    let realTimeLeases = false;
    const clock = manualClock();

    /** Lets a lease taken at real time `since` run out: on the injected clock and, if needed, in real time. */
    const outliveLease = async (since: number, leaseMs: number, alreadyAdvanced = 0) => {
      clock.advance(leaseMs + 1 - alreadyAdvanced);
      if (realTimeLeases) await sleep(Math.max(0, since + leaseMs + 30 - Date.now()));
    };

    beforeEach(async () => {
      const made = await factory({ clock: clock.now });
      store = made.store;
      cleanup = () => made.cleanup();
      realTimeLeases = made.realTimeLeases === true;
    });
    afterEach(async () => {
      await store.close();
      await cleanup();
    });

    describe('threads and state', () => {
      it('creates, reads and refuses duplicate threads', async () => {
        const created = await store.createThread({ metadata: { tenant: 't1' }, state: { a: 1 } });
        expect(created.id).toMatch(/^thread_[0-9a-f]{32}$/);
        expect(await store.getThread(created.id)).toEqual(created);
        const named = await store.createThread({ id: 'thread_custom' });
        expect(named).toMatchObject({ id: 'thread_custom', state: {}, metadata: {} });
        await expect(store.createThread({ id: 'thread_custom' })).rejects.toMatchObject({ code: 'STORE_THREAD_EXISTS' });
        expect(await store.getThread('thread_missing')).toBeUndefined();
      });

      it('records the tenant that created a thread, and none when not given', async () => {
        const owned = await store.createThread({ tenant: 'tenant-a', state: { x: 1 } });
        expect(owned.tenant).toBe('tenant-a');
        expect((await store.getThread(owned.id))?.tenant).toBe('tenant-a');
        // The tenant stays through every later write.
        await store.mergeState(owned.id, { y: 2 });
        await store.replaceState?.(owned.id, { z: 3 });
        const run = await store.createRun(owned.id, { agentId: 'a.b', agentVersion: '1.0.0' });
        await store.appendItems(owned.id, run.id, [{ type: 'message' }]);
        expect((await store.getThread(owned.id))?.tenant).toBe('tenant-a');
        const named = await store.createThread({ id: 'thread_named_owned', tenant: 'tenant-b' });
        expect((await store.getThread(named.id))?.tenant).toBe('tenant-b');
        const unowned = await store.createThread({});
        expect(unowned.tenant).toBeUndefined();
        expect((await store.getThread(unowned.id))?.tenant).toBeUndefined();
        await expect(store.createThread({ tenant: '' })).rejects.toBeInstanceOf(InvalidStoreInputError);
        await expect(store.createThread({ tenant: 'x'.repeat(201) })).rejects.toBeInstanceOf(InvalidStoreInputError);
        await expect(store.createThread({ tenant: 7 as never })).rejects.toBeInstanceOf(InvalidStoreInputError);
        // A refused duplicate never changes the owner.
        await expect(store.createThread({ id: 'thread_named_owned', tenant: 'tenant-c' })).rejects.toMatchObject({
          code: 'STORE_THREAD_EXISTS',
        });
        expect((await store.getThread('thread_named_owned'))?.tenant).toBe('tenant-b');
      });

      it('merges state shallowly: keys replace, null is kept, other keys stay', async () => {
        const thread = await store.createThread({ state: { keep: 1, nested: { a: 1, b: 2 }, gone: 'x' } });
        const merged = await store.mergeState(thread.id, { nested: { c: 3 }, gone: null, added: [1, 2] });
        expect(merged).toEqual({ keep: 1, nested: { c: 3 }, gone: null, added: [1, 2] });
        expect((await store.getThread(thread.id))?.state).toEqual(merged);
      });

      it('keeps every JSON value as it was: empty arrays and objects, unicode, numbers, odd keys', async () => {
        const value = {
          emptyList: [],
          emptyObject: {},
          nestedEmpty: { list: [], obj: {} },
          text: 'héllo ✓ 𝄞 "quoted" \\ back\nslash',
          numbers: [0, -1.5, 1e21, 2 ** 53 - 1],
          flags: [true, false, null],
          '': 'empty key',
          'a.b:c{d}': 'punctuated key',
        };
        const thread = await store.createThread({ state: { initial: [] } });
        expect(await store.mergeState(thread.id, value)).toEqual({ initial: [], ...value });
        expect((await store.getThread(thread.id))?.state).toEqual({ initial: [], ...value });
      });

      it('never shares objects with the caller', async () => {
        const patch = { list: [1] };
        const thread = await store.createThread();
        const merged = await store.mergeState(thread.id, patch);
        patch.list.push(2);
        (merged.list as number[]).push(3);
        expect((await store.getThread(thread.id))?.state).toEqual({ list: [1] });
      });

      it('replaces the whole state when asked', async () => {
        if (!store.replaceState) return;
        const thread = await store.createThread({ state: { a: 1 } });
        expect(await store.replaceState(thread.id, { b: 2 })).toEqual({ b: 2 });
        expect((await store.getThread(thread.id))?.state).toEqual({ b: 2 });
        expect(await store.replaceState(thread.id, {})).toEqual({});
        expect((await store.getThread(thread.id))?.state).toEqual({});
      });

      it('rejects bad input with typed errors', async () => {
        const thread = await store.createThread();
        await expect(store.mergeState('thread_missing', {})).rejects.toBeInstanceOf(ThreadNotFoundError);
        await expect(store.mergeState(thread.id, [] as never)).rejects.toBeInstanceOf(InvalidStoreInputError);
        await expect(store.mergeState(thread.id, 'x' as never)).rejects.toThrow(/state patch must be a plain JSON object/);
        const circular: Record<string, unknown> = {};
        circular.self = circular;
        await expect(store.mergeState(thread.id, circular)).rejects.toThrow(/not JSON-serializable/);
        await expect(store.createThread({ id: '' })).rejects.toBeInstanceOf(InvalidStoreInputError);
        await expect(store.getThread(42 as never)).rejects.toMatchObject({ code: 'STORE_INVALID_INPUT' });
      });

      it('never loses a merge when many run at once', async () => {
        const thread = await store.createThread();
        await Promise.all(Array.from({ length: 100 }, (_, i) => store.mergeState(thread.id, { [`k${i}`]: i })));
        const state = (await store.getThread(thread.id))!.state;
        expect(Object.keys(state)).toHaveLength(100);
        expect(state.k57).toBe(57);
      });
    });

    describe('idempotency keys', () => {
      it('applies a keyed merge once: a repeat changes nothing, not even updatedAt, and returns the current state', async () => {
        const thread = await store.createThread({ state: { a: 0 } });
        clock.advance(1000);
        expect(await store.mergeState(thread.id, { a: 1 }, { idempotencyKey: 'step-1' })).toEqual({ a: 1 });
        const after = (await store.getThread(thread.id))!;
        expect(after.updatedAt > thread.updatedAt).toBe(true);
        clock.advance(1000);
        expect(await store.mergeState(thread.id, { a: 2, b: 2 }, { idempotencyKey: 'step-1' })).toEqual({ a: 1 });
        expect(await store.getThread(thread.id)).toEqual(after);
        expect(await store.mergeState(thread.id, { b: 3 }, { idempotencyKey: 'step-2' })).toEqual({ a: 1, b: 3 });
        expect(await store.mergeState(thread.id, { c: 4 })).toEqual({ a: 1, b: 3, c: 4 });
        expect(await store.mergeState(thread.id, { c: 5 }, {})).toEqual({ a: 1, b: 3, c: 5 });
      });

      it('a repeated key after other merges does not revert them', async () => {
        const thread = await store.createThread();
        await store.mergeState(thread.id, { status: 'started', n: 1 }, { idempotencyKey: 'run_1:start' });
        await store.mergeState(thread.id, { status: 'done', n: 2 });
        expect(await store.mergeState(thread.id, { status: 'started', n: 1, extra: true }, { idempotencyKey: 'run_1:start' })).toEqual({
          status: 'done',
          n: 2,
        });
        expect((await store.getThread(thread.id))!.state).toEqual({ status: 'done', n: 2 });
      });

      it('keeps a separate key space per thread', async () => {
        const a = await store.createThread();
        const b = await store.createThread();
        expect(await store.mergeState(a.id, { x: 'a' }, { idempotencyKey: 'same' })).toEqual({ x: 'a' });
        expect(await store.mergeState(b.id, { x: 'b' }, { idempotencyKey: 'same' })).toEqual({ x: 'b' });
        expect(await store.mergeState(a.id, { x: 'again' }, { idempotencyKey: 'same' })).toEqual({ x: 'a' });
      });

      it('applies a keyed merge exactly once when many race with the same key', async () => {
        const thread = await store.createThread({ state: { hits: [] } });
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => store.mergeState(thread.id, { winner: i }, { idempotencyKey: 'race' })),
        );
        const winner = (await store.getThread(thread.id))!.state.winner as number;
        expect(typeof winner).toBe('number');
        // Every caller saw the same winner: the first applied it, the others got the current state.
        for (const result of results) expect(result).toEqual({ hits: [], winner });
      });

      it('shares keys between replaceState and mergeState', async () => {
        if (!store.replaceState) return;
        const thread = await store.createThread({ state: { old: true } });
        expect(await store.replaceState(thread.id, { fresh: 1 }, { idempotencyKey: 'replace-1' })).toEqual({ fresh: 1 });
        await store.mergeState(thread.id, { more: 2 });
        expect(await store.replaceState(thread.id, { fresh: 'again' }, { idempotencyKey: 'replace-1' })).toEqual({ fresh: 1, more: 2 });
        expect(await store.mergeState(thread.id, { other: 3 }, { idempotencyKey: 'replace-1' })).toEqual({ fresh: 1, more: 2 });
        expect((await store.getThread(thread.id))!.state).toEqual({ fresh: 1, more: 2 });
      });

      it('validates keys and records none when the merge fails', async () => {
        const thread = await store.createThread();
        await expect(store.mergeState(thread.id, { a: 1 }, { idempotencyKey: '' })).rejects.toBeInstanceOf(InvalidStoreInputError);
        await expect(store.mergeState(thread.id, { a: 1 }, { idempotencyKey: 'k'.repeat(201) })).rejects.toThrow(
          /idempotency key must be a non-empty string of at most 200 characters/,
        );
        await expect(store.mergeState(thread.id, { a: 1 }, { idempotencyKey: 7 as never })).rejects.toMatchObject({
          code: 'STORE_INVALID_INPUT',
        });
        await expect(store.mergeState(thread.id, { a: 1 }, 'key' as never)).rejects.toThrow(/mergeState options must be an object/);
        // A failed merge records no key: the same key applies later.
        await expect(store.mergeState(thread.id, 'bad' as never, { idempotencyKey: 'k1' })).rejects.toBeInstanceOf(InvalidStoreInputError);
        await expect(store.mergeState('thread_later', { a: 1 }, { idempotencyKey: 'k1' })).rejects.toBeInstanceOf(ThreadNotFoundError);
        const later = await store.createThread({ id: 'thread_later' });
        expect(await store.mergeState(later.id, { a: 1 }, { idempotencyKey: 'k1' })).toEqual({ a: 1 });
        expect(await store.mergeState(thread.id, { a: 1 }, { idempotencyKey: 'k'.repeat(200) })).toEqual({ a: 1 });
        expect((await store.getThread(thread.id))!.state).toEqual({ a: 1 });
      });

      it('skips a repeated key inside writeBatch, and records none when the batch fails', async () => {
        if (!store.writeBatch) return;
        const thread = await store.createThread();
        const run = await store.createRun(thread.id, { agentId: 'a', agentVersion: '1', status: 'in_progress' });
        await store.writeBatch([
          { op: 'mergeState', threadId: thread.id, patch: { step: 1 }, idempotencyKey: 'b1' },
          { op: 'mergeState', threadId: thread.id, patch: { step: 2 }, idempotencyKey: 'b1' },
          { op: 'appendItems', threadId: thread.id, runId: run.id, items: [{ n: 1 }] },
        ]);
        expect((await store.getThread(thread.id))!.state).toEqual({ step: 1 });
        const before = (await store.getThread(thread.id))!;
        clock.advance(1000);
        // Redelivered batch: the keyed merge is skipped, the rest of the batch still applies.
        await store.writeBatch([
          { op: 'mergeState', threadId: thread.id, patch: { step: 3 }, idempotencyKey: 'b1' },
          { op: 'appendItems', threadId: thread.id, runId: run.id, items: [{ n: 2 }] },
        ]);
        expect((await store.getThread(thread.id))!.state).toEqual({ step: 1 });
        expect((await store.listItems(thread.id)).map((i) => i.item)).toEqual([{ n: 1 }, { n: 2 }]);
        expect(await store.mergeState(thread.id, { step: 4 }, { idempotencyKey: 'b1' })).toEqual(before.state);

        await store.updateRun(run.id, { status: 'completed' });
        await expect(
          store.writeBatch([
            { op: 'mergeState', threadId: thread.id, patch: { step: 5 }, idempotencyKey: 'b2' },
            { op: 'updateRun', runId: run.id, input: { status: 'in_progress' } },
          ]),
        ).rejects.toMatchObject({ code: 'STORE_RUN_FINISHED' });
        await expect(store.writeBatch([{ op: 'mergeState', threadId: thread.id, patch: { step: 5 }, idempotencyKey: '' }])).rejects.toThrow(
          /idempotency key/,
        );
        expect((await store.getThread(thread.id))!.state).toEqual({ step: 1 });
        await store.writeBatch([{ op: 'mergeState', threadId: thread.id, patch: { step: 5 }, idempotencyKey: 'b2' }]);
        expect((await store.getThread(thread.id))!.state).toEqual({ step: 5 });
      });
    });

    describe('writeBatch', () => {
      it('applies writes in order as one atomic change, all or none', async () => {
        if (!store.writeBatch) return;
        const thread = await store.createThread({ state: { a: 1 } });
        const run = await store.createRun(thread.id, { agentId: 'io.baton.a', agentVersion: '1.0.0', status: 'in_progress' });
        await store.writeBatch([
          { op: 'appendItems', threadId: thread.id, runId: run.id, items: [{ n: 1 }, { n: 2 }] },
          { op: 'appendAudit', record: { threadId: thread.id, runId: run.id, kind: 'k', data: { x: 1 } } },
          { op: 'mergeState', threadId: thread.id, patch: { b: 2 } },
          { op: 'appendItems', threadId: thread.id, runId: run.id, items: [{ n: 3 }] },
          { op: 'updateRun', runId: run.id, input: { status: 'completed' } },
        ]);
        expect((await store.listItems(thread.id)).map((i) => [i.seq, i.item['n']])).toEqual([
          [1, 1],
          [2, 2],
          [3, 3],
        ]);
        expect((await store.listAudit(thread.id)).map((a) => [a.kind, a.data])).toEqual([['k', { x: 1 }]]);
        expect((await store.getThread(thread.id))!.state).toEqual({ a: 1, b: 2 });
        expect((await store.getRun(run.id))!.status).toBe('completed');

        // A failing write (an illegal status change) rolls back the writes before it.
        await expect(
          store.writeBatch([
            { op: 'appendItems', threadId: thread.id, runId: run.id, items: [{ n: 4 }] },
            { op: 'mergeState', threadId: thread.id, patch: { c: 3 } },
            { op: 'appendAudit', record: { threadId: thread.id, runId: null, kind: 'k2', data: {} } },
            { op: 'updateRun', runId: run.id, input: { status: 'in_progress' } },
          ]),
        ).rejects.toMatchObject({ code: 'STORE_RUN_FINISHED' });
        // So does a write to a thread or run that does not exist.
        await expect(
          store.writeBatch([
            { op: 'appendItems', threadId: thread.id, runId: run.id, items: [{ n: 4 }] },
            { op: 'mergeState', threadId: 'thread_missing', patch: { c: 3 } },
          ]),
        ).rejects.toBeInstanceOf(ThreadNotFoundError);
        await expect(
          store.writeBatch([
            { op: 'mergeState', threadId: thread.id, patch: { c: 3 } },
            { op: 'updateRun', runId: 'run_missing', input: { status: 'failed' } },
          ]),
        ).rejects.toBeInstanceOf(RunNotFoundError);
        // Invalid input is refused before anything is written.
        await expect(
          store.writeBatch([
            { op: 'appendItems', threadId: thread.id, runId: run.id, items: [{ n: 5 }] },
            { op: 'appendAudit', record: { threadId: thread.id, runId: null, kind: '', data: {} } },
          ]),
        ).rejects.toThrow(/audit kind/);
        await expect(store.writeBatch([{ op: 'dropTable' } as never])).rejects.toThrow(/unknown write/);
        expect((await store.listItems(thread.id)).length).toBe(3);
        expect((await store.listAudit(thread.id)).length).toBe(1);
        expect((await store.getThread(thread.id))!.state).toEqual({ a: 1, b: 2 });
        await store.writeBatch([]);
        // The sequence numbers the failed batches took are given back with them: no gap.
        await store.writeBatch([{ op: 'appendItems', threadId: thread.id, runId: run.id, items: [{ n: 4 }] }]);
        expect((await store.listItems(thread.id)).map((i) => i.seq)).toEqual([1, 2, 3, 4]);
      });

      it('sees the effect of earlier writes of the same batch', async () => {
        if (!store.writeBatch) return;
        const thread = await store.createThread();
        const run = await store.createRun(thread.id, { agentId: 'a', agentVersion: '1' });
        // queued -> in_progress -> completed in one batch is legal; a duplicate audit id in one batch is not.
        await store.writeBatch([
          { op: 'updateRun', runId: run.id, input: { status: 'in_progress' } },
          { op: 'mergeState', threadId: thread.id, patch: { a: 1 } },
          { op: 'mergeState', threadId: thread.id, patch: { b: 2 } },
          { op: 'updateRun', runId: run.id, input: { status: 'completed', error: null } },
        ]);
        expect((await store.getRun(run.id))!.status).toBe('completed');
        expect((await store.getThread(thread.id))!.state).toEqual({ a: 1, b: 2 });
        await expect(
          store.writeBatch([
            { op: 'appendAudit', record: { id: 'audit_twice', threadId: thread.id, runId: null, kind: 'k', data: {} } },
            { op: 'appendAudit', record: { id: 'audit_twice', threadId: thread.id, runId: null, kind: 'k', data: {} } },
          ]),
        ).rejects.toBeInstanceOf(StoreError);
        expect(await store.listAudit(thread.id)).toEqual([]);
      });
    });

    describe('run creation in a batch, and a thread created locked', () => {
      it('creates a run under a caller id in writeBatch, visible to the writes after it; all or none', async () => {
        if (!store.writeBatch) return;
        const thread = await store.createThread();
        await store.writeBatch([
          {
            op: 'createRun',
            threadId: thread.id,
            input: { id: 'run_first', agentId: 'io.baton.a', agentVersion: '1.0.0', status: 'in_progress', traceId: 'b'.repeat(32) },
          },
          { op: 'appendItems', threadId: thread.id, runId: 'run_first', items: [{ n: 1 }] },
          { op: 'appendAudit', record: { threadId: thread.id, runId: 'run_first', kind: 'k', data: {} } },
          { op: 'updateRun', runId: 'run_first', input: { status: 'cancelled', error: { code: 'HANDED_OFF', message: 'm' } } },
          {
            op: 'createRun',
            threadId: thread.id,
            input: { id: 'run_second', agentId: 'io.baton.b', agentVersion: '1.0.0', parentRunId: 'run_first', status: 'in_progress' },
          },
          { op: 'updateRun', runId: 'run_second', input: { status: 'completed' } },
        ]);
        expect((await store.listRuns(thread.id)).map((r) => [r.id, r.status, r.parentRunId, r.traceId])).toEqual([
          ['run_first', 'cancelled', null, 'b'.repeat(32)],
          ['run_second', 'completed', 'run_first', null],
        ]);
        expect((await store.listItems(thread.id)).map((i) => i.runId)).toEqual(['run_first']);
        // A taken run id, a parent on another thread, a later failing write: nothing is written.
        const other = await store.createThread();
        const before = await store.listRuns(thread.id);
        await expect(
          store.writeBatch([{ op: 'createRun', threadId: thread.id, input: { id: 'run_first', agentId: 'a', agentVersion: '1' } }]),
        ).rejects.toThrow(/run id "run_first" already exists/);
        await expect(
          store.writeBatch([
            { op: 'createRun', threadId: other.id, input: { id: 'run_x', agentId: 'a', agentVersion: '1' } },
            { op: 'createRun', threadId: other.id, input: { id: 'run_x', agentId: 'a', agentVersion: '1' } },
          ]),
        ).rejects.toThrow(/already exists/);
        await expect(
          store.writeBatch([
            { op: 'createRun', threadId: other.id, input: { id: 'run_y', agentId: 'a', agentVersion: '1', parentRunId: 'run_first' } },
          ]),
        ).rejects.toBeInstanceOf(RunNotFoundError);
        await expect(
          store.writeBatch([
            { op: 'createRun', threadId: other.id, input: { id: 'run_z', agentId: 'a', agentVersion: '1' } },
            { op: 'appendItems', threadId: thread.id, runId: 'run_z', items: [{ n: 2 }] },
          ]),
        ).rejects.toBeInstanceOf(RunNotFoundError);
        await expect(
          store.writeBatch([{ op: 'createRun', threadId: other.id, input: { agentId: 'a', agentVersion: '1' } as never }]),
        ).rejects.toThrow(/run id must be a non-empty string/);
        expect(await store.listRuns(other.id)).toEqual([]);
        expect(await store.getRun('run_z')).toBeUndefined();
        expect(await store.listRuns(thread.id)).toEqual(before);
      });

      it('validates parentRunId, traceId and a given run id the same way everywhere', async () => {
        const thread = await store.createThread();
        const named = await store.createRun(thread.id, { id: 'run_named', agentId: 'a', agentVersion: '1' });
        expect(named.id).toBe('run_named');
        await expect(store.createRun(thread.id, { id: 'run_named', agentId: 'a', agentVersion: '1' })).rejects.toBeInstanceOf(
          InvalidStoreInputError,
        );
        for (const bad of [
          { parentRunId: 42 },
          { parentRunId: 'x'.repeat(201) },
          { traceId: 42 },
          { traceId: '' },
          { traceId: {} },
          { id: '' },
        ]) {
          await expect(store.createRun(thread.id, { agentId: 'a', agentVersion: '1', ...(bad as object) })).rejects.toBeInstanceOf(
            InvalidStoreInputError,
          );
        }
        expect((await store.listRuns(thread.id)).map((r) => r.id)).toEqual(['run_named']);
      });

      it('creates a thread and takes its lock in one step', async () => {
        if (!store.createLockedThread) return;
        const { thread, lock } = await store.createLockedThread(
          { id: 'thread_locked', state: { a: 1 }, tenant: 't1' },
          { owner: 'first', leaseMs: 60_000 },
        );
        expect(thread).toMatchObject({ id: 'thread_locked', state: { a: 1 }, tenant: 't1' });
        expect(await store.getThread('thread_locked')).toEqual(thread);
        await expect(store.acquireThreadLock('thread_locked', { owner: 'second', waitMs: 0 })).rejects.toBeInstanceOf(ThreadBusyError);
        await lock.release();
        const second = await store.acquireThreadLock('thread_locked', { owner: 'second', waitMs: 0 });
        await second.release();
        // An existing id creates nothing and takes no lock; bad lock options create no thread.
        await expect(store.createLockedThread({ id: 'thread_locked' }, { owner: 'third' })).rejects.toMatchObject({
          code: 'STORE_THREAD_EXISTS',
        });
        await (await store.acquireThreadLock('thread_locked', { owner: 'fourth', waitMs: 0 })).release();
        await expect(store.createLockedThread({ id: 'thread_nolock' }, { owner: '' })).rejects.toBeInstanceOf(InvalidStoreInputError);
        expect(await store.getThread('thread_nolock')).toBeUndefined();
      });

      it('commits the last writes, reads the thread and releases its lock in one call (commitAndRelease)', async () => {
        if (!store.commitAndRelease) return;
        const thread = await store.createThread({ state: { a: 1 } });
        const lock = await store.acquireThreadLock(thread.id, { owner: 'first', leaseMs: 60_000 });
        await store.writeBatch!([
          { op: 'createRun', threadId: thread.id, input: { id: 'run_car', agentId: 'a', agentVersion: '1', status: 'in_progress' } },
        ]);
        const after = await store.commitAndRelease({
          lock,
          writes: [
            { op: 'appendItems', threadId: thread.id, runId: 'run_car', items: [{ n: 1 }] },
            { op: 'mergeState', threadId: thread.id, patch: { b: 2 } },
            { op: 'updateRun', runId: 'run_car', input: { status: 'completed' } },
          ],
        });
        // The state as the writes left it, read before the lock went.
        expect(after).toMatchObject({ id: thread.id, state: { a: 1, b: 2 } });
        expect(after).toEqual(await store.getThread(thread.id));
        expect((await store.listItems(thread.id)).map((i) => i.item)).toEqual([{ n: 1 }]);
        expect((await store.getRun('run_car'))?.status).toBe('completed');
        await (await store.acquireThreadLock(thread.id, { owner: 'second', waitMs: 0 })).release();
        // Released means released: the same lock cannot commit again, and nothing is written.
        await expect(
          store.commitAndRelease({ lock, writes: [{ op: 'mergeState', threadId: thread.id, patch: { c: 3 } }] }),
        ).rejects.toBeInstanceOf(InvalidStoreInputError);
        await expect(
          store.commitAndRelease({ lock: { threadId: thread.id, owner: 'x', release: async () => undefined }, writes: [] }),
        ).rejects.toBeInstanceOf(InvalidStoreInputError);
        expect((await store.getThread(thread.id))?.state).toEqual({ a: 1, b: 2 });
      });

      it('releases the lock when the last writes are invalid or fail, and applies none of them', async () => {
        if (!store.commitAndRelease) return;
        const thread = await store.createThread();
        await store.createRun(thread.id, { id: 'run_carf', agentId: 'a', agentVersion: '1', status: 'in_progress' });
        for (const writes of [
          // Fails in the store: the second write names a run that does not exist.
          [
            { op: 'mergeState', threadId: thread.id, patch: { lost: true } },
            { op: 'updateRun', runId: 'run_missing', input: { status: 'completed' } },
          ],
          // Fails validation before the store sees it.
          [
            { op: 'mergeState', threadId: thread.id, patch: { lost: true } },
            { op: 'appendItems', threadId: thread.id, runId: 'run_carf', items: 'not an array' },
          ],
        ] as StoreWrite[][]) {
          const lock = await store.acquireThreadLock(thread.id, { owner: 'holder', leaseMs: 60_000, waitMs: 0 });
          await expect(store.commitAndRelease({ lock, writes })).rejects.toBeInstanceOf(StoreError);
          // Free at once, not after the lease.
          await (await store.acquireThreadLock(thread.id, { owner: 'next', waitMs: 0 })).release();
        }
        expect((await store.getThread(thread.id))?.state).toEqual({});
        expect(await store.listItems(thread.id)).toEqual([]);
        expect((await store.getRun('run_carf'))?.status).toBe('in_progress');
      });
    });

    describe('runs', () => {
      it('creates runs queued by default, updates them and lists them in creation order', async () => {
        const thread = await store.createThread();
        const first = await store.createRun(thread.id, { agentId: 'io.baton.a', agentVersion: '1.0.0', traceId: 'a'.repeat(32) });
        expect(first).toMatchObject({ threadId: thread.id, status: 'queued', parentRunId: null, error: null, traceId: 'a'.repeat(32) });
        const second = await store.createRun(thread.id, {
          agentId: 'io.baton.b',
          agentVersion: '2.0.0',
          parentRunId: first.id,
          status: 'in_progress',
        });
        clock.advance(1000);
        const cancelled = await store.updateRun(first.id, { status: 'cancelled', error: { code: 'HANDED_OFF', message: 'handed off' } });
        expect(cancelled).toMatchObject({ status: 'cancelled', error: { code: 'HANDED_OFF', message: 'handed off' } });
        expect(cancelled.updatedAt > cancelled.createdAt).toBe(true);
        expect(await store.getRun(first.id)).toEqual(cancelled);
        expect((await store.listRuns(thread.id)).map((r) => r.id)).toEqual([first.id, second.id]);
        expect(await store.getRun(second.id)).toMatchObject({ parentRunId: first.id, agentVersion: '2.0.0', traceId: null });
      });

      it('refuses to move a finished run to another status', async () => {
        const thread = await store.createThread();
        const run = await store.createRun(thread.id, { agentId: 'a', agentVersion: '1' });
        await store.updateRun(run.id, { status: 'completed' });
        await expect(store.updateRun(run.id, { status: 'in_progress' })).rejects.toMatchObject({ code: 'STORE_RUN_FINISHED' });
        await expect(store.updateRun(run.id, { status: 'failed' })).rejects.toThrow(/is already completed; it cannot become failed/);
        expect(await store.updateRun(run.id, { error: null })).toMatchObject({ status: 'completed' });
        expect(await store.updateRun(run.id, { status: 'completed', error: { code: 'X', message: 'm' } })).toMatchObject({
          status: 'completed',
          error: { code: 'X', message: 'm' },
        });
      });

      it('rejects unknown threads, runs, parents and statuses', async () => {
        const thread = await store.createThread();
        const other = await store.createThread();
        const foreign = await store.createRun(other.id, { agentId: 'a', agentVersion: '1' });
        await expect(store.createRun('thread_missing', { agentId: 'a', agentVersion: '1' })).rejects.toBeInstanceOf(ThreadNotFoundError);
        await expect(store.createRun(thread.id, { agentId: 'a', agentVersion: '1', parentRunId: foreign.id })).rejects.toBeInstanceOf(
          RunNotFoundError,
        );
        await expect(store.createRun(thread.id, { agentId: 'a', agentVersion: '1', status: 'running' as never })).rejects.toThrow(
          /run status must be one of/,
        );
        await expect(store.updateRun('run_missing', { status: 'failed' })).rejects.toBeInstanceOf(RunNotFoundError);
        await expect(store.updateRun(foreign.id, { error: { code: 1 } as never })).rejects.toBeInstanceOf(InvalidStoreInputError);
        expect(await store.getRun('run_missing')).toBeUndefined();
        expect(await store.listRuns(thread.id)).toEqual([]);
      });
    });

    describe('items and audit', () => {
      it('numbers items per thread from 1, monotonically across appends', async () => {
        const a = await store.createThread();
        const b = await store.createThread();
        const runA = await store.createRun(a.id, { agentId: 'a', agentVersion: '1' });
        const runB = await store.createRun(b.id, { agentId: 'b', agentVersion: '1' });
        const first = await store.appendItems(a.id, runA.id, [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'yo' },
        ]);
        await store.appendItems(b.id, runB.id, [{ role: 'user', content: 'other' }]);
        const second = await store.appendItems(a.id, runA.id, [{ type: 'function_call', name: 't', arguments: [] }]);
        expect(first.map((i) => i.seq)).toEqual([1, 2]);
        expect(first[0]).toMatchObject({ threadId: a.id, runId: runA.id, item: { role: 'user', content: 'hi' } });
        expect(second.map((i) => i.seq)).toEqual([3]);
        expect(await store.appendItems(a.id, runA.id, [])).toEqual([]);
        const listed = await store.listItems(a.id);
        expect(listed.map((i) => [i.seq, i.runId, i.item])).toEqual([
          [1, runA.id, { role: 'user', content: 'hi' }],
          [2, runA.id, { role: 'assistant', content: 'yo' }],
          [3, runA.id, { type: 'function_call', name: 't', arguments: [] }],
        ]);
        expect(listed.slice(0, 2)).toEqual(first);
        expect((await store.listItems(b.id)).map((i) => i.seq)).toEqual([1]);
      });

      it('numbers concurrent appends without gaps or duplicates', async () => {
        const thread = await store.createThread();
        const run = await store.createRun(thread.id, { agentId: 'a', agentVersion: '1' });
        await Promise.all(Array.from({ length: 30 }, (_, i) => store.appendItems(thread.id, run.id, [{ i }, { i }])));
        const seqs = (await store.listItems(thread.id)).map((i) => i.seq);
        expect(seqs).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
      });

      it('refuses items for a run of another thread and non-object items', async () => {
        const a = await store.createThread();
        const b = await store.createThread();
        const runB = await store.createRun(b.id, { agentId: 'b', agentVersion: '1' });
        await expect(store.appendItems(a.id, runB.id, [{}])).rejects.toBeInstanceOf(RunNotFoundError);
        await expect(store.appendItems(b.id, runB.id, [{}, 'x' as never])).rejects.toThrow(/items\[1\] must be a plain JSON object/);
        await expect(store.appendItems('thread_missing', runB.id, [{}])).rejects.toBeInstanceOf(ThreadNotFoundError);
        expect(await store.listItems(b.id)).toEqual([]);
        expect(await store.listItems('thread_missing')).toEqual([]);
      });

      it('appends and lists audit records', async () => {
        const thread = await store.createThread();
        const run = await store.createRun(thread.id, { agentId: 'a', agentVersion: '1' });
        const first = await store.appendAudit({ threadId: thread.id, runId: run.id, kind: 'handoff', data: { target: 'b', list: [] } });
        const second = await store.appendAudit({ id: 'audit_fixed', threadId: thread.id, runId: null, kind: 'guardrail', data: {} });
        expect(first.id).toMatch(/^audit_/);
        expect(await store.listAudit(thread.id)).toEqual([first, second]);
        await expect(
          store.appendAudit({ id: 'audit_fixed', threadId: thread.id, runId: null, kind: 'x', data: {} }),
        ).rejects.toBeInstanceOf(StoreError);
        await expect(store.appendAudit({ threadId: 'thread_missing', runId: null, kind: 'x', data: {} })).rejects.toBeInstanceOf(
          ThreadNotFoundError,
        );
        await expect(store.appendAudit({ threadId: thread.id, runId: 'run_missing', kind: 'x', data: {} })).rejects.toBeInstanceOf(
          RunNotFoundError,
        );
        expect(await store.listAudit(thread.id)).toEqual([first, second]);
      });
    });

    describe('thread locks', () => {
      it('is exclusive until released, then acquirable again', async () => {
        const thread = await store.createThread();
        const lock = await store.acquireThreadLock(thread.id, { owner: 'run_1' });
        const busy = await store.acquireThreadLock(thread.id, { owner: 'run_2', waitMs: 0 }).catch((e: unknown) => e);
        expect(busy).toBeInstanceOf(ThreadBusyError);
        expect((busy as ThreadBusyError).code).toBe('STORE_THREAD_BUSY');
        expect((busy as Error).message).toContain('run_1');
        await lock.release();
        await lock.release();
        const again = await store.acquireThreadLock(thread.id, { owner: 'run_2', waitMs: 0 });
        expect(again.owner).toBe('run_2');
        await again.release();
      });

      it('hands the lock to a waiter when the holder releases', async () => {
        const thread = await store.createThread();
        const lock = await store.acquireThreadLock(thread.id, { owner: 'first' });
        const order: string[] = [];
        const waiting = store.acquireThreadLock(thread.id, { owner: 'second', waitMs: 15_000 }).then((l) => {
          order.push('second acquired');
          return l;
        });
        await sleep(20);
        order.push('first releasing');
        await lock.release();
        const second = await waiting;
        expect(order).toEqual(['first releasing', 'second acquired']);
        await second.release();
      });

      it('serialises read-modify-write sections of concurrent holders', async () => {
        const thread = await store.createThread({ state: { counter: 0 } });
        let inside = 0;
        let most = 0;
        await Promise.all(
          Array.from({ length: 10 }, async (_, i) => {
            const lock = await store.acquireThreadLock(thread.id, { owner: `run_${i}`, waitMs: 15_000 });
            try {
              most = Math.max(most, ++inside);
              const current = (await store.getThread(thread.id))!.state.counter as number;
              await sleep(1);
              await store.mergeState(thread.id, { counter: current + 1 });
            } finally {
              inside--;
              await lock.release();
            }
          }),
        );
        expect(most).toBe(1);
        expect((await store.getThread(thread.id))!.state.counter).toBe(10);
      });

      it('lets a new owner take over a lease that expired (a dead holder)', async () => {
        const thread = await store.createThread();
        const dead = await store.acquireThreadLock(thread.id, { owner: 'dead', leaseMs: LEASE_MS, autoRenew: false });
        // After the acquire: the lease started no later than this, so waiting from here outlives it.
        const since = Date.now();
        clock.advance(LEASE_MS - 1);
        await expect(store.acquireThreadLock(thread.id, { owner: 'early', waitMs: 0 })).rejects.toBeInstanceOf(ThreadBusyError);
        await outliveLease(since, LEASE_MS, LEASE_MS - 1);
        const taken = await store.acquireThreadLock(thread.id, { owner: 'new', waitMs: 0, leaseMs: 60_000 });
        if (dead.renew) expect(await dead.renew()).toBe(false);
        await dead.release();
        await expect(store.acquireThreadLock(thread.id, { owner: 'third', waitMs: 0 })).rejects.toBeInstanceOf(ThreadBusyError);
        if (taken.renew) expect(await taken.renew()).toBe(true);
        await taken.release();
      });

      it('fences writes made under a lock that was lost: its lease expired and another owner took it', async () => {
        if (!store.writeBatch && !store.commitAndRelease) return;
        const thread = await store.createThread({ state: { v: 0 } });
        const stale = await store.acquireThreadLock(thread.id, { owner: 'stale', leaseMs: LEASE_MS, autoRenew: false });
        const since = Date.now();
        // Under the lock it holds, a fenced batch applies.
        if (store.writeBatch) await store.writeBatch([{ op: 'mergeState', threadId: thread.id, patch: { v: 1 } }], { lock: stale });
        await outliveLease(since, LEASE_MS);
        const taken = await store.acquireThreadLock(thread.id, { owner: 'new', waitMs: 0, leaseMs: 60_000 });
        const lost = { code: 'STORE_LOCK_LOST', kind: 'upstream' };
        const writes: StoreWrite[] = [
          { op: 'mergeState', threadId: thread.id, patch: { v: 'stale' } },
          { op: 'appendAudit', record: { threadId: thread.id, runId: null, kind: 'stale.write', data: {} } },
        ];
        // The stale holder's writes are refused in the same atomic change, none of them applied.
        if (store.writeBatch) await expect(store.writeBatch(writes, { lock: stale })).rejects.toMatchObject(lost);
        if (store.commitAndRelease) await expect(store.commitAndRelease({ lock: stale, writes })).rejects.toMatchObject(lost);
        expect((await store.getThread(thread.id))!.state).toEqual({ v: store.writeBatch ? 1 : 0 });
        expect(await store.listAudit(thread.id)).toEqual([]);
        // Its release frees nothing: the new owner still holds the thread, and its fenced writes apply.
        await stale.release();
        await expect(store.acquireThreadLock(thread.id, { owner: 'third', waitMs: 0 })).rejects.toBeInstanceOf(ThreadBusyError);
        if (store.writeBatch) await store.writeBatch([{ op: 'mergeState', threadId: thread.id, patch: { v: 2 } }], { lock: taken });
        if (store.commitAndRelease)
          await store.commitAndRelease({ lock: taken, writes: [{ op: 'mergeState', threadId: thread.id, patch: { w: 3 } }] });
        else await taken.release();
        expect((await store.getThread(thread.id))!.state).toMatchObject(store.commitAndRelease ? { w: 3 } : {});
        // A lock this store did not hand out is refused before anything is written.
        if (store.writeBatch)
          await expect(
            store.writeBatch(writes, { lock: { threadId: thread.id, owner: 'x', release: async () => undefined } }),
          ).rejects.toBeInstanceOf(InvalidStoreInputError);
      });

      it('fences single state writes and suspended-run saves and takes made with a lock that was lost', async () => {
        const thread = await store.createThread({ state: { v: 0 } });
        const run = await store.createRun(thread.id, { agentId: 'io.baton.a', agentVersion: '1', status: 'requires_action' });
        const stale = await store.acquireThreadLock(thread.id, { owner: 'stale', leaseMs: LEASE_MS, autoRenew: false });
        const since = Date.now();
        const expiresAt = new Date(clock.now().getTime() + 60_000).toISOString();
        const suspended = (state: string) => ({
          runId: run.id,
          threadId: thread.id,
          state,
          approvals: [{ id: 'appr_1', callId: 'call_1', toolName: 'refund', arguments: '{}', agentId: 'io.baton.a' }],
          expiresAt,
        });
        // Under the lock it holds, fenced writes apply (and return what the unfenced ones return).
        expect(await store.mergeState(thread.id, { v: 1 }, { lock: stale })).toEqual({ v: 1 });
        if (store.replaceState)
          expect(await store.replaceState(thread.id, { v: 2 }, { lock: stale, idempotencyKey: 'k1' })).toEqual({ v: 2 });
        if (store.saveSuspendedRun) await store.saveSuspendedRun(suspended('held'), { lock: stale });
        await outliveLease(since, LEASE_MS);
        const taken = await store.acquireThreadLock(thread.id, { owner: 'new', waitMs: 0, leaseMs: 60_000 });
        const before = await store.getThread(thread.id);
        const lost = { code: 'STORE_LOCK_LOST', kind: 'upstream' };
        await expect(store.mergeState(thread.id, { v: 'stale' }, { lock: stale })).rejects.toMatchObject(lost);
        await expect(store.mergeState(thread.id, { v: 'stale' }, { lock: stale, idempotencyKey: 'k2' })).rejects.toMatchObject(lost);
        if (store.replaceState) await expect(store.replaceState(thread.id, { v: 'stale' }, { lock: stale })).rejects.toMatchObject(lost);
        if (store.saveSuspendedRun) await expect(store.saveSuspendedRun(suspended('stale'), { lock: stale })).rejects.toMatchObject(lost);
        if (store.takeSuspendedRun) {
          await expect(store.takeSuspendedRun(run.id, { lock: stale })).rejects.toMatchObject(lost);
          // Refused even when there is no record to take: the caller learns it lost the lock.
          await expect(store.takeSuspendedRun('run_none', { lock: stale })).rejects.toMatchObject(lost);
        }
        // Nothing changed: state, updatedAt, the idempotency key (still free) and the suspended record.
        expect(await store.getThread(thread.id)).toEqual(before);
        if (store.getSuspendedRun) expect((await store.getSuspendedRun(run.id))?.state).toBe('held');
        // The new holder's fenced writes apply; the stale key was not recorded.
        expect(await store.mergeState(thread.id, { w: 1 }, { lock: taken, idempotencyKey: 'k2' })).toMatchObject({ w: 1 });
        if (store.saveSuspendedRun) await store.saveSuspendedRun(suspended('new'), { lock: taken });
        if (store.getSuspendedRun) expect((await store.getSuspendedRun(run.id))?.state).toBe('new');
        // The new holder's fenced take applies (and returns what the unfenced one returns).
        if (store.takeSuspendedRun && store.saveSuspendedRun) {
          expect((await store.takeSuspendedRun(run.id, { lock: taken }))?.state).toBe('new');
          expect(await store.takeSuspendedRun(run.id, { lock: taken })).toBeUndefined();
          await store.saveSuspendedRun(suspended('new'), { lock: taken });
        }
        // A lock this store did not hand out, or released, is refused before anything is written.
        const foreign = { threadId: thread.id, owner: 'x', release: async () => undefined };
        await expect(store.mergeState(thread.id, { v: 'x' }, { lock: foreign })).rejects.toBeInstanceOf(InvalidStoreInputError);
        if (store.saveSuspendedRun)
          await expect(store.saveSuspendedRun(suspended('x'), { lock: foreign })).rejects.toBeInstanceOf(InvalidStoreInputError);
        if (store.takeSuspendedRun)
          await expect(store.takeSuspendedRun(run.id, { lock: foreign })).rejects.toBeInstanceOf(InvalidStoreInputError);
        if (store.getSuspendedRun) expect((await store.getSuspendedRun(run.id))?.state).toBe('new');
        await stale.release();
        await expect(store.mergeState(thread.id, { v: 'x' }, { lock: stale })).rejects.toBeInstanceOf(InvalidStoreInputError);
        await taken.release();
        expect((await store.getThread(thread.id))!.state).toEqual({ v: 2, w: 1 });
      });

      it('refuses a single-thread write fenced with a lock held on another thread', async () => {
        const mine = await store.createThread({ state: { v: 0 } });
        const theirs = await store.createThread({ state: { v: 0 } });
        const run = await store.createRun(theirs.id, { agentId: 'io.baton.a', agentVersion: '1', status: 'requires_action' });
        const lock = await store.acquireThreadLock(mine.id, { owner: 'mine', autoRenew: false });
        const other = await store.acquireThreadLock(theirs.id, { owner: 'theirs', autoRenew: false });
        // The lock is live, but on `mine`: it would pass the check and fence nothing on `theirs`.
        await expect(store.mergeState(theirs.id, { v: 'x' }, { lock })).rejects.toBeInstanceOf(InvalidStoreInputError);
        if (store.replaceState)
          await expect(store.replaceState(theirs.id, { v: 'x' }, { lock })).rejects.toBeInstanceOf(InvalidStoreInputError);
        if (store.saveSuspendedRun)
          await expect(
            store.saveSuspendedRun(
              {
                runId: run.id,
                threadId: theirs.id,
                state: 'x',
                approvals: [{ id: 'appr_1', callId: 'call_1', toolName: 'refund', arguments: '{}', agentId: 'io.baton.a' }],
                expiresAt: new Date(clock.now().getTime() + 60_000).toISOString(),
              },
              { lock },
            ),
          ).rejects.toBeInstanceOf(InvalidStoreInputError);
        expect((await store.getThread(theirs.id))!.state).toEqual({ v: 0 });
        if (store.listSuspendedRuns) expect(await store.listSuspendedRuns(theirs.id)).toEqual([]);
        // A take finds its record by run id: a lock on another thread than the record's takes nothing.
        if (store.saveSuspendedRun && store.takeSuspendedRun) {
          await store.saveSuspendedRun(
            {
              runId: run.id,
              threadId: theirs.id,
              state: 'x',
              approvals: [{ id: 'appr_1', callId: 'call_1', toolName: 'refund', arguments: '{}', agentId: 'io.baton.a' }],
              expiresAt: new Date(clock.now().getTime() + 60_000).toISOString(),
            },
            { lock: other },
          );
          await expect(store.takeSuspendedRun(run.id, { lock })).rejects.toBeInstanceOf(InvalidStoreInputError);
          expect(await store.getSuspendedRun!(run.id)).toMatchObject({ runId: run.id, threadId: theirs.id });
          expect(await store.takeSuspendedRun(run.id, { lock: other })).toMatchObject({ runId: run.id });
        }
        await lock.release();
        await other.release();
      });

      it('treats a lease that ran out as lost even when nobody took the lock: fenced writes are refused, renew fails', async () => {
        const thread = await store.createThread({ state: { v: 0 } });
        const run = await store.createRun(thread.id, { agentId: 'io.baton.a', agentVersion: '1', status: 'requires_action' });
        const expired = await store.acquireThreadLock(thread.id, { owner: 'expired', leaseMs: LEASE_MS, autoRenew: false });
        const since = Date.now();
        await outliveLease(since, LEASE_MS);
        const lost = { code: 'STORE_LOCK_LOST', kind: 'upstream' };
        const writes: StoreWrite[] = [
          { op: 'mergeState', threadId: thread.id, patch: { v: 'late' } },
          { op: 'appendAudit', record: { threadId: thread.id, runId: null, kind: 'late.write', data: {} } },
        ];
        const before = await store.getThread(thread.id);
        if (store.writeBatch) await expect(store.writeBatch(writes, { lock: expired })).rejects.toMatchObject(lost);
        await expect(store.mergeState(thread.id, { v: 'late' }, { lock: expired })).rejects.toMatchObject(lost);
        if (store.saveSuspendedRun)
          await expect(
            store.saveSuspendedRun(
              {
                runId: run.id,
                threadId: thread.id,
                state: 'late',
                approvals: [{ id: 'appr_1', callId: 'call_1', toolName: 'refund', arguments: '{}', agentId: 'io.baton.a' }],
                expiresAt: new Date(clock.now().getTime() + 60_000).toISOString(),
              },
              { lock: expired },
            ),
          ).rejects.toMatchObject(lost);
        if (store.takeSuspendedRun) await expect(store.takeSuspendedRun(run.id, { lock: expired })).rejects.toMatchObject(lost);
        if (expired.renew) expect(await expired.renew()).toBe(false);
        if (store.commitAndRelease) await expect(store.commitAndRelease({ lock: expired, writes })).rejects.toMatchObject(lost);
        else await expired.release();
        expect(await store.getThread(thread.id)).toEqual(before);
        expect(await store.listAudit(thread.id)).toEqual([]);
        if (store.listSuspendedRuns) expect(await store.listSuspendedRuns(thread.id)).toEqual([]);
        // Nobody holds the thread: the next owner gets it at once.
        const next = await store.acquireThreadLock(thread.id, { owner: 'next', waitMs: 0 });
        await next.release();
      });

      it('keeps a live holder’s lease renewed in the background', async () => {
        const thread = await store.createThread();
        const lock = await store.acquireThreadLock(thread.id, { owner: 'live', leaseMs: LEASE_MS });
        const since = Date.now();
        // More than a lease passes, in real time and on the store's clock; the holder's process
        // renews in the background, so nobody else gets in.
        for (let i = 0; i < 3; i++) {
          await sleep(LEASE_MS / 2);
          clock.advance(LEASE_MS / 2);
          await expect(store.acquireThreadLock(thread.id, { owner: 'intruder', waitMs: 0 })).rejects.toBeInstanceOf(ThreadBusyError);
        }
        expect(Date.now() - since).toBeGreaterThanOrEqual(LEASE_MS);
        await lock.release();
        const next = await store.acquireThreadLock(thread.id, { owner: 'next', waitMs: 0 });
        await next.release();
      });

      it('stops waiting when aborted and fails for unknown threads and bad options', async () => {
        const thread = await store.createThread();
        const lock = await store.acquireThreadLock(thread.id, { owner: 'holder' });
        const controller = new AbortController();
        const waiting = store.acquireThreadLock(thread.id, { owner: 'waiter', waitMs: 60_000, signal: controller.signal });
        setTimeout(() => controller.abort(), 20);
        await expect(waiting).rejects.toMatchObject({ code: 'STORE_LOCK_ABORTED' });
        await lock.release();
        // The aborted waiter took nothing with it: the lock is free now.
        const free = await store.acquireThreadLock(thread.id, { owner: 'after-abort', waitMs: 0 });
        await free.release();
        await expect(store.acquireThreadLock('thread_missing', { owner: 'x', waitMs: 0 })).rejects.toBeInstanceOf(ThreadNotFoundError);
        await expect(store.acquireThreadLock(thread.id, { owner: 'x', leaseMs: -1 })).rejects.toBeInstanceOf(InvalidStoreInputError);
        await expect(store.acquireThreadLock(thread.id, { owner: '' })).rejects.toBeInstanceOf(InvalidStoreInputError);
      });
    });

    describe('waiting for a lock', () => {
      it('gives up after waitMs with ThreadBusyError naming the holder', async () => {
        const thread = await store.createThread();
        const lock = await store.acquireThreadLock(thread.id, { owner: 'slow-holder' });
        const started = Date.now();
        const error = await store.acquireThreadLock(thread.id, { owner: 'impatient', waitMs: 150 }).catch((e: unknown) => e);
        const waited = Date.now() - started;
        expect(error).toBeInstanceOf(ThreadBusyError);
        expect((error as Error).message).toContain('slow-holder');
        expect((error as Error).message).toMatch(/gave up after \d+ ms/);
        expect(waited).toBeGreaterThanOrEqual(150);
        expect(waited).toBeLessThan(5_000);
        await lock.release();
      });

      it('acquires while waiting once the holder’s lease runs out', async () => {
        const thread = await store.createThread();
        const dead = await store.acquireThreadLock(thread.id, { owner: 'vanished', leaseMs: LEASE_MS, autoRenew: false });
        // After the acquire: the lease started no later than this, so waiting from here outlives it.
        const since = Date.now();
        const waiting = store.acquireThreadLock(thread.id, { owner: 'patient', waitMs: 15_000 });
        await sleep(20);
        await outliveLease(since, LEASE_MS);
        const lock = await waiting;
        expect(lock.owner).toBe('patient');
        if (dead.renew) expect(await dead.renew()).toBe(false);
        await lock.release();
      });

      it('gives the lock to each of several waiters in turn', async () => {
        const thread = await store.createThread();
        const first = await store.acquireThreadLock(thread.id, { owner: 'w0' });
        const acquired: string[] = [];
        const waiters = Array.from({ length: 4 }, async (_, i) => {
          const lock = await store.acquireThreadLock(thread.id, { owner: `w${i + 1}`, waitMs: 15_000 });
          acquired.push(lock.owner);
          await sleep(5);
          await lock.release();
        });
        await sleep(10);
        expect(acquired).toEqual([]);
        await first.release();
        await Promise.all(waiters);
        expect([...acquired].sort()).toEqual(['w1', 'w2', 'w3', 'w4']);
      });
    });

    describe('recoverAbandonedRuns', () => {
      it('fails active runs on unlocked threads and leaves the rest alone', async () => {
        if (!store.recoverAbandonedRuns) return;
        const orphan = await store.createThread();
        const live = await store.createThread();
        const orphanRun = await store.createRun(orphan.id, { agentId: 'a', agentVersion: '1', status: 'in_progress' });
        const orphanQueued = await store.createRun(orphan.id, { agentId: 'a', agentVersion: '1' });
        const done = await store.createRun(orphan.id, { agentId: 'a', agentVersion: '1', status: 'completed' });
        const finishedLater = await store.createRun(orphan.id, { agentId: 'a', agentVersion: '1', status: 'in_progress' });
        await store.updateRun(finishedLater.id, { status: 'completed' });
        const liveRun = await store.createRun(live.id, { agentId: 'a', agentVersion: '1', status: 'in_progress' });
        // Paused for approval (its state is kept as a suspended run): not abandoned.
        const paused = await store.createRun(orphan.id, { agentId: 'a', agentVersion: '1', status: 'requires_action' });
        const lock = await store.acquireThreadLock(live.id, { owner: liveRun.id });

        expect(await store.recoverAbandonedRuns()).toBe(2);
        expect(await store.getRun(orphanRun.id)).toMatchObject({ status: 'failed', error: { code: 'RUNNER_CRASHED' } });
        expect((await store.getRun(orphanQueued.id))?.status).toBe('failed');
        expect((await store.getRun(done.id))?.status).toBe('completed');
        expect((await store.getRun(finishedLater.id))?.status).toBe('completed');
        expect((await store.getRun(liveRun.id))?.status).toBe('in_progress');
        expect(await store.recoverAbandonedRuns()).toBe(0);
        await lock.release();
        expect(await store.recoverAbandonedRuns()).toBe(1);
        expect((await store.getRun(liveRun.id))?.status).toBe('failed');
        expect((await store.getRun(paused.id))?.status).toBe('requires_action');
      });

      it('treats an expired lease as a dead holder', async () => {
        if (!store.recoverAbandonedRuns) return;
        const thread = await store.createThread();
        const run = await store.createRun(thread.id, { agentId: 'a', agentVersion: '1', status: 'in_progress' });
        await store.acquireThreadLock(thread.id, { owner: run.id, leaseMs: LEASE_MS, autoRenew: false });
        const since = Date.now(); // after the acquire, as above
        expect(await store.recoverAbandonedRuns()).toBe(0);
        await outliveLease(since, LEASE_MS);
        expect(await store.recoverAbandonedRuns()).toBe(1);
        await expect(store.updateRun(run.id, { status: 'completed' })).rejects.toMatchObject({ code: 'STORE_RUN_FINISHED' });
      });
    });

    describe('suspended runs (resumable approvals)', () => {
      const approval = (id: string, callId = `call_${id}`) => ({
        id,
        callId,
        toolName: 'refund',
        arguments: '{"amount":5}',
        agentId: 'io.baton.a',
      });
      const suspend = async () => {
        const thread = await store.createThread();
        const run = await store.createRun(thread.id, { agentId: 'io.baton.a', agentVersion: '1', status: 'requires_action' });
        return { thread, run };
      };

      it('saves, reads, lists and replaces a suspended run', async () => {
        if (!store.saveSuspendedRun || !store.getSuspendedRun || !store.listSuspendedRuns) return;
        const { thread, run } = await suspend();
        const expiresAt = new Date(clock.now().getTime() + 60_000).toISOString();
        const saved = await store.saveSuspendedRun({
          runId: run.id,
          threadId: thread.id,
          state: '{"s":1}',
          approvals: [approval('appr_1'), approval('appr_2')],
          expiresAt,
        });
        expect(saved).toMatchObject({ runId: run.id, threadId: thread.id, state: '{"s":1}', expiresAt });
        expect(saved.createdAt).toBe(clock.now().toISOString());
        expect(await store.getSuspendedRun(run.id)).toEqual(saved);
        expect(await store.listSuspendedRuns(thread.id)).toEqual([saved]);
        expect(await store.listSuspendedRuns('thread_unknown')).toEqual([]);
        expect(await store.getSuspendedRun('run_unknown')).toBeUndefined();
        // Saving again (the resumed run paused a second time) replaces the record.
        const again = await store.saveSuspendedRun({
          runId: run.id,
          threadId: thread.id,
          state: '{"s":2}',
          approvals: [approval('appr_3')],
          expiresAt,
        });
        expect(await store.getSuspendedRun(run.id)).toEqual(again);
        expect(await store.listSuspendedRuns(thread.id)).toHaveLength(1);
        // Not the run's thread, or no such run.
        const other = await store.createThread();
        await expect(
          store.saveSuspendedRun({ runId: run.id, threadId: other.id, state: 's', approvals: [approval('appr_4')], expiresAt }),
        ).rejects.toMatchObject({ code: 'STORE_RUN_NOT_FOUND' });
        await expect(
          store.saveSuspendedRun({ runId: 'run_unknown', threadId: thread.id, state: 's', approvals: [approval('appr_4')], expiresAt }),
        ).rejects.toMatchObject({ code: 'STORE_RUN_NOT_FOUND' });
      });

      it('hands a suspended run to exactly one of several concurrent takers', async () => {
        if (!store.saveSuspendedRun || !store.takeSuspendedRun || !store.getSuspendedRun) return;
        const { thread, run } = await suspend();
        const saved = await store.saveSuspendedRun({
          runId: run.id,
          threadId: thread.id,
          state: 'x',
          approvals: [approval('appr_1')],
          expiresAt: clock.now().toISOString(),
        });
        const taken = await Promise.all([1, 2, 3, 4, 5].map(() => store.takeSuspendedRun!(run.id)));
        const winners = taken.filter((t) => t !== undefined);
        expect(winners).toHaveLength(1);
        expect(winners[0]).toEqual(saved);
        expect(await store.getSuspendedRun(run.id)).toBeUndefined();
        expect(await store.takeSuspendedRun(run.id)).toBeUndefined();
      });

      it("deletes a suspended run in the same batch as the run's final status, fenced like the rest", async () => {
        if (!store.saveSuspendedRun || !store.getSuspendedRun || !store.writeBatch) return;
        const { thread, run } = await suspend();
        const expiresAt = new Date(clock.now().getTime() + 60_000).toISOString();
        const save = () =>
          store.saveSuspendedRun!({ runId: run.id, threadId: thread.id, state: 'x', approvals: [approval('appr_1')], expiresAt });
        await save();
        const done: StoreWrite[] = [
          { op: 'updateRun', runId: run.id, input: { status: 'completed' } },
          { op: 'deleteSuspendedRun', threadId: thread.id, runId: run.id },
        ];
        // A batch that fails keeps the record (all or none).
        await expect(
          store.writeBatch([...done, { op: 'appendItems', threadId: thread.id, runId: 'run_unknown', items: [{}] }]),
        ).rejects.toMatchObject({ code: 'STORE_RUN_NOT_FOUND' });
        expect(await store.getSuspendedRun(run.id)).toBeDefined();
        expect((await store.getRun(run.id))?.status).toBe('requires_action');
        // Another thread's id deletes nothing; a stale lock holder's batch deletes nothing.
        const other = await store.createThread();
        await store.writeBatch([{ op: 'deleteSuspendedRun', threadId: other.id, runId: run.id }]);
        expect(await store.getSuspendedRun(run.id)).toBeDefined();
        const stale = await store.acquireThreadLock(thread.id, { owner: 'stale', leaseMs: LEASE_MS, autoRenew: false });
        const since = Date.now();
        await outliveLease(since, LEASE_MS);
        const taken = await store.acquireThreadLock(thread.id, { owner: 'new', waitMs: 0, leaseMs: 60_000 });
        await expect(store.writeBatch(done, { lock: stale })).rejects.toMatchObject({ code: 'STORE_LOCK_LOST' });
        expect(await store.getSuspendedRun(run.id)).toBeDefined();
        // The holder's batch applies both; the index by run id and the thread's list agree.
        if (store.commitAndRelease) await store.commitAndRelease({ lock: taken, writes: done });
        else {
          await store.writeBatch(done, { lock: taken });
          await taken.release();
        }
        expect(await store.getSuspendedRun(run.id)).toBeUndefined();
        expect(await store.listSuspendedRuns!(thread.id)).toEqual([]);
        expect((await store.getRun(run.id))?.status).toBe('completed');
        // Deleting what is not there is a no-op.
        await store.writeBatch([{ op: 'deleteSuspendedRun', threadId: thread.id, runId: run.id }]);
      });

      it('recovery puts an abandoned run that still has its suspended record back to requires_action', async () => {
        if (!store.saveSuspendedRun || !store.recoverAbandonedRuns) return;
        const { thread, run } = await suspend();
        const plain = await store.createRun(thread.id, { agentId: 'io.baton.a', agentVersion: '1', status: 'in_progress' });
        await store.saveSuspendedRun({
          runId: run.id,
          threadId: thread.id,
          state: 'x',
          approvals: [approval('appr_1')],
          expiresAt: new Date(clock.now().getTime() + 60_000).toISOString(),
        });
        // Its resumer died: in_progress, record kept, no lock.
        await store.updateRun(run.id, { status: 'in_progress', error: null });
        expect(await store.recoverAbandonedRuns()).toBe(1);
        expect(await store.getRun(run.id)).toMatchObject({ status: 'requires_action', error: null });
        expect(await store.getRun(plain.id)).toMatchObject({ status: 'failed', error: { code: 'RUNNER_CRASHED' } });
        expect(await store.getSuspendedRun!(run.id)).toBeDefined();
        expect(await store.recoverAbandonedRuns()).toBe(0);
        expect((await store.getRun(run.id))?.status).toBe('requires_action');
      });

      it('refuses malformed suspended runs, naming the field', async () => {
        if (!store.saveSuspendedRun) return;
        const { thread, run } = await suspend();
        const base = {
          runId: run.id,
          threadId: thread.id,
          state: 'x',
          approvals: [approval('appr_1')],
          expiresAt: clock.now().toISOString(),
        };
        const refused = async (input: unknown, message: RegExp) => {
          const error = await store.saveSuspendedRun!(input as never).then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(error).toBeInstanceOf(InvalidStoreInputError);
          expect((error as Error).message).toMatch(message);
        };
        await refused({ ...base, approvals: [] }, /approvals must be an array of 1 to 64/);
        await refused({ ...base, approvals: [approval('appr_1'), approval('appr_1')] }, /approvals\[1\]\.id "appr_1" is used twice/);
        await refused({ ...base, approvals: [{ ...approval('appr_1'), callId: 'c'.repeat(201) }] }, /approvals\[0\]\.callId/);
        await refused({ ...base, state: '' }, /state must be a non-empty string/);
        await refused(
          { ...base, state: 'x'.repeat(4 * 1024 * 1024 + 1) },
          /state must be a non-empty string of at most 4194304 characters/,
        );
        await refused({ ...base, expiresAt: 'tomorrow' }, /expiresAt must be an ISO 8601/);
        await refused({ ...base, approvals: [{ ...approval('appr_1'), arguments: 7 }] }, /approvals\[0\]\.arguments/);
        if (store.getSuspendedRun) expect(await store.getSuspendedRun(run.id)).toBeUndefined();
      });
    });

    it('refuses calls after close', async () => {
      const thread = await store.createThread();
      await store.close();
      await expect(store.getThread(thread.id)).rejects.toMatchObject({ code: 'STORE_CLOSED' });
      await expect(store.mergeState(thread.id, { a: 1 })).rejects.toMatchObject({ code: 'STORE_CLOSED' });
    });
  });
}
