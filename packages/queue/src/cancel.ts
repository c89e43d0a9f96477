import type { Redis } from 'ioredis';
import { QUEUE_DEFAULTS } from './defaults.js';

/**
 * Cross-process cancellation. BullMQ cancels a job only inside the worker that holds it, so a
 * cancel request is a marker key (for a job that has not started yet) plus a message on a
 * channel every worker listens to (for a job that is running somewhere).
 */
export function cancelChannel(prefix: string): string {
  return `${prefix}:baton:cancel`;
}

export function cancelMarkerKey(prefix: string, jobId: string): string {
  return `${prefix}:baton:cancelled:${jobId}`;
}

/** Asks whichever worker holds `jobId` to stop it, and marks it so a worker that picks it up later does not start it. */
export async function requestCancel(redis: Redis, prefix: string, jobId: string, reason: string): Promise<void> {
  await redis.set(cancelMarkerKey(prefix, jobId), reason.slice(0, 500), 'EX', QUEUE_DEFAULTS.cancelMarkerTtlSeconds);
  await redis.publish(cancelChannel(prefix), jobId);
}

export async function isCancelRequested(redis: Redis, prefix: string, jobId: string): Promise<boolean> {
  return (await redis.exists(cancelMarkerKey(prefix, jobId))) === 1;
}
