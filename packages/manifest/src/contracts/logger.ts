/**
 * The one structured logger contract (was `RunnerLogger`, `QueueLogger` and `DelegationLogger`):
 * `@baton/tracing`'s `createLogger` fits. Baton packages log only `info` and `warn` through it;
 * `error` is optional so a logger with just those two is accepted everywhere.
 */
export interface BatonLogger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error?(msg: string, fields?: Record<string, unknown>): void;
}
