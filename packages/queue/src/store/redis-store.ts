import {
  InvalidStoreInputError,
  LockLostError,
  RunNotFoundError,
  StoreError,
  StoreUnavailableError,
  ThreadNotFoundError,
  assertTransition,
  createThreadStoreFacade,
  withStoreExtension,
  isPlainObject,
  type LockAttempt,
  type NewLock,
  type NewThread,
  type PreparedWrite,
  type StoreBackend,
  type WriteResult,
} from '@baton/runner/store-kit';
import type { AuditRecord, JsonObject, RunRecord, RunStatus, ThreadItem, ThreadRecord, ThreadStore } from '@baton/runner';
import { Redis } from 'ioredis';
import { redactUrl, toStoreError } from './errors.js';
import { keyLayout } from './keys.js';
import { redisSuspendedRuns } from './suspended-runs.js';
import { REDIS_STORE_DEFAULTS, resolveOptions, type RedisThreadStoreOptions, type ResolvedOptions } from './options.js';
import {
  ACQUIRE_LOCK,
  CREATE_THREAD,
  READ_HASHES,
  READ_THREAD,
  RECOVER_RUNS,
  RELEASE_LOCK,
  RENEW_LOCK,
  WRITE,
  type LuaScript,
} from './scripts.js';

/**
 * A thread store on Redis, with the SQLite store's guarantees (the same facade from
 * `@baton/runner/store-kit` validates, encodes and maps errors for both): every method is one
 * Lua script (atomic on the server), `writeBatch` applies all of its writes or none in one
 * script, state is a hash of top-level key → JSON text so concurrent merges never lose a key,
 * items are numbered per thread, a finished run never changes status, and thread locks are
 * `SET NX PX` leases that the holder renews while it lives. Many processes on many machines may
 * share one Redis.
 *
 * Redis failures surface as {@link StoreUnavailableError} (code `STORE_UNAVAILABLE`). Needs a
 * standalone Redis (or a Sentinel-managed primary), 6.2 or newer; see the package README.
 */
export function createRedisThreadStore(options: RedisThreadStoreOptions): ThreadStore {
  if (!isPlainObject(options)) throw new InvalidStoreInputError('createRedisThreadStore: options must be an object');
  const resolved = resolveOptions(options);
  const { redis, owned, target } = openConnection(options.connection, resolved);
  const backend = redisBackend(redis, owned, target, resolved);
  const facade = createThreadStoreFacade(backend, {
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.idGenerator ? { idGenerator: options.idGenerator } : {}),
  });
  const clock = options.clock ?? (() => new Date());
  return withStoreExtension(facade, ({ assertOpen, fence }) =>
    redisSuspendedRuns({
      redis,
      fence,
      lockValueOf: backend.lockValueOf,
      keys: keyLayout(resolved.prefix),
      prefix: resolved.prefix,
      now: () => clock().toISOString(),
      op: async (what, fn) => {
        assertOpen(what);
        try {
          return await fn();
        } catch (error) {
          throw error instanceof StoreError || !backend.mapError ? error : backend.mapError(error, what);
        }
      },
    }),
  );
}

