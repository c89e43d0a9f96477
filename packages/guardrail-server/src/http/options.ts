import type { GuardrailRequest, GuardrailResponse, GuardrailValidator } from '@baton/manifest';

/** Where the service writes its JSON log lines (one line per `write`). */
export interface LogDestination {
  write(line: string): void;
}

/** A validator the service can call; a synchronous `validateSync` is used when present. */
export type ServiceValidator = GuardrailValidator & {
  validateSync?(request: GuardrailRequest): GuardrailResponse;
};

/** Options for {@link createGuardrailServer}. */
export interface GuardrailServerOptions {
  /** Decides on each request: the in-process engine, or any `GuardrailValidator`. */
  validator: ServiceValidator;
  /** Address to bind; default `127.0.0.1`. A non-loopback host requires `token`. */
  host?: string;
  /** Port to bind; default 8787; 0 picks a free port. */
  port?: number;
  /** Bearer token every `POST /v1/validate` must carry. Required off loopback. */
  token?: string;
  /** Largest accepted request body in bytes; default 1 MiB. Larger bodies get 413. */
  bodyLimitBytes?: number;
  /** Deepest accepted JSON nesting of arrays/objects; default 64. Deeper bodies get 400. */
  maxJsonDepth?: number;
  /** JSON logs: `false` (default) for none, `true` for stdout, or a destination and level. */
  logger?: boolean | { destination?: LogDestination; level?: 'debug' | 'info' | 'warn' | 'error' };
}

export const DEFAULTS = {
  host: '127.0.0.1',
  port: 8787,
  bodyLimitBytes: 1024 * 1024,
  maxJsonDepth: 64,
} as const;

/** Hard ceiling so a configuration can't re-open the recursion risk the depth limit closes. */
export const MAX_JSON_DEPTH_CEILING = 512;
