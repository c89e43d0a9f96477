import type { Redis } from 'ioredis';
import { producerConnection, type RedisConnection } from './connection.js';
import { QUEUE_DEFAULTS } from './defaults.js';
import { QueueUnavailableError } from './errors.js';

/** One write-ahead record of a task's edits: the one contract, from `@baton/manifest/contracts`. */
import type { EditLedgerEntry } from '@baton/manifest/contracts';
export type { EditLedgerEntry };

/** Options for {@link createRedisEditLedger}. */
export interface RedisEditLedgerOptions {
  /** The Redis the workers share, or an open ioredis client (left open by `close()`). */
  connection: RedisConnection | Redis;
  /** Key prefix (default `baton`). */
  prefix?: string;
  /** How long an entry is kept, s (default 7 days: longer than BullMQ keeps finished jobs). */
  ttlSeconds?: number;
}

/** The edit ledger of @baton/skills on Redis, shared by every worker that applies edits to one workspace. */
export interface RedisEditLedger {
  get(key: string): Promise<EditLedgerEntry | undefined>;
  put(key: string, entry: EditLedgerEntry): Promise<void>;
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}

const isClient = (value: unknown): value is Redis => typeof (value as Redis | undefined)?.sendCommand === 'function';

/**
 * Where workers record, before writing a task's edits, what the files will look like after: a
 * task retried after its worker died then knows whether the edits already landed (and does not
 * apply them again) or not.
 */
export function createRedisEditLedger(options: RedisEditLedgerOptions): RedisEditLedger {
  const owned = !isClient(options.connection);
  const redis = isClient(options.connection) ? options.connection : producerConnection(options.connection as RedisConnection);
  const prefix = options.prefix ?? QUEUE_DEFAULTS.prefix;
  const ttl = options.ttlSeconds ?? 7 * 24 * 3600;
  const keyOf = (key: string) => `${prefix}:baton:edits:${key}`;
  const guard = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (error) {
      throw new QueueUnavailableError(`edit ledger: could not ${what}: ${(error as Error).message}`, { cause: error });
    }
  };
  return {
    get: (key) =>
      guard('read an entry', async () => {
        const text = await redis.get(keyOf(key));
        return text === null ? undefined : (JSON.parse(text) as EditLedgerEntry);
      }),
    put: (key, entry) =>
      guard('write an entry', async () => {
        await redis.set(keyOf(key), JSON.stringify(entry), 'EX', ttl);
      }),
    delete: (key) =>
      guard('delete an entry', async () => {
        await redis.del(keyOf(key));
      }),
    async close() {
      if (owned) redis.disconnect();
    },
  };
}
