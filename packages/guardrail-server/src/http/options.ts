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
  /** Bearer token every `POST /v1/validate` must carry, at least 16 characters. Required off loopback. */
  token?: string;
  /** Largest accepted request body in bytes; default 1 MiB. Larger bodies get 413. */
  bodyLimitBytes?: number;
  /** Deepest accepted JSON nesting of arrays/objects; default 64. Deeper bodies get 400. */
  maxJsonDepth?: number;
  /**
   * Worker threads that run the detector engine off the event loop, so a heavy request never
   * delays `/healthz` or other requests. Used when `validator` is an engine from
   * `createGuardrailEngine`; default: the machine's parallelism, at least 1, at most 4. `0` runs the
   * engine in the event loop (as `validateSync`).
   */
  workers?: number;
  /**
   * Bodies of at most this many bytes skip the worker pool and are decided in the event loop:
   * for them the hop to a worker costs more than the inspection (about 0.1 ms per KB here, see
   * bench/README.md), and their size bounds the work (the engine's time budget still applies).
   * Larger bodies go to the workers. Default 8,192; `0` sends every request to the pool.
   */
  inlineMaxBytes?: number;
  /** Requests waiting for a worker before new ones get 503 `service_unavailable`; default 256. */
  maxQueue?: number;
  /**
   * Milliseconds a worker may run past the engine's time budget (counted once it has parsed the
   * request) before it is terminated and the request answered BLOCK `PAYLOAD_TOO_COMPLEX`; default 250.
   */
  workerGraceMs?: number;
  /** Milliseconds a request may wait for a free worker before it gets 503; default 5,000. */
  queueTimeoutMs?: number;
  /** Milliseconds to receive a whole request body; slower senders get 408. Default 10,000. */
  bodyTimeoutMs?: number;
  /** JSON logs: `false` (default) for none, `true` for stdout, or a destination and level. */
  logger?: boolean | { destination?: LogDestination; level?: 'debug' | 'info' | 'warn' | 'error' };
}

export const DEFAULTS = {
  host: '127.0.0.1',
  port: 8787,
  bodyLimitBytes: 1024 * 1024,
  maxJsonDepth: 64,
  maxQueue: 256,
  workerGraceMs: 250,
  queueTimeoutMs: 5_000,
  inlineMaxBytes: 8192,
  bodyTimeoutMs: 10_000,
} as const;

/** Shortest bearer token accepted (the runner service's minimum too). */
export const MIN_TOKEN_LENGTH = 16;

/** Hard ceiling so a configuration can't re-open the recursion risk the depth limit closes. */
export const MAX_JSON_DEPTH_CEILING = 512;
