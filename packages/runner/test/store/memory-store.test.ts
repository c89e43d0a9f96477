import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryThreadStore } from '../../src/store/index.js';
import { describeThreadStoreContract } from '../../src/testing/store-contract.js';

describeThreadStoreContract(
  'memory',
  async ({ clock }) => ({
    store: createMemoryThreadStore({ clock }),
    cleanup: async () => {},
  }),
  { describe, it, expect, beforeEach, afterEach },
);
