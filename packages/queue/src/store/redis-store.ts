import {
  ABANDONED_RUN_MESSAGE,
  InvalidStoreInputError,
  RUNNER_CRASHED,
  RunNotFoundError,
  StoreError,
  StoreUnavailableError,
  ThreadNotFoundError,
  assertTransition,
  checkAuditInput,
  checkError,
  checkId,
  checkIdempotencyKey,
  checkLockOptions,
  checkMergeOptions,
  checkStatus,
  defaultIdGenerator,
  encodeObject,
  isPlainObject,
  waitForLock,
  createHeldLock,
  type AuditRecord,
  type JsonObject,
  type RunRecord,
  type RunStatus,
  type StoreWrite,
  type ThreadItem,
  type ThreadLock,
  type ThreadRecord,
  type ThreadStore,
  type UpdateRunInput,
} from '@baton/runner';
import { Redis } from 'ioredis';
import { redactUrl, toStoreError } from './errors.js';
import { keyLayout } from './keys.js';
import { redisSuspendedRuns } from './suspended-runs.js';
import { REDIS_STORE_DEFAULTS, resolveOptions, type RedisThreadStoreOptions, type ResolvedOptions } from './options.js';
import { ACQUIRE_LOCK, CREATE_RUN, CREATE_THREAD, READ_HASHES, READ_THREAD, RECOVER_RUNS, RELEASE_LOCK, RENEW_LOCK, WRITE, type LuaScript } from './scripts.js';

/**
 * A thread store on Redis, with the SQLite store's guarantees: every method is one Lua script
 * (atomic on the server), `writeBatch` applies all of its writes or none in one script, state is
 * a hash of top-level key → JSON text so concurrent merges never lose a key, items are numbered
 * per thread, a finished run never changes status, and thread locks are `SET NX PX` leases that
 * the holder renews while it lives. Many processes on many machines may share one Redis.
 *
 * Redis failures surface as {@link StoreUnavailableError} (code `STORE_UNAVAILABLE`). Needs a
 * standalone Redis (or a Sentinel-managed primary), 6.2 or newer; see the package README.
 */
