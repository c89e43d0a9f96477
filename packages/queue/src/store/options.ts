import { InvalidStoreInputError, LOCK_DEFAULTS, type StoreIdKind } from '@baton/runner/store-kit';
import type { Redis } from 'ioredis';

/** Options for {@link createRedisThreadStore}. */
export interface RedisThreadStoreOptions {
  /**
   * The Redis server: a `redis://` (or `rediss://`) URL, for which the store opens and owns its
   * own connection (RESP2, see the README), or an existing ioredis `Redis` instance, which the
   * store uses as it is and never closes (`close()` does not quit it).
   */
  connection: string | Redis;
  /** First part of every key (`<prefix>:thread:{<threadId>}…`); no `{` or `}`. Default `baton`. */
  prefix?: string;
  /** Clock for timestamps (`createdAt`, `updatedAt`); default `new Date()`. Lock leases run on the Redis server's clock. */
  clock?: () => Date;
  /** Id generator for threads, runs, audit records and lock tokens; default `<kind>_<32 hex>`. */
  idGenerator?: (kind: StoreIdKind) => string;
  /** Lease of a thread lock when `acquireThreadLock` gives none; default 30 000 ms. */
  lockLeaseMs?: number;
  /** How long `acquireThreadLock` waits when it is given no `waitMs`; default 30 000 ms. */
  lockWaitMs?: number;
  /**
   * For a connection the store opens: how long one command may go unanswered before it fails
   * with StoreUnavailableError; default 10 000 ms. Ignored for a `Redis` instance passed in.
   */
  commandTimeoutMs?: number;
}

/** Defaults of {@link createRedisThreadStore}, in one place. */
export const REDIS_STORE_DEFAULTS = {
  prefix: 'baton',
  lockLeaseMs: LOCK_DEFAULTS.leaseMs,
  lockWaitMs: LOCK_DEFAULTS.waitMs,
  commandTimeoutMs: 10_000,
  /** Reconnection attempts a command waits through before failing (connections the store opens). */
  maxRetriesPerRequest: 1,
  /** Longest pause between reconnection attempts (connections the store opens). */
  maxReconnectDelayMs: 500,
  /** Active runs `recoverAbandonedRuns` checks per script call, so no one call blocks Redis for long. */
  recoverBatchSize: 200,
} as const;

export interface ResolvedOptions {
  prefix: string;
  lockLeaseMs: number;
  lockWaitMs: number;
  commandTimeoutMs: number;
}

/** Validates the options that are not the connection and applies the defaults. */
export function resolveOptions(options: RedisThreadStoreOptions): ResolvedOptions {
  const prefix = options.prefix ?? REDIS_STORE_DEFAULTS.prefix;
  if (typeof prefix !== 'string' || prefix.length === 0 || prefix.length > 100 || /[{}]/.test(prefix)) {
    throw new InvalidStoreInputError(
      `createRedisThreadStore: prefix must be a non-empty string of at most 100 characters without { or }, got ${JSON.stringify(prefix)}`,
    );
  }
  const positive = (value: number | undefined, fallback: number, name: string): number => {
    const v = value ?? fallback;
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
      throw new InvalidStoreInputError(`createRedisThreadStore: ${name} must be a positive number, got ${String(v)}`);
    }
    return v;
  };
  const lockWaitMs = options.lockWaitMs ?? REDIS_STORE_DEFAULTS.lockWaitMs;
  if (typeof lockWaitMs !== 'number' || !Number.isFinite(lockWaitMs) || lockWaitMs < 0) {
    throw new InvalidStoreInputError(`createRedisThreadStore: lockWaitMs must be a non-negative number, got ${String(lockWaitMs)}`);
  }
  return {
    prefix,
    lockLeaseMs: positive(options.lockLeaseMs, REDIS_STORE_DEFAULTS.lockLeaseMs, 'lockLeaseMs'),
    lockWaitMs,
    commandTimeoutMs: positive(options.commandTimeoutMs, REDIS_STORE_DEFAULTS.commandTimeoutMs, 'commandTimeoutMs'),
  };
}
