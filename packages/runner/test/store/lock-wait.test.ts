import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { waitForLock } from '../../src/store/lock-wait.js';
import { ThreadBusyError } from '../../src/store/errors.js';

describe('waitForLock', () => {
  it('awaits an asynchronous attempt until it yields a value', async () => {
    let calls = 0;
    const result = await waitForLock({
      threadId: 't',
      waitMs: 5_000,
      attempt: async () => {
        calls++;
        await sleep(2);
        return calls >= 3 ? 'lock' : undefined;
      },
      holder: async () => 'someone',
    });
    expect(result).toBe('lock');
    expect(calls).toBe(3);
  });

  it('names the holder an asynchronous holder() reports when it gives up', async () => {
    const error = await waitForLock({
      threadId: 't',
      waitMs: 30,
      attempt: () => Promise.resolve(undefined),
      holder: () => sleep(1).then(() => 'run_async_holder'),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ThreadBusyError);
    expect((error as Error).message).toContain('(run_async_holder)');
  });

  it('still takes synchronous attempts and holders', async () => {
    let free = false;
    setTimeout(() => (free = true), 20);
    expect(await waitForLock({ threadId: 't', waitMs: 5_000, attempt: () => (free ? 1 : undefined), holder: () => 'x' })).toBe(1);
    await expect(waitForLock({ threadId: 't', waitMs: 0, attempt: () => undefined, holder: () => 'sync-holder' })).rejects.toThrow(
      /sync-holder/,
    );
  });

  it('ends the wait with the error an attempt rejects with', async () => {
    const boom = new Error('backend down');
    await expect(waitForLock({ threadId: 't', waitMs: 5_000, attempt: () => Promise.reject(boom), holder: () => undefined })).rejects.toBe(
      boom,
    );
  });

  it('stops between asynchronous attempts when aborted', async () => {
    const controller = new AbortController();
    let calls = 0;
    const waiting = waitForLock({
      threadId: 't',
      waitMs: 60_000,
      signal: controller.signal,
      attempt: async () => {
        calls++;
        await sleep(1);
        return undefined;
      },
      holder: () => undefined,
    });
    setTimeout(() => controller.abort(), 30);
    await expect(waiting).rejects.toMatchObject({ code: 'STORE_LOCK_ABORTED' });
    const after = calls;
    await sleep(50);
    expect(calls).toBe(after);
  });
});