export function createRedisThreadStore(options: RedisThreadStoreOptions): ThreadStore {
  if (!isPlainObject(options)) throw new InvalidStoreInputError('createRedisThreadStore: options must be an object');
  const resolved = resolveOptions(options);
  const clock = options.clock ?? (() => new Date());
  const newId = options.idGenerator ?? defaultIdGenerator;
  const now = () => clock().toISOString();
  const keys = keyLayout(resolved.prefix);
  const { redis, owned, target } = openConnection(options.connection, resolved);

  let lastConnectionError: Error | undefined;
  if (owned) {
    // Without a listener ioredis prints every failed reconnect; keep the last one for messages.
    redis.on('error', (error: Error) => void (lastConnectionError = error));
    redis.on('ready', () => void (lastConnectionError = undefined));
  }

  let closed = false;
  const heldLocks = new Set<ThreadLock>();
  let waiters: (() => void)[] = [];
  const notifyReleased = () => {
    const current = waiters;
    waiters = [];
    for (const wake of current) wake();
  };

  const closedError = (what: string) => new StoreError('STORE_CLOSED', `thread store is closed (${what})`);
  const mapError = (error: unknown, what: string) => toStoreError(error, what, target, () => lastConnectionError);

  /** Runs one store operation, mapping every failure to a StoreError. */
  const op = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    if (closed) throw closedError(what);
    try {
      return await fn();
    } catch (error) {
      throw mapError(error, what);
    }
  };

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

  // ---- writes: validated and encoded here, applied by the WRITE script ----

  interface PreparedMerge {
    kind: 'M';
    threadId: string;
    pairs: string[];
    replace: boolean;
    key: string | undefined;
  }
  interface PreparedItems {
    kind: 'I';
    threadId: string;
    runId: string;
    encoded: string[];
  }
  interface PreparedAudit {
    kind: 'A';
    id: string;
    threadId: string;
    runId: string | null;
    auditKind: string;
    data: string;
  }
  interface PreparedUpdate {
    kind: 'U';
    runId: string;
    status: RunStatus | undefined;
    error: { code: string; message: string } | null | undefined;
  }
  type Prepared = PreparedMerge | PreparedItems | PreparedAudit | PreparedUpdate;

  const prepareMerge = (threadId: unknown, value: unknown, replace: boolean, key: string | undefined): PreparedMerge => {
    const encoded = encodeObject(value, replace ? 'thread state' : 'state patch');
    return { kind: 'M', threadId: checkId(threadId, 'thread id'), pairs: statePairs(encoded), replace, key };
  };
  const prepareItems = (threadId: unknown, runId: unknown, items: unknown): PreparedItems => {
    checkId(threadId, 'thread id');
    checkId(runId, 'run id');
    if (!Array.isArray(items)) throw new InvalidStoreInputError('items must be an array of JSON objects');
    const encoded = items.map((item: unknown, index) => encodeObject(item, `items[${index}]`));
    return { kind: 'I', threadId: threadId as string, runId: runId as string, encoded };
  };
  const prepareAudit = (record: unknown): PreparedAudit => {
    const { kind: auditKind, ...checked } = checkAuditInput(record, () => newId('audit'));
    return { kind: 'A', ...checked, auditKind };
  };
  const prepareUpdate = (runId: unknown, input: UpdateRunInput): PreparedUpdate => {
    checkId(runId, 'run id');
    if (!isPlainObject(input)) throw new InvalidStoreInputError('updateRun input must be an object');
    const status = input.status === undefined ? undefined : checkStatus(input.status, 'run status');
    const error = input.error === undefined ? undefined : checkError(input.error, 'run error');
    return { kind: 'U', runId: runId as string, status, error };
  };

  /** Finds the thread of every run an update names (runs never move); RunNotFoundError before any write. */
  const threadsOfRuns = async (writes: readonly Prepared[]): Promise<Map<string, string>> => {
    const runIds = [...new Set(writes.flatMap((w) => (w.kind === 'U' ? [w.runId] : [])))];
    const found = new Map<string, string>();
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
  const applyWrites = async (writes: readonly Prepared[], mode: 'one' | 'batch'): Promise<{ results: unknown[]; at: string }> => {
    const runThreads = await threadsOfRuns(writes);
    const at = now();
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
    const args: string[] = [mode, String(writes.length)];
    for (const w of writes) {
      switch (w.kind) {
        case 'M':
          args.push('M', k(keys.thread(w.threadId)), k(keys.state(w.threadId)), k(keys.applied(w.threadId)));
          args.push(w.replace ? '1' : '0', w.key ?? '', w.threadId, at, String(w.pairs.length / 2), ...w.pairs);
          break;
        case 'I': {
          const meta = `,"threadId":${JSON.stringify(w.threadId)},"runId":${JSON.stringify(w.runId)},"createdAt":${JSON.stringify(at)}`;
          args.push('I', k(keys.thread(w.threadId)), k(keys.items(w.threadId)), k(keys.run(w.threadId, w.runId)), k(keys.runThreads));
          args.push(w.threadId, w.runId, at, meta, String(w.encoded.length), ...w.encoded);
          break;
        }
        case 'A': {
          const json = `{"id":${JSON.stringify(w.id)},"threadId":${JSON.stringify(w.threadId)},"runId":${JSON.stringify(w.runId)},"kind":${JSON.stringify(w.auditKind)},"createdAt":${JSON.stringify(at)},"data":${w.data}}`;
          args.push('A', k(keys.thread(w.threadId)), k(keys.audit(w.threadId)), k(keys.auditIds));
          args.push(w.runId === null ? '0' : k(keys.run(w.threadId, w.runId)), k(keys.runThreads), w.threadId, w.id, w.runId ?? '', json);
          break;
        }
        case 'U': {
          const threadId = runThreads.get(w.runId)!;
          const errorMode = w.error === undefined ? 'k' : w.error === null ? 'n' : 's';
          args.push('U', k(keys.run(threadId, w.runId)), k(keys.activeRuns), w.runId, w.status ?? '', errorMode);
          args.push(w.error ? JSON.stringify(w.error) : '', at, threadId);
          break;
        }
      }
    }
    const reply = await evalChecked(WRITE, scriptKeys, args);
    return { results: reply[1] as unknown[], at };
  };

  const writeState = (what: 'mergeState' | 'replaceState', threadId: unknown, value: unknown, options: unknown) =>
    op(what, async () => {
      const replace = what === 'replaceState';
      const prepared = prepareMerge(threadId, value, replace, undefined);
      prepared.key = checkMergeOptions(options, `${what} options`);
      const { results } = await applyWrites([prepared], 'one');
      return decodeState(results[0] as string[]);
    });

  // ---- thread locks ----

  const lockValue = (token: string, owner: string) => JSON.stringify([token, owner]);
  const holderOf = (value: unknown): string | undefined => {
    try {
      const parsed = JSON.parse(String(value)) as unknown;
      return Array.isArray(parsed) && typeof parsed[1] === 'string' ? parsed[1] : undefined;
    } catch {
      return undefined;
    }
  };

  const store: ThreadStore = {
    ...redisSuspendedRuns({ redis, keys, prefix: resolved.prefix, op, now }),
    async createThread(input = {}) {
      return op('createThread', async () => {
        const id = input.id === undefined ? newId('thread') : checkId(input.id, 'thread id');
        const pairs = statePairs(encodeObject(input.state ?? {}, 'thread state'));
        const metadata = encodeObject(input.metadata ?? {}, 'thread metadata');
        const tenant = input.tenant === undefined ? undefined : checkId(input.tenant, 'thread tenant');
        const at = now();
        await evalChecked(CREATE_THREAD, [keys.thread(id), keys.state(id)], [id, at, metadata, tenant ?? '', ...pairs]);
        return { id, createdAt: at, updatedAt: at, state: decodeState(pairs), metadata: JSON.parse(metadata) as JsonObject, ...(tenant !== undefined ? { tenant } : {}) };
      });
    },

    async getThread(threadId) {
      return op('getThread', async () => {
        checkId(threadId, 'thread id');
        const reply = (await evalScript(READ_THREAD, [keys.thread(threadId), keys.state(threadId)], [])) as string[][];
        if (reply.length === 0) return undefined;
        return threadFromFields(fields(reply[0]!), reply[1]!);
      });
    },

    async mergeState(threadId, patch, mergeOptions) {
      return writeState('mergeState', threadId, patch, mergeOptions);
    },

    async replaceState(threadId, state, replaceOptions) {
      return writeState('replaceState', threadId, state, replaceOptions);
    },

    async createRun(threadId, input) {
      return op('createRun', async () => {
        checkId(threadId, 'thread id');
        if (!isPlainObject(input)) throw new InvalidStoreInputError('createRun input must be an object');
        const agentId = checkId(input.agentId, 'agentId');
        const agentVersion = checkId(input.agentVersion, 'agentVersion');
        const status = checkStatus(input.status ?? 'queued', 'run status');
        const parentRunId = input.parentRunId ? checkId(input.parentRunId, 'parentRunId') : '';
        const traceId = input.traceId ?? null;
        if (traceId !== null && typeof traceId !== 'string') throw new InvalidStoreInputError('traceId must be a string or null');
        const id = newId('run');
        const runKeys = [keys.thread(threadId), keys.runs(threadId), keys.run(threadId, id), keys.runThreads, keys.activeRuns];
        if (parentRunId) runKeys.push(keys.run(threadId, parentRunId));
        const reply = await evalChecked(CREATE_RUN, runKeys, [
          id,
          threadId,
          agentId,
          agentVersion,
          status,
          now(),
          parentRunId,
          traceId === null ? '0' : '1',
          traceId ?? '',
        ]);
        return runFromFields(fields(reply[1] as string[]));
      });
    },

    async updateRun(runId, input) {
      return op('updateRun', async () => {
        const { results } = await applyWrites([prepareUpdate(runId, input)], 'one');
        return runFromFields(fields(results[0] as string[]));
      });
    },

    async getRun(runId) {
      return op('getRun', async () => {
        checkId(runId, 'run id');
        const threadId = (await redis.call('hget', [keys.runThreads, runId])) as string | null;
        if (typeof threadId !== 'string') return undefined;
        const [flat] = (await evalScript(READ_HASHES, [keys.run(threadId, runId)], [])) as string[][];
        return flat && flat.length > 0 ? runFromFields(fields(flat)) : undefined;
      });
    },

    async listRuns(threadId) {
      return op('listRuns', async () => {
        checkId(threadId, 'thread id');
        const runIds = (await redis.call('lrange', [keys.runs(threadId), 0, -1])) as string[];
        if (runIds.length === 0) return [];
        const hashes = (await evalScript(READ_HASHES, runIds.map((runId) => keys.run(threadId, runId)), [])) as string[][];
        return hashes.filter((flat) => flat.length > 0).map((flat) => runFromFields(fields(flat)));
      });
    },

    async appendItems(threadId, runId, items) {
      return op('appendItems', async () => {
        const prepared = prepareItems(threadId, runId, items);
        const { results, at } = await applyWrites([prepared], 'one');
        const first = Number(results[0]);
        return prepared.encoded.map((item, index) => ({ seq: first + index, threadId, runId, createdAt: at, item: JSON.parse(item) as JsonObject }));
      });
    },

    async listItems(threadId) {
      return op('listItems', async () => {
        checkId(threadId, 'thread id');
        const entries = (await redis.call('lrange', [keys.items(threadId), 0, -1])) as string[];
        return entries.map((entry) => JSON.parse(entry) as ThreadItem);
      });
    },

    async appendAudit(record) {
      return op('appendAudit', async () => {
        const prepared = prepareAudit(record);
        const { at } = await applyWrites([prepared], 'one');
        const audit: AuditRecord = {
          id: prepared.id,
          threadId: prepared.threadId,
          runId: prepared.runId,
          kind: prepared.auditKind,
          createdAt: at,
          data: JSON.parse(prepared.data) as JsonObject,
        };
        return audit;
      });
    },

    async listAudit(threadId) {
      return op('listAudit', async () => {
        checkId(threadId, 'thread id');
        const entries = (await redis.call('lrange', [keys.audit(threadId), 0, -1])) as string[];
        return entries.map((entry) => JSON.parse(entry) as AuditRecord);
      });
    },

    async writeBatch(writes) {
      return op('writeBatch', async () => {
        if (!Array.isArray(writes)) throw new InvalidStoreInputError('writeBatch: writes must be an array');
        // Validate and encode everything first, then one script applies all of it or nothing.
        const prepared = writes.map((w: StoreWrite): Prepared => {
          switch (w?.op) {
            case 'appendItems':
              return prepareItems(w.threadId, w.runId, w.items);
            case 'appendAudit':
              return prepareAudit(w.record);
            case 'updateRun':
              return prepareUpdate(w.runId, w.input);
            case 'mergeState':
              return prepareMerge(w.threadId, w.patch, false, checkIdempotencyKey(w.idempotencyKey));
            default:
              throw new InvalidStoreInputError(`writeBatch: unknown write ${JSON.stringify((w as { op?: unknown })?.op)}`);
          }
        });
        if (prepared.length === 0) return;
        await applyWrites(prepared, 'batch');
      });
    },

    async acquireThreadLock(threadId, lockOptions) {
      return op('acquireThreadLock', async () => {
        checkId(threadId, 'thread id');
        if (!isPlainObject(lockOptions)) throw new InvalidStoreInputError('acquireThreadLock options must be an object');
        const { owner, leaseMs, waitMs } = checkLockOptions({
          ...lockOptions,
          leaseMs: lockOptions.leaseMs ?? resolved.lockLeaseMs,
          waitMs: lockOptions.waitMs ?? resolved.lockWaitMs,
        });
        const lease = Math.max(1, Math.ceil(leaseMs));
        const lockKey = keys.lock(threadId);
        const value = lockValue(newId('lock'), owner);
        let holder: string | undefined;
        await waitForLock({
          threadId,
          waitMs,
          signal: lockOptions.signal,
          holder: () => holder,
          released: () => new Promise<void>((resolve) => waiters.push(resolve)),
          attempt: async () => {
            if (closed) throw closedError('acquireThreadLock');
            const reply = (await evalScript(ACQUIRE_LOCK, [lockKey, keys.thread(threadId)], [value, lease])) as unknown[];
            if (reply[0] === 'ok') return true;
            if (reply[0] === 'err') throw new ThreadNotFoundError(threadId);
            holder = holderOf(reply[1]);
            return undefined;
          },
        });
        return makeLock(threadId, owner, lockKey, value, lease, lockOptions.autoRenew !== false);
      });
    },

    async recoverAbandonedRuns() {
      return op('recoverAbandonedRuns', async () => {
        const [flat] = (await evalScript(READ_HASHES, [keys.activeRuns], [])) as string[][];
        const active = pairsOf(flat ?? []);
        const error = JSON.stringify({ code: RUNNER_CRASHED, message: ABANDONED_RUN_MESSAGE });
        let failed = 0;
        for (let i = 0; i < active.length; i += REDIS_STORE_DEFAULTS.recoverBatchSize) {
          const chunk = active.slice(i, i + REDIS_STORE_DEFAULTS.recoverBatchSize);
          const scriptKeys = [keys.activeRuns, ...chunk.flatMap(([runId, threadId]) => [keys.run(threadId, runId), keys.lock(threadId)])];
          failed += Number(await evalScript(RECOVER_RUNS, scriptKeys, [error, now(), ...chunk.map(([runId]) => runId)]));
        }
        return failed;
      });
    },

    async close() {
      if (closed) return;
      for (const lock of [...heldLocks]) await lock.release().catch(() => undefined);
      closed = true;
      notifyReleased();
      if (!owned) return;
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis.disconnect();
    },
  };

  function makeLock(threadId: string, owner: string, lockKey: string, value: string, lease: number, autoRenew: boolean): ThreadLock {
    const renew = async (): Promise<boolean> => {
      if (closed) return false;
      return op('renewThreadLock', async () => Number(await evalScript(RENEW_LOCK, [lockKey], [value, lease])) === 1);
    };
    // A failed renewal (Redis briefly unreachable) is retried on the next tick; a lost lock stops it.
    const lock = createHeldLock({
      threadId,
      owner,
      leaseMs: lease,
      autoRenew,
      renew,
      onRenewError: 'retry',
      async release() {
        heldLocks.delete(lock);
        if (closed) return;
        try {
          await evalScript(RELEASE_LOCK, [lockKey], [value]);
        } catch (error) {
          // Unreachable Redis: the lease runs out on its own, so the lock still frees itself.
          const mapped = mapError(error, 'releaseThreadLock');
          if (!(mapped instanceof StoreUnavailableError)) throw mapped;
        } finally {
          notifyReleased();
        }
      },
    });
    heldLocks.add(lock);
    return lock;
  }

  return store;
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
  if (connection !== null && typeof connection === 'object' && typeof (connection as Redis).call === 'function' && typeof (connection as Redis).evalsha === 'function') {
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
    case 'RUN_EXISTS':
      return new InvalidStoreInputError(`createRun violates a store constraint: run id ${JSON.stringify(a)} already exists`);
    default:
      return new StoreError('STORE_FAILED', `Redis thread store script failed: ${code} ${a}`.trim());
  }
}

/** A validated, encoded state object as HSET field/value pairs: top-level key → JSON text. */
function statePairs(encoded: string): string[] {
  const pairs: string[] = [];
  for (const [key, value] of Object.entries(JSON.parse(encoded) as JsonObject)) pairs.push(key, JSON.stringify(value));
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