/** The Redis backend: Lua scripts over the key layout of keys.ts. */
function redisBackend(
  redis: Redis,
  owned: boolean,
  target: string,
  resolved: ResolvedOptions,
): StoreBackend & { lockValueOf(token: string): string | undefined } {
  const keys = keyLayout(resolved.prefix);
  let lastConnectionError: Error | undefined;
  if (owned) {
    // Without a listener ioredis prints every failed reconnect; keep the last one for messages.
    redis.on('error', (error: Error) => void (lastConnectionError = error));
    redis.on('ready', () => void (lastConnectionError = undefined));
  }
  const mapError = (error: unknown, what: string) => toStoreError(error, what, target, () => lastConnectionError);

  /** EVALSHA, loading the script with EVAL when the server does not have it (yet, or any more). */
  const evalScript = async (script: LuaScript, scriptKeys: readonly string[], args: readonly (string | number)[]): Promise<unknown> => {
    try {
      return await redis.call('evalsha', [script.sha, scriptKeys.length, ...scriptKeys, ...args]);
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('NOSCRIPT')) {
        return redis.call('eval', [script.lua, scriptKeys.length, ...scriptKeys, ...args]);
      }
      throw error;
    }
  };

  /** Runs a script whose reply is `{'ok', …}` or `{'err', CODE, …}`; throws the matching StoreError for the latter. */
  const evalChecked = async (script: LuaScript, scriptKeys: readonly string[], args: readonly (string | number)[]): Promise<unknown[]> => {
    const reply = await evalScript(script, scriptKeys, args);
    if (!Array.isArray(reply)) throw new StoreError('STORE_FAILED', `unexpected reply from the ${script.name} script: ${typeof reply}`);
    if (reply[0] === 'err') throw domainError(reply);
    return reply;
  };

  /**
   * Finds the thread of every run an update names (runs never move; a run created earlier in the
   * same list is on the thread it names); RunNotFoundError before any write.
   */
  const threadsOfRuns = async (writes: readonly PreparedWrite[]): Promise<Map<string, string>> => {
    const found = new Map<string, string>();
    const wanted = new Set<string>();
    for (const w of writes) {
      if (w.op === 'createRun' && !found.has(w.run.id)) found.set(w.run.id, w.run.threadId);
      else if (w.op === 'updateRun' && !found.has(w.runId)) wanted.add(w.runId);
    }
    const runIds = [...wanted];
    if (runIds.length === 0) return found;
    const threads = (await redis.call('hmget', [keys.runThreads, ...runIds])) as (string | null)[];
    runIds.forEach((runId, i) => {
      const threadId = threads[i];
      if (typeof threadId !== 'string') throw new RunNotFoundError(runId);
      found.set(runId, threadId);
    });
    return found;
  };

  /** Encodes writes as the WRITE script's KEYS and ARGV and runs it; returns one result per write. */
  const applyWrites = async (writes: readonly PreparedWrite[], at: string, results: boolean): Promise<WriteResult[]> => {
    const runThreads = await threadsOfRuns(writes);
    const scriptKeys: string[] = [];
    const keyIndex = new Map<string, number>();
    const k = (key: string): string => {
      let index = keyIndex.get(key);
      if (index === undefined) {
        scriptKeys.push(key);
        index = scriptKeys.length;
        keyIndex.set(key, index);
      }
      return String(index);
    };
    const args: string[] = [results ? 'one' : 'batch', String(writes.length)];
    for (const w of writes) {
      switch (w.op) {
        case 'assertLock':
          // A token this process never held (or already released) matches no lock value.
          args.push('L', k(keys.lock(w.threadId)), values.get(w.token) ?? '', w.threadId);
          break;
        case 'writeState': {
          const pairs = statePairs(w.patch);
          args.push('M', k(keys.thread(w.threadId)), k(keys.state(w.threadId)), k(keys.applied(w.threadId)));
          args.push(w.replace ? '1' : '0', w.idempotencyKey ?? '', w.threadId, at, String(pairs.length / 2), ...pairs);
          break;
        }
        case 'appendItems': {
          const meta = `,"threadId":${JSON.stringify(w.threadId)},"runId":${JSON.stringify(w.runId)},"createdAt":${JSON.stringify(at)}`;
          args.push('I', k(keys.thread(w.threadId)), k(keys.items(w.threadId)), k(keys.run(w.threadId, w.runId)), k(keys.runThreads));
          args.push(w.threadId, w.runId, at, meta, String(w.items.length), ...w.items);
          break;
        }
        case 'appendAudit': {
          const json = `{"id":${JSON.stringify(w.id)},"threadId":${JSON.stringify(w.threadId)},"runId":${JSON.stringify(w.runId)},"kind":${JSON.stringify(w.kind)},"createdAt":${JSON.stringify(at)},"data":${w.data}}`;
          args.push('A', k(keys.thread(w.threadId)), k(keys.audit(w.threadId)), k(keys.auditIds));
          args.push(w.runId === null ? '0' : k(keys.run(w.threadId, w.runId)), k(keys.runThreads), w.threadId, w.id, w.runId ?? '', json);
          break;
        }
        case 'updateRun': {
          const threadId = runThreads.get(w.runId)!;
          const errorMode = w.error === undefined ? 'k' : w.error === null ? 'n' : 's';
          args.push('U', k(keys.run(threadId, w.runId)), k(keys.activeRuns), w.runId, w.status ?? '', errorMode);
          args.push(w.error ? JSON.stringify(w.error) : '', at, threadId);
          break;
        }
        case 'deleteSuspendedRun':
          args.push('S', k(keys.suspended(w.threadId)), k(keys.suspendedRuns), w.runId);
          break;
        case 'createRun': {
          const r = w.run;
          args.push(
            'R',
            k(keys.thread(r.threadId)),
            k(keys.runs(r.threadId)),
            k(keys.run(r.threadId, r.id)),
            k(keys.runThreads),
            k(keys.activeRuns),
          );
          args.push(
            r.parentRunId === null ? '0' : k(keys.run(r.threadId, r.parentRunId)),
            r.id,
            r.threadId,
            r.agentId,
            r.agentVersion,
            r.status,
          );
          args.push(r.parentRunId ?? '', r.traceId === null ? '0' : '1', r.traceId ?? '', at);
          break;
        }
        default:
          throw new StoreError('STORE_FAILED', `Redis store: unknown write ${JSON.stringify((w as { op?: unknown }).op)}`);
      }
    }
    const reply = await evalChecked(WRITE, scriptKeys, args);
    if (!results) return [];
    return (reply[1] as unknown[]).map((result, i): WriteResult => {
      const w = writes[i]!;
      if (w.op === 'writeState') return decodeState(result as string[]);
      if (w.op === 'appendItems') return Number(result);
      if (w.op === 'createRun' || w.op === 'updateRun') return runFromFields(fields(result as string[]));
      return undefined;
    });
  };

  // ---- thread locks: the value is ["<token>","<owner>"], compared whole on renew and release ----

  const lockValue = (lock: NewLock) => JSON.stringify([lock.token, lock.owner]);
  const leaseOf = (ms: number) => Math.max(1, Math.ceil(ms));
  /** Lock values of this process's held locks by token (renew and release compare the whole value). */
  const values = new Map<string, string>();
  const holderOf = (value: unknown): string | undefined => {
    try {
      const parsed = JSON.parse(String(value)) as unknown;
      return Array.isArray(parsed) && typeof parsed[1] === 'string' ? parsed[1] : undefined;
    } catch {
      return undefined;
    }
  };

  return {
    lockValueOf: (token) => values.get(token),
    async createThread(thread: NewThread, lock?: NewLock) {
      const value = lock ? lockValue(lock) : '';
      await evalChecked(
        CREATE_THREAD,
        [keys.thread(thread.id), keys.state(thread.id), keys.lock(thread.id)],
        [
          thread.id,
          thread.at,
          thread.metadataJson,
          thread.tenant ?? '',
          value,
          lock ? leaseOf(lock.leaseMs) : 0,
          ...statePairs(thread.state),
        ],
      );
      if (lock) values.set(lock.token, value);
    },

    async getThread(threadId) {
      const reply = (await evalScript(READ_THREAD, [keys.thread(threadId), keys.state(threadId)], [])) as string[][];
      if (reply.length === 0) return undefined;
      return threadFromFields(fields(reply[0]!), reply[1]!);
    },

    async getRun(runId) {
      const threadId = (await redis.call('hget', [keys.runThreads, runId])) as string | null;
      if (typeof threadId !== 'string') return undefined;
      const [flat] = (await evalScript(READ_HASHES, [keys.run(threadId, runId)], [])) as string[][];
      return flat && flat.length > 0 ? runFromFields(fields(flat)) : undefined;
    },

    async listRuns(threadId) {
      const runIds = (await redis.call('lrange', [keys.runs(threadId), 0, -1])) as string[];
      if (runIds.length === 0) return [];
      const hashes = (await evalScript(
        READ_HASHES,
        runIds.map((runId) => keys.run(threadId, runId)),
        [],
      )) as string[][];
      return hashes.filter((flat) => flat.length > 0).map((flat) => runFromFields(fields(flat)));
    },

    async listItems(threadId) {
      const entries = (await redis.call('lrange', [keys.items(threadId), 0, -1])) as string[];
      return entries.map((entry) => JSON.parse(entry) as ThreadItem);
    },

    async listAudit(threadId) {
      const entries = (await redis.call('lrange', [keys.audit(threadId), 0, -1])) as string[];
      return entries.map((entry) => JSON.parse(entry) as AuditRecord);
    },

    write: (writes, { at, results }) => applyWrites(writes, at, results),

    async tryLock(lock): Promise<LockAttempt> {
      const value = lockValue(lock);
      const reply = (await evalScript(
        ACQUIRE_LOCK,
        [keys.lock(lock.threadId), keys.thread(lock.threadId)],
        [value, leaseOf(lock.leaseMs)],
      )) as unknown[];
      if (reply[0] === 'err') throw new ThreadNotFoundError(lock.threadId);
      if (reply[0] !== 'ok') return { acquired: false, holder: holderOf(reply[1]) };
      values.set(lock.token, value);
      return { acquired: true };
    },

    async renewLock(threadId, token, leaseMs) {
      const value = values.get(token);
      if (value === undefined) return false;
      return Number(await evalScript(RENEW_LOCK, [keys.lock(threadId)], [value, leaseOf(leaseMs)])) === 1;
    },

    async releaseLock(threadId, token) {
      const value = values.get(token);
      values.delete(token);
      if (value === undefined) return;
      try {
        await evalScript(RELEASE_LOCK, [keys.lock(threadId)], [value]);
      } catch (error) {
        // Unreachable Redis: the lease runs out on its own, so the lock still frees itself.
        const mapped = mapError(error, 'releaseThreadLock');
        if (!(mapped instanceof StoreUnavailableError)) throw mapped;
      }
    },

    async recoverAbandonedRuns(error, at) {
      const [flat] = (await evalScript(READ_HASHES, [keys.activeRuns], [])) as string[][];
      const active = pairsOf(flat ?? []);
      const errorJson = JSON.stringify(error);
      let failed = 0;
      for (let i = 0; i < active.length; i += REDIS_STORE_DEFAULTS.recoverBatchSize) {
        const chunk = active.slice(i, i + REDIS_STORE_DEFAULTS.recoverBatchSize);
        const scriptKeys = [
          keys.activeRuns,
          ...chunk.flatMap(([runId, threadId]) => [keys.run(threadId, runId), keys.lock(threadId), keys.suspended(threadId)]),
        ];
        failed += Number(await evalScript(RECOVER_RUNS, scriptKeys, [errorJson, at, ...chunk.map(([runId]) => runId)]));
      }
      return failed;
    },

    mapError,
    // A failed renewal (Redis briefly unreachable) is retried on the next tick; a lost lock stops it.
    renewErrors: 'retry',
    lockDefaults: { leaseMs: resolved.lockLeaseMs, waitMs: resolved.lockWaitMs },

    async close() {
      if (!owned) return;
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis.disconnect();
    },
  };
}

