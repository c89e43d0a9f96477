import type { ConnectionOptions } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import { QueueConfigError } from './errors.js';

/** A Redis to connect to: a `redis://` / `rediss://` URL or ioredis options. */
export type RedisConnection = string | RedisOptions;

/**
 * ioredis options from a URL (`redis://[user:password@]host[:port][/db]`, `rediss://` for TLS),
 * with a clear error naming what is wrong. Passwords never appear in messages.
 */
export function redisOptions(connection: RedisConnection, what = 'Redis connection'): RedisOptions {
  if (typeof connection !== 'string') {
    if (!connection || typeof connection !== 'object') throw new QueueConfigError(`${what} must be a redis:// URL or ioredis options`);
    return { ...connection };
  }
  let url: URL;
  try {
    url = new URL(connection);
  } catch {
    throw new QueueConfigError(`${what}: ${JSON.stringify(redact(connection))} is not a URL; expected redis://host:port[/db]`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new QueueConfigError(`${what}: scheme ${url.protocol} is not supported; use redis:// or rediss://`);
  }
  const port = url.port === '' ? 6379 : Number(url.port);
  const dbText = url.pathname.replace(/^\//, '');
  const db = dbText === '' ? 0 : Number(dbText);
  if (!Number.isInteger(db) || db < 0)
    throw new QueueConfigError(`${what}: database ${JSON.stringify(dbText)} must be a non-negative integer`);
  const options: RedisOptions = { host: url.hostname.replace(/^\[(.*)\]$/, '$1') || '127.0.0.1', port, db };
  if (url.username) options.username = decodeURIComponent(url.username);
  if (url.password) options.password = decodeURIComponent(url.password);
  if (url.protocol === 'rediss:') options.tls = {};
  return options;
}

/** The URL without its password, for logs and messages. */
export function redact(connection: RedisConnection): string {
  if (typeof connection !== 'string') return `redis://${connection.host ?? '127.0.0.1'}:${connection.port ?? 6379}`;
  return connection.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

/**
 * Options (not a client) for BullMQ's blocking connections (workers, queue events), so BullMQ
 * owns the connection and closes it with the worker. BullMQ requires `maxRetriesPerRequest:
 * null` there: a Redis restart pauses work instead of failing it.
 */
export function blockingOptions(connection: RedisConnection): ConnectionOptions {
  // These are ioredis options; BullMQ's ConnectionOptions type lists a narrower RedisOptions of its own.
  return { ...redisOptions(connection), maxRetriesPerRequest: null } as ConnectionOptions;
}

/**
 * A client for producers and Baton's own commands: commands fail fast when Redis is down, so
 * callers hear about it (through the rejected command; the client's own error events, emitted
 * while it reconnects, are not a second report). The caller disconnects it.
 */
export function producerConnection(connection: RedisConnection): Redis {
  const client = new Redis({ ...redisOptions(connection), maxRetriesPerRequest: 2, enableOfflineQueue: true });
  client.on('error', () => undefined);
  return client;
}
