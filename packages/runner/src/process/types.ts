/** Options for one subprocess invocation following the seed's stdin/stdout contract. */
export interface SpawnJsonProcessOptions {
  /** Executable to run (resolved by the OS, no shell). */
  command: string;
  /** Arguments. */
  args?: string[];
  /** The one JSON object written to stdin. */
  input: unknown;
  /** Working directory. */
  cwd?: string;
  /** The complete environment (not merged with process.env: callers scrub it). */
  env?: Record<string, string>;
  /** Hard timeout; on expiry the whole process group gets SIGTERM then SIGKILL. */
  timeoutMs: number;
  /** Grace between SIGTERM and SIGKILL. */
  killGraceMs?: number;
  /** Cap on stdout bytes; past it the process group is killed. */
  maxStdoutBytes?: number;
  /** Cap on stderr bytes kept as logs (the rest is dropped, not buffered). */
  maxStderrBytes?: number;
  /** Aborting kills the process group. */
  signal?: AbortSignal;
}

/** How a subprocess invocation ended. Exactly one of `output` / `failure` is set. */
export interface SpawnJsonProcessResult {
  /** The parsed stdout object when the process exited 0 with one JSON object. */
  output?: unknown;
  failure?: {
    code: SpawnFailureCode;
    message: string;
  };
  exitCode: number | null;
  signal: string | null;
  /** stderr, kept as logs (truncated to maxStderrBytes). */
  stderr: string;
  durationMs: number;
}

/** Why a subprocess invocation failed. */
export type SpawnFailureCode =
  'TIMEOUT' | 'NON_ZERO_EXIT' | 'SIGNALLED' | 'BAD_JSON' | 'NO_OUTPUT' | 'OUTPUT_TOO_LARGE' | 'SPAWN_FAILED' | 'ABORTED';
