import { StoreError } from '../errors.js';
import type { ThreadStore } from '../types.js';

/** What an extension's methods get from the store they extend. */
export interface StoreExtensionContext {
  /** Throws `STORE_CLOSED` once the store was closed (the facade's own check, for the extension's methods). */
  assertOpen(what: string): void;
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
  });
  return Object.assign(store, methods, {
    close: async () => {
      closed = true;
      await close();
    },
  });
}
