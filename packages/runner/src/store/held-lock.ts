import type { ThreadLock } from './types.js';

/** What {@link createHeldLock} needs from a store for one acquired lock. */
export interface HeldLockOptions {
  threadId: string;
  owner: string;
  /** The lease the lock was taken with; the background renewal runs every third of it. */
  leaseMs: number;
  /** Renew in the background while held (default true). */
  autoRenew?: boolean;
  /** Extends the lease in the backing store; resolves false once the lock was lost. */
  renew(): Promise<boolean>;
  /** Frees the lock in the backing store; called at most once. */
  release(): Promise<void>;
  /**
   * A background renewal that throws: `retry` on the next tick (a service that may come back,
   * e.g. Redis), or `stop` renewing (default `retry`). Either way a lost lease frees the lock.
   */
  onRenewError?: 'retry' | 'stop';
}

/**
 * The `ThreadLock` every store hands out: renewal every `leaseMs / 3` on an unref'd timer (a held
 * lock never keeps the process alive), stopped when the lock is lost or released, and a
 * `release()` that frees the lock once however often it is called.
 */
export function createHeldLock(options: HeldLockOptions): ThreadLock {
  const timer = setInterval(
    () => {
      options.renew().then(
        (held) => {
          if (!held) clearInterval(timer);
        },
        () => {
          if (options.onRenewError === 'stop') clearInterval(timer);
        },
      );
    },
    Math.max(10, Math.floor(options.leaseMs / 3)),
  );
  timer.unref();
  if (options.autoRenew === false) clearInterval(timer);
  let released = false;
  return {
    threadId: options.threadId,
    owner: options.owner,
    renew: () => options.renew(),
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      await options.release();
    },
  };
}
