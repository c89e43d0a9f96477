import { sha256Hex } from '../edits/apply-edits.js';

/** A deterministic task_id (UUID-shaped, RFC 9562 version 8) from an idempotency key. */
export function taskIdFromKey(key: string): string {
  const h = sha256Hex(`baton.task_id\0${key}`);
  const variant = ((parseInt(h[16] as string, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * The idempotency key of a keyed task's subagent run, per attempt: short and made of characters
 * every runner accepts (the Baton Runner: 1-120 of `A-Za-z0-9_.:-/`).
 */
export function subagentRunKey(key: string, attempt: number): string {
  return `delegation:${taskIdFromKey(key)}:attempt-${attempt}`;
}
