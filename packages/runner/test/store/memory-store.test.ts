import { createMemoryThreadStore } from '../../src/store/index.js';
import { describeThreadStoreContract } from './contract.js';

describeThreadStoreContract('memory', async ({ clock }) => ({
  store: createMemoryThreadStore({ clock }),
  cleanup: async () => {},
}));