/** Opens (and owns) a connection for a URL, or adopts a caller's ioredis instance. */
function openConnection(connection: unknown, resolved: ResolvedOptions): { redis: Redis; owned: boolean; target: string } {
  if (typeof connection === 'string') {
    if (!/^rediss?:\/\//i.test(connection)) {
      throw new InvalidStoreInputError(
        `createRedisThreadStore: connection must be a redis:// or rediss:// URL or an ioredis Redis instance, got ${JSON.stringify(redactUrl(connection))}`,
      );
    }
    const redis = new Redis(connection, {
      // RESP2: every reply the store reads is a string, integer or array, the same in both
      // protocols, and RESP2 needs no HELLO handshake (works with servers and proxies without RESP3).
      protocol: 2,
      connectionName: 'baton-thread-store',
      // Fail a command after one reconnect attempt instead of queueing it for ~20, and never
      // resend a write whose reply was lost (it may have been applied): both surface as
      // StoreUnavailableError, and the caller decides to retry.
      maxRetriesPerRequest: REDIS_STORE_DEFAULTS.maxRetriesPerRequest,
      autoResendUnfulfilledCommands: false,
      commandTimeout: resolved.commandTimeoutMs,
      // Reconnect quickly and keep trying every 500 ms while Redis is away: a call made during an
      // outage fails within about a second, and the store is usable again soon after Redis returns.
      retryStrategy: (times: number) => Math.min(50 * 2 ** (times - 1), REDIS_STORE_DEFAULTS.maxReconnectDelayMs),
    });
    return { redis, owned: true, target: redactUrl(connection) };
  }
  if (
    connection !== null &&
    typeof connection === 'object' &&
    typeof (connection as Redis).call === 'function' &&
    typeof (connection as Redis).evalsha === 'function'
  ) {
    const redis = connection as Redis;
    const o = redis.options ?? {};
    return { redis, owned: false, target: o.path ? String(o.path) : `${o.host ?? 'localhost'}:${o.port ?? 6379}` };
  }
  throw new InvalidStoreInputError('createRedisThreadStore: connection must be a redis:// or rediss:// URL or an ioredis Redis instance');
}

