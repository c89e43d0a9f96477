/** Minimal structured logger (compatible with @baton/tracing's `createLogger`). */
export interface RunnerLogger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export const noopLogger: RunnerLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };
