import { StoreError, StoreUnavailableError } from '@baton/runner/store-kit';

/**
 * Server replies that mean "Redis is there but not serving writes right now" (loading its data,
 * a read-only replica after a failover, a busy script, out of memory): infrastructure, retryable.
 */
const UNAVAILABLE_REPLIES = /^(LOADING|READONLY|MASTERDOWN|BUSY|TRYAGAIN|CLUSTERDOWN|NOREPLICAS|OOM)\b/;

/**
 * Maps what ioredis throws to store errors: StoreErrors pass through; lost connections,
 * timeouts and the unavailable replies above become StoreUnavailableError (with the ioredis
 * error as `cause`); any other server reply is a StoreError `STORE_FAILED`.
 */
export function toStoreError(error: unknown, what: string, target: string, lastConnectionError: () => Error | undefined): StoreError {
  if (error instanceof StoreError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const isReply = error instanceof Error && error.name === 'ReplyError';
  if (isReply && !UNAVAILABLE_REPLIES.test(message)) {
    return new StoreError('STORE_FAILED', `Redis thread store operation ${what} failed: ${message}`, { cause: error });
  }
  if (isReply) {
    return new StoreUnavailableError(`Redis thread store is unavailable (${what}): Redis at ${target} is not serving: ${message}`, {
      cause: error,
    });
  }
  // A command flushed because the connection is down says only that; the connection error says why.
  const last = lastConnectionError();
  const flushed = error instanceof Error && (error.name === 'MaxRetriesPerRequestError' || message === 'Connection is closed.');
  const detail = flushed && last ? `${last.message} (${message.replace(/\. Refer to .*$/, '')})` : message;
  return new StoreUnavailableError(`Redis thread store is unavailable (${what}): cannot reach Redis at ${target}: ${detail}`, {
    cause: error,
  });
}

/** `redis://user:secret@host:port/db` → `redis://user:***@host:port/db`, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<unparseable Redis URL>';
  }
}