/** A script's `{'err', CODE, …}` reply as the StoreError the SQLite store throws for the same case. */
function domainError(reply: unknown[]): StoreError {
  const [, code, a = '', b = '', c = ''] = reply.map((part) => String(part));
  switch (code) {
    case 'THREAD_NOT_FOUND':
      return new ThreadNotFoundError(a);
    case 'RUN_NOT_FOUND':
      return new RunNotFoundError(a, b ? `on thread ${JSON.stringify(b)}` : undefined);
    case 'RUN_FINISHED':
      try {
        assertTransition(a, b as RunStatus, c as RunStatus);
      } catch (error) {
        return error as StoreError;
      }
      return new StoreError('STORE_RUN_FINISHED', `run ${JSON.stringify(a)} is already ${b}; it cannot become ${c}`);
    case 'THREAD_EXISTS':
      return new StoreError('STORE_THREAD_EXISTS', `thread ${JSON.stringify(a)} already exists`);
    case 'AUDIT_EXISTS':
      return new InvalidStoreInputError(`appendAudit violates a store constraint: audit id ${JSON.stringify(a)} already exists`);
    case 'LOCK_LOST':
      return new LockLostError(a);
    case 'RUN_EXISTS':
      return new InvalidStoreInputError(`createRun violates a store constraint: run id ${JSON.stringify(a)} already exists`);
    default:
      return new StoreError('STORE_FAILED', `Redis thread store script failed: ${code} ${a}`.trim());
  }
}

