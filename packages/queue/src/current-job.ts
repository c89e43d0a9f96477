import { AsyncLocalStorage } from 'node:async_hooks';

/** The job a worker is processing, so jobs it creates (delegated subtasks) become its children. */
export interface CurrentJob {
  id: string;
  /** `<prefix>:<queue name>`, as BullMQ's `parent.queue` option wants it. */
  queueQualifiedName: string;
}

export const currentJob = new AsyncLocalStorage<CurrentJob>();
