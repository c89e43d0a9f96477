import type { AuditRecord, JsonObject, StoreWrite, ThreadStore, UpdateRunInput } from '../store/types.js';

/**
 * The writes of one `run()` call. With a store that has `writeBatch`, appends and run updates
 * are queued and committed together, in order, in one transaction at each flush; the runner
 * flushes before anything leaves the process or reads the store (a model call, a tool, a handoff
 * gate, a subprocess, the end of an agent run), so nothing crosses a boundary before its records
 * are durable. Without `writeBatch` every write goes straight to the store, as before.
 */
export class WriteBuffer {
  private queue: StoreWrite[] = [];
  private readonly batch: ((writes: readonly StoreWrite[]) => Promise<void>) | undefined;

  constructor(private readonly store: ThreadStore) {
    this.batch = typeof store.writeBatch === 'function' ? store.writeBatch.bind(store) : undefined;
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

  /** Commits everything queued so far as one atomic change. */
  async flush(): Promise<void> {
    if (!this.batch || this.queue.length === 0) return;
    const writes = this.queue;
    this.queue = [];
    await this.batch(writes);
  }

  /** How many writes are queued. */
  get pending(): number {
    return this.queue.length;
  }
}
