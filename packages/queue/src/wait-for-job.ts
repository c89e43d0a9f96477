import type { Job, QueueEvents } from 'bullmq';
import { QueueJobFailedError, QueueTimeoutError } from './errors.js';

/**
 * Waits for a job's result. A job that failed after its retries rejects with
 * QueueJobFailedError; no result within `timeoutMs` rejects with QueueTimeoutError.
 */
export async function waitForJob<T>(job: Job, events: QueueEvents, timeoutMs: number): Promise<T> {
  try {
    return (await job.waitUntilFinished(events, timeoutMs)) as T;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/timed out before finishing/i.test(message)) throw new QueueTimeoutError(job.id ?? '?', timeoutMs);
    throw new QueueJobFailedError(job.id ?? '?', `job ${job.id ?? '?'} failed on the workers after its retries: ${message}`, {
      cause: error,
    });
  }
}