/** A validated state object as HSET field/value pairs: top-level key → JSON text. */
function statePairs(state: JsonObject): string[] {
  const pairs: string[] = [];
  for (const [key, value] of Object.entries(state)) pairs.push(key, JSON.stringify(value));
  return pairs;
}

function pairsOf(flat: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
  return out;
}

/** HGETALL's flat array as a map (a Map, so no field name can touch a prototype). */
function fields(flat: readonly string[]): Map<string, string> {
  return new Map(pairsOf(flat));
}

function decodeState(flat: readonly string[]): JsonObject {
  return Object.fromEntries(pairsOf(flat).map(([key, json]) => [key, JSON.parse(json) as unknown]));
}

function threadFromFields(f: Map<string, string>, stateFlat: readonly string[]): ThreadRecord {
  return {
    id: f.get('id')!,
    createdAt: f.get('createdAt')!,
    updatedAt: f.get('updatedAt')!,
    state: decodeState(stateFlat),
    metadata: JSON.parse(f.get('metadata') ?? '{}') as JsonObject,
    ...(f.has('tenant') ? { tenant: f.get('tenant')! } : {}),
  };
}

function runFromFields(f: Map<string, string>): RunRecord {
  const error = f.get('error');
  return {
    id: f.get('id')!,
    threadId: f.get('threadId')!,
    agentId: f.get('agentId')!,
    agentVersion: f.get('agentVersion')!,
    status: f.get('status') as RunStatus,
    parentRunId: f.get('parentRunId') ?? null,
    createdAt: f.get('createdAt')!,
    updatedAt: f.get('updatedAt')!,
    error: error ? (JSON.parse(error) as { code: string; message: string }) : null,
    traceId: f.get('traceId') ?? null,
  };
}
