import { randomUUID } from 'node:crypto';
import type { StoreError } from '../store/errors.js';
import type {
  AuditRecord,
  CreateRunInput,
  JsonObject,
  StoreWrite,
  ThreadLock,
  ThreadRecord,
  ThreadStore,
  UpdateRunInput,
  WriteBatchOptions,
} from '../store/types.js';

/**
 * The writes of one `run()` call. With a store that has `writeBatch`, run creation, appends and
 * run updates are queued and committed together, in order, in one transaction at each flush; the
 * runner flushes before anything leaves the process or reads the store (a model call, a tool, a
 * handoff gate, a subprocess, the end of the call), so nothing crosses a boundary before its
 * records are durable. A run therefore reaches the store with its first turn's writes: a process
 * killed before that commit leaves no trace of the run, one killed after it leaves a run the next
 * lock holder (or `recoverAbandonedRuns`) records as crashed. Without `writeBatch` every write
 * goes straight to the store, as before. The call's last commit also reads the thread and releases
 * its lock in the same change when the store can (see {@link WriteBuffer.finish}).
 */
export class WriteBuffer {
  private queue: StoreWrite[] = [];
  private readonly batch: ((writes: readonly StoreWrite[], options?: WriteBatchOptions) => Promise<void>) | undefined;

  /**
   * `lock`: the call's thread lock, which fences every batch (a holder that lost its lease writes
   * nothing: `STORE_LOCK_LOST`). A store whose `writeBatch` takes no options ignores it.
   */
  constructor(
    private readonly store: ThreadStore,
    readonly lock?: ThreadLock,
  ) {
    this.batch = typeof store.writeBatch === 'function' ? store.writeBatch.bind(store) : undefined;
  }

  /**
   * Creates a run and returns its id: queued under a new `run_…` id when batching (the store
   * checks the thread, the parent and that the id is free when the batch commits), else at once.
   */
  async createRun(threadId: string, input: CreateRunInput): Promise<string> {
    if (!this.batch) return (await this.store.createRun(threadId, input)).id;
    const id = `run_${randomUUID().replace(/-/g, '')}`;
    this.queue.push({ op: 'createRun', threadId, input: { ...input, id } });
    return id;
  }

  async appendItems(threadId: string, runId: string, items: JsonObject[]): Promise<void> {
    if (this.batch) this.queue.push({ op: 'appendItems', threadId, runId, items });
    else await this.store.appendItems(threadId, runId, items);
  }

  async appendAudit(record: Omit<AuditRecord, 'id' | 'createdAt'> & { id?: string }): Promise<void> {
    if (this.batch) this.queue.push({ op: 'appendAudit', record });
    else await this.store.appendAudit(record);
  }

  async updateRun(runId: string, input: UpdateRunInput): Promise<void> {
    if (this.batch) this.queue.push({ op: 'updateRun', runId, input });
    else await this.store.updateRun(runId, input);
  }

  /**
   * Queued with the rest when batching; returns nothing (use the store directly for the new
   * state). With `idempotencyKey` the store applies the merge at most once per key.
   */
  async mergeState(threadId: string, patch: JsonObject, idempotencyKey?: string): Promise<void> {
    if (this.batch) this.queue.push({ op: 'mergeState', threadId, patch, ...(idempotencyKey !== undefined ? { idempotencyKey } : {}) });
    else await this.store.mergeState(threadId, patch, idempotencyKey !== undefined ? { idempotencyKey } : undefined);
  }

  /**
   * Removes a resumed run's suspended record with the run's final writes (queued when batching,
   * so it commits in the same change as the run's final status; else at once).
   */
  async deleteSuspendedRun(threadId: string, runId: string): Promise<void> {
    if (this.batch) this.queue.push({ op: 'deleteSuspendedRun', threadId, runId });
    else await this.store.takeSuspendedRun?.(runId);
  }

  /** Commits everything queued so far as one atomic change. */
  async flush(): Promise<void> {
    if (!this.batch || this.queue.length === 0) return;
    const writes = this.queue;
    this.queue = [];
    await this.batch(writes, this.lock ? { lock: this.lock } : undefined);
  }

  /**
   * Ends the call: commits what is queued, reads the thread (the state the result reports) and
   * releases `lock`, in one atomic change when the store has `commitAndRelease` (and batches),
   * else flushes and reads with the lock still held. `onReleased` is called when the lock is
   * handed to the store to release (the store frees it even when the writes fail);
   * `onReleaseError` when the writes committed but the release failed.
   */
  async finish(
    lock: ThreadLock,
    hooks: { onReleased(): void; onReleaseError(error: StoreError): void },
  ): Promise<ThreadRecord | undefined> {
    if (this.batch && typeof this.store.commitAndRelease === 'function') {
      const writes = this.queue;
      this.queue = [];
      hooks.onReleased();
      return this.store.commitAndRelease({ writes, lock, onReleaseError: hooks.onReleaseError });
    }
    await this.flush();
    return this.store.getThread(lock.threadId);
  }

  /** How many writes are queued. */
  get pending(): number {
    return this.queue.length;
  }
}
