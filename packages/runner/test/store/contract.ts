// The ThreadStore contract: every store implementation must pass this same suite.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ThreadStore } from '../../src/store/index.js';
import {
  InvalidStoreInputError,
  RunNotFoundError,
  StoreError,
  ThreadBusyError,
  ThreadNotFoundError,
} from '../../src/store/index.js';

/** A controllable clock: starts at a fixed instant, moves only when told. */
export function manualClock(start = Date.parse('2026-03-01T00:00:00.000Z')) {
  let now = start;
  return { now: () => new Date(now), advance: (ms: number) => void (now += ms) };
}

export interface StoreFactoryOptions {
  clock?: () => Date;
}

export type StoreFactory = (options: StoreFactoryOptions) => Promise<{ store: ThreadStore; cleanup(): Promise<void> }>;

export function describeThreadStoreContract(name: string, factory: StoreFactory): void {
  describe(`ThreadStore contract: ${name}`, () => {
    let store: ThreadStore;
    let cleanup: () => Promise<void>;
    const clock = manualClock();

    beforeEach(async () => {
      ({ store, cleanup } = await factory({ clock: clock.now }));
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

      it('merges state shallowly: keys replace, null is kept, other keys stay', async () => {
        const thread = await store.createThread({ state: { keep: 1, nested: { a: 1, b: 2 }, gone: 'x' } });
        const merged = await store.mergeState(thread.id, { nested: { c: 3 }, gone: null, added: [1, 2] });
        expect(merged).toEqual({ keep: 1, nested: { c: 3 }, gone: null, added: [1, 2] });
        expect((await store.getThread(thread.id))?.state).toEqual(merged);
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
        const thread = await store.createThread({ state: { a: 1 } });
        expect(await store.replaceState!(thread.id, { b: 2 })).toEqual({ b: 2 });
        expect((await store.getThread(thread.id))?.state).toEqual({ b: 2 });
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

    describe('runs', () => {
      it('creates runs queued by default, updates them and lists them in creation order', async () => {
        const thread = await store.createThread();
        const first = await store.createRun(thread.id, { agentId: 'io.baton.a', agentVersion: '1.0.0', traceId: 'a'.repeat(32) });
        expect(first).toMatchObject({ threadId: thread.id, status: 'queued', parentRunId: null, error: null, traceId: 'a'.repeat(32) });
        const second = await store.createRun(thread.id, { agentId: 'io.baton.b', agentVersion: '2.0.0', parentRunId: first.id, status: 'in_progress' });
        clock.advance(1000);
        const cancelled = await store.updateRun(first.id, { status: 'cancelled', error: { code: 'HANDED_OFF', message: 'handed off' } });
        expect(cancelled).toMatchObject({ status: 'cancelled', error: { code: 'HANDED_OFF', message: 'handed off' } });
        expect(cancelled.updatedAt > cancelled.createdAt).toBe(true);
        expect((await store.listRuns(thread.id)).map((r) => r.id)).toEqual([first.id, second.id]);
        expect(await store.getRun(second.id)).toMatchObject({ parentRunId: first.id, agentVersion: '2.0.0' });
      });

      it('refuses to move a finished run to another status', async () => {
        const thread = await store.createThread();
        const run = await store.createRun(thread.id, { agentId: 'a', agentVersion: '1' });
        await store.updateRun(run.id, { status: 'completed' });
        await expect(store.updateRun(run.id, { status: 'in_progress' })).rejects.toMatchObject({ code: 'STORE_RUN_FINISHED' });
        expect(await store.updateRun(run.id, { error: null })).toMatchObject({ status: 'completed' });
      });

      it('rejects unknown threads, runs, parents and statuses', async () => {
        const thread = await store.createThread();
        const other = await store.createThread();
        const foreign = await store.createRun(other.id, { agentId: 'a', agentVersion: '1' });
        await expect(store.createRun('thread_missing', { agentId: 'a', agentVersion: '1' })).rejects.toBeInstanceOf(ThreadNotFoundError);
        await expect(store.createRun(thread.id, { agentId: 'a', agentVersion: '1', parentRunId: foreign.id })).rejects.toBeInstanceOf(RunNotFoundError);
        await expect(store.createRun(thread.id, { agentId: 'a', agentVersion: '1', status: 'running' as never })).rejects.toThrow(/run status must be one of/);
        await expect(store.updateRun('run_missing', { status: 'failed' })).rejects.toBeInstanceOf(RunNotFoundError);
        await expect(store.updateRun(foreign.id, { error: { code: 1 } as never })).rejects.toBeInstanceOf(InvalidStoreInputError);
        expect(await store.getRun('run_missing')).toBeUndefined();
      });
    });

    describe('items and audit', () => {
      it('numbers items per thread from 1, monotonically across appends', async () => {
        const a = await store.createThread();
        const b = await store.createThread();
        const runA = await store.createRun(a.id, { agentId: 'a', agentVersion: '1' });
        const runB = await store.createRun(b.id, { agentId: 'b', agentVersion: '1' });
        const first = await store.appendItems(a.id, runA.id, [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'yo' }]);
        await store.appendItems(b.id, runB.id, [{ role: 'user', content: 'other' }]);
        const second = await store.appendItems(a.id, runA.id, [{ type: 'function_call', name: 't' }]);
        expect(first.map((i) => i.seq)).toEqual([1, 2]);
        expect(second.map((i) => i.seq)).toEqual([3]);
        expect(await store.appendItems(a.id, runA.id, [])).toEqual([]);
        const listed = await store.listItems(a.id);
        expect(listed.map((i) => [i.seq, i.runId, i.item])).toEqual([
          [1, runA.id, { role: 'user', content: 'hi' }],
          [2, runA.id, { role: 'assistant', content: 'yo' }],
          [3, runA.id, { type: 'function_call', name: 't' }],
        ]);
        expect((await store.listItems(b.id)).map((i) => i.seq)).toEqual([1]);
      });

      it('refuses items for a run of another thread and non-object items', async () => {
        const a = await store.createThread();
        const b = await store.createThread();
        const runB = await store.createRun(b.id, { agentId: 'b', agentVersion: '1' });
        await expect(store.appendItems(a.id, runB.id, [{}])).rejects.toBeInstanceOf(RunNotFoundError);
        await expect(store.appendItems(b.id, runB.id, [{}, 'x' as never])).rejects.toThrow(/items\[1\] must be a plain JSON object/);
        expect(await store.listItems(b.id)).toEqual([]);
      });

      it('appends and lists audit records', async () => {
        const thread = await store.createThread();
        const run = await store.createRun(thread.id, { agentId: 'a', agentVersion: '1' });
        const first = await store.appendAudit({ threadId: thread.id, runId: run.id, kind: 'handoff', data: { target: 'b' } });
        const second = await store.appendAudit({ id: 'audit_fixed', threadId: thread.id, runId: null, kind: 'guardrail', data: {} });
        expect(first.id).toMatch(/^audit_/);
        expect(await store.listAudit(thread.id)).toEqual([first, second]);
        await expect(store.appendAudit({ id: 'audit_fixed', threadId: thread.id, runId: null, kind: 'x', data: {} })).rejects.toBeInstanceOf(StoreError);
        await expect(store.appendAudit({ threadId: 'thread_missing', runId: null, kind: 'x', data: {} })).rejects.toBeInstanceOf(ThreadNotFoundError);
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
        await new Promise((resolve) => setTimeout(resolve, 20));
        order.push('first releasing');
        await lock.release();
        const second = await waiting;
        expect(order).toEqual(['first releasing', 'second acquired']);
        await second.release();
      });

      it('serialises read-modify-write sections of concurrent holders', async () => {
        const thread = await store.createThread({ state: { counter: 0 } });
        await Promise.all(
          Array.from({ length: 10 }, async (_, i) => {
            const lock = await store.acquireThreadLock(thread.id, { owner: `run_${i}`, waitMs: 15_000 });
            try {
              const current = (await store.getThread(thread.id))!.state.counter as number;
              await new Promise((resolve) => setTimeout(resolve, 1));
              await store.mergeState(thread.id, { counter: current + 1 });
            } finally {
              await lock.release();
            }
          }),
        );
        expect((await store.getThread(thread.id))!.state.counter).toBe(10);
      });

      it('lets a new owner take over a lease that expired (a dead holder)', async () => {
        const thread = await store.createThread();
        const dead = await store.acquireThreadLock(thread.id, { owner: 'dead', leaseMs: 1_000, autoRenew: false });
        clock.advance(999);
        await expect(store.acquireThreadLock(thread.id, { owner: 'early', waitMs: 0 })).rejects.toBeInstanceOf(ThreadBusyError);
        clock.advance(2);
        const taken = await store.acquireThreadLock(thread.id, { owner: 'new', waitMs: 0, leaseMs: 60_000 });
        expect(await dead.renew!()).toBe(false);
        await dead.release();
        await expect(store.acquireThreadLock(thread.id, { owner: 'third', waitMs: 0 })).rejects.toBeInstanceOf(ThreadBusyError);
        expect(await taken.renew!()).toBe(true);
        await taken.release();
      });

      it('stops waiting when aborted and fails for unknown threads and bad options', async () => {
        const thread = await store.createThread();
        const lock = await store.acquireThreadLock(thread.id, { owner: 'holder' });
        const controller = new AbortController();
        const waiting = store.acquireThreadLock(thread.id, { owner: 'waiter', waitMs: 60_000, signal: controller.signal });
        setTimeout(() => controller.abort(), 20);
        await expect(waiting).rejects.toMatchObject({ code: 'STORE_LOCK_ABORTED' });
        await lock.release();
        await expect(store.acquireThreadLock('thread_missing', { owner: 'x', waitMs: 0 })).rejects.toBeInstanceOf(ThreadNotFoundError);
        await expect(store.acquireThreadLock(thread.id, { owner: 'x', leaseMs: -1 })).rejects.toBeInstanceOf(InvalidStoreInputError);
        await expect(store.acquireThreadLock(thread.id, { owner: '' })).rejects.toBeInstanceOf(InvalidStoreInputError);
      });
    });

    describe('recoverAbandonedRuns', () => {
      it('fails active runs on unlocked threads and leaves the rest alone', async () => {
        const orphan = await store.createThread();
        const live = await store.createThread();
        const orphanRun = await store.createRun(orphan.id, { agentId: 'a', agentVersion: '1', status: 'in_progress' });
        const orphanQueued = await store.createRun(orphan.id, { agentId: 'a', agentVersion: '1' });
        const done = await store.createRun(orphan.id, { agentId: 'a', agentVersion: '1', status: 'completed' });
        const liveRun = await store.createRun(live.id, { agentId: 'a', agentVersion: '1', status: 'requires_action' });
        const lock = await store.acquireThreadLock(live.id, { owner: liveRun.id });

        expect(await store.recoverAbandonedRuns!()).toBe(2);
        expect(await store.getRun(orphanRun.id)).toMatchObject({ status: 'failed', error: { code: 'RUNNER_CRASHED' } });
        expect((await store.getRun(orphanQueued.id))?.status).toBe('failed');
        expect((await store.getRun(done.id))?.status).toBe('completed');
        expect((await store.getRun(liveRun.id))?.status).toBe('requires_action');
        expect(await store.recoverAbandonedRuns!()).toBe(0);
        await lock.release();
      });

      it('treats an expired lease as a dead holder', async () => {
        const thread = await store.createThread();
        const run = await store.createRun(thread.id, { agentId: 'a', agentVersion: '1', status: 'in_progress' });
        await store.acquireThreadLock(thread.id, { owner: run.id, leaseMs: 500, autoRenew: false });
        expect(await store.recoverAbandonedRuns!()).toBe(0);
        clock.advance(501);
        expect(await store.recoverAbandonedRuns!()).toBe(1);
        await expect(store.updateRun(run.id, { status: 'completed' })).rejects.toMatchObject({ code: 'STORE_RUN_FINISHED' });
      });
    });

    it('refuses calls after close', async () => {
      const thread = await store.createThread();
      await store.close();
      await expect(store.getThread(thread.id)).rejects.toMatchObject({ code: 'STORE_CLOSED' });
    });
  });
}
