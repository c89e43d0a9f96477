import { InvalidStoreInputError, StoreError } from '../errors.js';
import type { ThreadStore } from '../types.js';

/** A held lock as a backend checks it: its thread and its token. */
export interface LockFence {
  threadId: string;
  token: string;
}

/** What an extension's methods get from the store they extend. */
export interface StoreExtensionContext {
  /** Throws `STORE_CLOSED` once the store was closed (the facade's own check, for the extension's methods). */
  assertOpen(what: string): void;
  /**
   * Fencing for an extension's own writes: `lock` (a `{ lock }` option) as the thread and token
   * the extension must find still holding the thread's lock, in the same atomic change as its
   * write (else `LockLostError`, nothing written). `undefined` for no lock; a lock this store did
   * not hand out, or released, or one on another thread than `threadId` (the thread the write
   * changes: another thread's lock fences nothing there) is an `InvalidStoreInputError` naming `what`.
   * Without `threadId` (a write found by another key, e.g. a take by run id) the extension checks
   * that what it writes is on `LockFence.threadId` itself, with the write.
   */
  fence(lock: unknown, what: string, threadId?: string): LockFence | undefined;
}

/** The facade of each store registers how it resolves its held locks (see `fence`). */
const fences = new WeakMap<ThreadStore, (lock: unknown, what: string, threadId?: string) => LockFence | undefined>();

/** Called by `createThreadStoreFacade`: lets extensions of `store` fence their writes. */
export function registerLockFence(
  store: ThreadStore,
  resolve: (lock: unknown, what: string, threadId?: string) => LockFence | undefined,
): void {
  fences.set(store, resolve);
}

/**
 * Adds optional methods of the `ThreadStore` contract (e.g. the suspended-run methods of resumable
 * approvals) that a backend implements outside the facade: they share the store's closed state,
 * so after `close()` they refuse exactly as the facade's methods do. Returns the same store object.
 */
export function withStoreExtension<M extends Partial<ThreadStore>>(
  store: ThreadStore,
  make: (context: StoreExtensionContext) => M,
): ThreadStore & M {
  let closed = false;
  const close = store.close.bind(store);
  const methods = make({
    assertOpen(what) {
      if (closed) throw new StoreError('STORE_CLOSED', `thread store is closed (${what})`);
    },
    fence(lock, what, threadId) {
      if (lock === undefined) return undefined;
      const resolve = fences.get(store);
      if (!resolve) throw new InvalidStoreInputError(`${what}: this store cannot fence writes with a lock`);
      return resolve(lock, what, threadId);
    },
  });
  return Object.assign(store, methods, {
    close: async () => {
      closed = true;
      await close();
    },
  });
}
