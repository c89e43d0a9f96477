// Test helpers for a shared Redis: the URL the global setup provides, a unique key prefix per
// test file (or test), and removal of a prefix's keys.
import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import { Redis } from 'ioredis';

/** The Redis every test file shares (set by test/global-setup.ts). */
export function testRedisUrl(): string {
  const url = process.env.BATON_TEST_REDIS_URL;
  if (!url) throw new Error('BATON_TEST_REDIS_URL is not set: run the tests through vitest (test/global-setup.ts starts Redis)');
  return url;
}

/** A key prefix no other test file or test uses, e.g. `bt:store:1f2e3d4c`. */
export function uniquePrefix(label: string): string {
  return `bt:${basename(label).replace(/[^A-Za-z0-9_.-]/g, '_')}:${randomUUID().slice(0, 8)}`;
}

/** Deletes every key under `prefix` (SCAN + UNLINK); returns how many. */
export async function deleteKeys(url: string, prefix: string): Promise<number> {
  const redis = new Redis(url, { protocol: 2, lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    let deleted = 0;
    do {
      const [next, keys] = (await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500)) as [string, string[]];
      cursor = next;
      if (keys.length > 0) deleted += await redis.unlink(...keys);
    } while (cursor !== '0');
    return deleted;
  } finally {
    redis.disconnect();
  }
}

/** A plain connection for inspecting what a store wrote; disconnect it when done. */
export function rawRedis(url: string = testRedisUrl()): Redis {
  return new Redis(url, { protocol: 2, maxRetriesPerRequest: 1 });
}
