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

describe('memory store specifics', () => {
  it('keeps its data in its own process memory: another instance sees none of it, and close() refuses further use', async () => {
    const a = createMemoryThreadStore();
    const b = createMemoryThreadStore();
    const thread = await a.createThread({ id: 'thread_mem', state: { k: 1 } });
    expect(await b.getThread(thread.id)).toBeUndefined();
    await a.close();
    await expect(a.getThread(thread.id)).rejects.toThrow(/closed/);
    await b.close();
  });
});
