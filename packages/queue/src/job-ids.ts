import { createHash, randomUUID } from 'node:crypto';

/**
 * BullMQ job ids from idempotency keys: the same key always gives the same id (so a retried
 * producer re-adds the same job, which BullMQ ignores), and the id is safe whatever the key
 * holds (BullMQ refuses `:` in custom ids).
 */
export function jobIdFor(kind: 'run' | 'task' | 'approvals', idempotencyKey: string | undefined): string {
  if (idempotencyKey === undefined) return `${kind}_${randomUUID().replace(/-/g, '')}`;
  return `${kind}_${createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 32)}`;
}
