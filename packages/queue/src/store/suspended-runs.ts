// The Redis store's suspended runs (resumable approvals), kept apart from its other methods and
// hooked in with `withStoreExtension`. Each write is one Lua script: saving checks the run exists on the
// thread, taking reads and deletes in one step so exactly one of several callers gets the record.
import {
  LockLostError,
  RunNotFoundError,
  assertTakenOnThread,
  checkId,
  checkSuspendedRunInput,
  type LockFence,
  type SuspendedRunMethods,
} from '@baton/runner/store-kit';
import type { SuspendedRun } from '@baton/runner';
import type { Redis } from 'ioredis';
import type { KeyLayout } from './keys.js';

// KEYS[4] / ARGV[4]: with fencing, the thread's lock key and the value the holder set (else '').
const SAVE = `
if ARGV[4] ~= '' and redis.call('GET', KEYS[4]) ~= ARGV[4] then return -1 end
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
return 1
`;
// KEYS[3] / ARGV[2]: with fencing, the thread's lock key and the value the holder set (else '').
const TAKE = `
if ARGV[2] ~= '' and redis.call('GET', KEYS[3]) ~= ARGV[2] then return -1 end
local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v then return false end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return v
`;

/**
 * Keys: `<p>:thread:{<t>}:suspended` (hash run id → the record as JSON) and `<p>:suspended-runs`
 * (hash run id → thread id, to find a record by run id).
 */
export function redisSuspendedRuns(ctx: {
  redis: Redis;
  keys: KeyLayout;
  prefix: string;
  op<T>(what: string, fn: () => Promise<T>): Promise<T>;
  now(): string;
  /** The `{ lock }` option as the lock to check (see `StoreExtensionContext.fence`). */
  fence(lock: unknown, what: string, threadId?: string): LockFence | undefined;
  /** The lock key's value this process set for a held lock's token. */
  lockValueOf(token: string): string | undefined;
}): SuspendedRunMethods {
  const { redis, keys, op } = ctx;
  const suspendedKey = keys.suspended;
  const indexKey = keys.suspendedRuns;
  const parse = (text: string): SuspendedRun => JSON.parse(text) as SuspendedRun;
  return {
    async saveSuspendedRun(input, options) {
      const checked = checkSuspendedRunInput(input);
      const fence = ctx.fence(options?.lock, 'saveSuspendedRun', checked.threadId);
      return op('saveSuspendedRun', async () => {
        const record: SuspendedRun = { ...checked, createdAt: ctx.now() };
        // A held lock always has a value; '' would skip the check, so a missing one is a value no key holds.
        const lockValue = fence ? (ctx.lockValueOf(fence.token) ?? '["",""]') : '';
        const ok = await redis.call('eval', [
          SAVE,
          4,
          keys.run(checked.threadId, checked.runId),
          suspendedKey(checked.threadId),
          indexKey,
          keys.lock(checked.threadId),
          checked.runId,
          checked.threadId,
          JSON.stringify(record),
          lockValue,
        ]);
        if (Number(ok) === -1) throw new LockLostError(fence!.threadId);
        if (Number(ok) !== 1) throw new RunNotFoundError(checked.runId, `on thread ${JSON.stringify(checked.threadId)}`);
        return record;
      });
    },
    async getSuspendedRun(runId) {
      checkId(runId, 'run id');
      return op('getSuspendedRun', async () => {
        const threadId = (await redis.call('hget', [indexKey, runId])) as string | null;
        if (typeof threadId !== 'string') return undefined;
        const text = (await redis.call('hget', [suspendedKey(threadId), runId])) as string | null;
        return typeof text === 'string' ? parse(text) : undefined;
      });
    },
    async listSuspendedRuns(threadId) {
      checkId(threadId, 'thread id');
      return op('listSuspendedRuns', async () => {
        const texts = (await redis.call('hvals', [suspendedKey(threadId)])) as string[];
        return texts.map(parse).sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
      });
    },
    async takeSuspendedRun(runId, options) {
      checkId(runId, 'run id');
      const fence = ctx.fence(options?.lock, 'takeSuspendedRun');
      return op('takeSuspendedRun', async () => {
        const threadId = (await redis.call('hget', [indexKey, runId])) as string | null;
        // Without a record there is nothing to take, but a lost lock is still reported.
        if (typeof threadId !== 'string' && !fence) return undefined;
        // The record's thread never changes, so checking it before the script is checking it with it.
        if (typeof threadId === 'string' && fence) assertTakenOnThread(threadId, fence);
        // As in SAVE: a held lock always has a value; a missing one is a value no key holds.
        const lockValue = fence ? (ctx.lockValueOf(fence.token) ?? '["",""]') : '';
        const text = (await redis.call('eval', [
          TAKE,
          3,
          suspendedKey(typeof threadId === 'string' ? threadId : fence!.threadId),
          indexKey,
          keys.lock(fence?.threadId ?? (threadId as string)),
          runId,
          lockValue,
        ])) as string | number | null;
        if (text === -1 || text === '-1') throw new LockLostError(fence!.threadId);
        return typeof text === 'string' ? parse(text) : undefined;
      });
    },
  };
}
