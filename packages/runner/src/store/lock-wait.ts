import { setTimeout as sleep } from 'node:timers/promises';
import { StoreError, ThreadBusyError } from './errors.js';

/** Defaults for thread locks, in one place. */
export const LOCK_DEFAULTS = {
  /** A holder that dies loses the lock after this long (the live holder renews it). */
  leaseMs: 30_000,
  /** How long `acquireThreadLock` waits before ThreadBusyError. */
  waitMs: 30_000,
  /** First and longest pause between attempts. */
  minBackoffMs: 2,
  maxBackoffMs: 100,
} as const;

/**
 * Retries `attempt` with jittered exponential backoff until it returns a value, `waitMs`
 * elapses (ThreadBusyError), or `signal` aborts. `attempt` returns `undefined` when busy and
 * the current holder through `holder()` for the error message. Both may be synchronous (an
 * in-process or SQLite store) or return a promise (a store behind a network, e.g. Redis); an
 * `attempt` that throws or rejects ends the wait with that error.
 */
export async function waitForLock<T>(options: {
  threadId: string;
  waitMs: number;
  signal?: AbortSignal;
  attempt: () => T | undefined | Promise<T | undefined>;
  holder: () => string | undefined | Promise<string | undefined>;
  /** Resolves early when the lock may have become free (in-process release). */
  released?: () => Promise<void>;
}): Promise<T> {
  const started = Date.now();
  let backoff: number = LOCK_DEFAULTS.minBackoffMs;
  for (;;) {
    if (options.signal?.aborted) {
      throw new StoreError('STORE_LOCK_ABORTED', `waiting for the lock on thread ${JSON.stringify(options.threadId)} was aborted`, {
        cause: options.signal.reason,
      });
    }
    const acquired = await options.attempt();
    if (acquired !== undefined) return acquired;
    const waited = Date.now() - started;
    if (waited >= options.waitMs) throw new ThreadBusyError(options.threadId, waited, await options.holder());
    const pause = Math.min(backoff * (0.5 + Math.random()), options.waitMs - waited);
    backoff = Math.min(backoff * 2, LOCK_DEFAULTS.maxBackoffMs);
    const timer = sleep(Math.max(1, pause), undefined, { signal: options.signal }).catch(() => undefined);
    await (options.released ? Promise.race([timer, options.released()]) : timer);
  }
}
