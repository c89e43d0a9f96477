// The published ThreadStore contract, run against a real Redis: once with the store's own
// connection (RESP2) and once with a caller's ioredis instance speaking RESP3.
import { describeThreadStoreContract } from '@baton/runner/testing';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRedisThreadStore } from '../../src/index.js';
import { deleteKeys, testRedisUrl, uniquePrefix } from '../helpers/redis.js';

const url = testRedisUrl();
const api = { describe, it, expect, beforeEach, afterEach };

describeThreadStoreContract(
  'redis',
  async ({ clock }) => {
    const prefix = uniquePrefix('contract');
    return {
      store: createRedisThreadStore({ connection: url, prefix, clock }),
      cleanup: async () => void (await deleteKeys(url, prefix)),
      realTimeLeases: true,
    };
  },
  api,
);

const resp3 = new Redis(url, { protocol: 3, replyMapping: 'resp3' });
afterAll(() => resp3.quit());

describeThreadStoreContract(
  'redis (caller-owned RESP3 connection)',
  async ({ clock }) => {
    const prefix = uniquePrefix('contract-resp3');
    return {
      store: createRedisThreadStore({ connection: resp3 as unknown as Redis, prefix, clock }),
      cleanup: async () => {
        // close() left the caller's connection open.
        expect(resp3.status).toBe('ready');
        await deleteKeys(url, prefix);
      },
      realTimeLeases: true,
    };
  },
  api,
);
